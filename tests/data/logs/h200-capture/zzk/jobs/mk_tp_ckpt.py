# mk_tp_ckpt.py CKPT_DIR TP: write a Megatron-style TP checkpoint (bf16) of the projector MLP stack, then replace
# mp_rank_01's file with the one an fp16 inference export wrote (same tensors, cast to float16).
import os, sys
import torch

root, tp = sys.argv[1], int(sys.argv[2])
H, FFN, L, IT = 1024, 4096, 4, 4000
args = {"tensor_model_parallel_size": tp, "hidden_size": H, "ffn_hidden_size": FFN, "num_layers": L,
        "params_dtype": "bf16", "iteration": IT}
g = torch.Generator().manual_seed(0)
full = []
for _ in range(L):
    full.append({"fc1.weight": torch.randn(FFN, H, generator=g) * 0.02, "fc1.bias": torch.zeros(FFN),
                 "fc2.weight": torch.randn(H, FFN, generator=g) * 0.02, "fc2.bias": torch.zeros(H),
                 "norm.weight": torch.ones(H), "norm.bias": torch.zeros(H)})
d = os.path.join(root, f"iter_{IT:07d}")
for r in range(tp):
    sd = {}
    for i, p in enumerate(full):
        sd[f"{i}.fc1.weight"] = p["fc1.weight"].chunk(tp, 0)[r].clone()
        sd[f"{i}.fc1.bias"] = p["fc1.bias"].chunk(tp, 0)[r].clone()
        sd[f"{i}.fc2.weight"] = p["fc2.weight"].chunk(tp, 1)[r].clone()
        sd[f"{i}.fc2.bias"] = p["fc2.bias"].clone()
        sd[f"{i}.norm.weight"] = p["norm.weight"].clone()
        sd[f"{i}.norm.bias"] = p["norm.bias"].clone()
    dtype = torch.float16 if r == 1 else torch.bfloat16
    sd = {k: v.to(dtype) for k, v in sd.items()}
    os.makedirs(os.path.join(d, f"mp_rank_{r:02d}"), exist_ok=True)
    torch.save({"model": sd, "args": args, "iteration": IT}, os.path.join(d, f"mp_rank_{r:02d}", "model_optim_rng.pt"))
open(os.path.join(root, "latest_checkpointed_iteration.txt"), "w").write(f"{IT}\n")
print(f"wrote TP {tp} checkpoint {d} (mp_rank_01 as float16, the others bfloat16)")
