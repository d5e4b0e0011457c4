# prep_model.py (set-up, not part of a job's log): write a small HF-style model directory and/or a resume checkpoint
# as an earlier run on another cluster left it.  prep_model.py MODEL_DIR [RESUME_PT]
import argparse, json, os, sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finetune import TinyLM
mdir = sys.argv[1]
os.makedirs(mdir, exist_ok=True)
cfg = {"architectures": ["TinyLMForCausalLM"], "model_type": "tinylm", "vocab_size": 32000, "hidden_size": 512,
       "num_hidden_layers": 4, "intermediate_size": 1376, "torch_dtype": "float32"}
json.dump(cfg, open(os.path.join(mdir, "config.json"), "w"), indent=2)
json.dump({"bos_token_id": 1, "eos_token_id": 2}, open(os.path.join(mdir, "generation_config.json"), "w"))
torch.manual_seed(0)
m = TinyLM(cfg)
torch.save(m.state_dict(), os.path.join(mdir, "pytorch_model.bin"))
if len(sys.argv) > 2:
    os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
    opt = torch.optim.AdamW(m.parameters(), lr=2e-5)
    m(torch.randint(0, 32000, (2, 16))).float().mean().backward(); opt.step()
    args = argparse.Namespace(model_dir=mdir, lr=2e-5, warmup_steps=100, max_steps=3000, micro_batch=8, seq_len=512,
                              bf16=True, seed=42, output_dir=os.path.dirname(sys.argv[2]))
    torch.save({"model": m.state_dict(), "optimizer": opt.state_dict(), "step": 1200, "epoch": 1, "args": args},
               sys.argv[2])
print("prepared", mdir, *sys.argv[2:])
