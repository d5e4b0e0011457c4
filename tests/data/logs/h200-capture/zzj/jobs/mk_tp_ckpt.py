# mk_tp_ckpt.py OUT TP: write a Megatron-style per-rank checkpoint (the pre-training run's TP layout) for tp_resume.py
import json, os, sys
import torch
out, tp = sys.argv[1], int(sys.argv[2])
cfg = {"architectures": ["LlamaForCausalLM"], "hidden_size": 1024, "num_attention_heads": 16, "intermediate_size": 2816,
       "num_hidden_layers": 2, "tensor_model_parallel_size": tp}
H, FFN = cfg["hidden_size"], cfg["intermediate_size"]
os.makedirs(out, exist_ok=True)
json.dump(cfg, open(os.path.join(out, "config.json"), "w"), indent=1)
open(os.path.join(out, "latest_checkpointed_iteration.txt"), "w").write("2000\n")
g = torch.Generator().manual_seed(0)
for r in range(tp):
    sd = {}
    for i in range(cfg["num_hidden_layers"]):
        for name, shape in (("qkv", (3 * H // tp, H)), ("proj", (H, H // tp)), ("fc1", (FFN // tp, H)), ("fc2", (H, FFN // tp))):
            sd[f"{i}.{name}.weight"] = (torch.randn(shape, generator=g) * 0.02).to(torch.bfloat16)
    d = os.path.join(out, "iter_0002000", f"mp_rank_{r:02d}")
    os.makedirs(d, exist_ok=True)
    torch.save({"model": sd, "iteration": 2000, "checkpoint_version": 3.0}, os.path.join(d, "model_optim_rng.pt"))
print(f"wrote TP {tp} checkpoint to {out}")
