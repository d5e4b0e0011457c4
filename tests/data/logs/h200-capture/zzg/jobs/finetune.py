# finetune.py: supervised fine-tuning of a small causal LM from an HF-style model directory (config.json +
# pytorch_model.bin), torchrun, NCCL; resumes from RESUME_FROM (a training-state .pt) when set.
import datetime, json, os, time, warnings
import torch, torch.distributed as dist, torch.nn as nn

class TinyLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, f = cfg["hidden_size"], cfg["intermediate_size"]
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], h)
        self.layers = nn.ModuleList(nn.Sequential(nn.LayerNorm(h), nn.Linear(h, f), nn.SiLU(), nn.Linear(f, h))
                                    for _ in range(cfg["num_hidden_layers"]))
        self.norm = nn.LayerNorm(h)
        self.lm_head = nn.Linear(h, cfg["vocab_size"], bias=False)

    def forward(self, ids):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = x + layer(x)
        return self.lm_head(self.norm(x))

def main():
    rank, world, lr_ = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(lr_)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=60), device_id=torch.device("cuda", lr_))
    mdir = os.environ["MODEL_DIR"]
    cfg = json.load(open(os.path.join(mdir, "config.json")))
    print(f"{time.strftime('%H:%M:%S')} [rank {rank}] loading {cfg['architectures'][0]} from {mdir}", flush=True)
    model = TinyLM(cfg)
    sd = torch.load(os.path.join(mdir, "pytorch_model.bin"), map_location="cpu", weights_only=True)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    print(f"[rank {rank}] weights loaded ({len(sd)} tensors, missing {len(missing)}, unexpected {len(unexpected)})", flush=True)
    model = nn.parallel.DistributedDataParallel(model.cuda(), device_ids=[lr_])
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    start = 0
    if os.environ.get("RESUME_FROM"):
        print(f"[rank {rank}] resuming from {os.environ['RESUME_FROM']}", flush=True)
        state = torch.load(os.environ["RESUME_FROM"], map_location="cpu")
        model.module.load_state_dict(state["model"])
        if "optimizer" in state:
            opt.load_state_dict(state["optimizer"])
        else:
            warnings.warn("resume checkpoint has no optimizer state; AdamW moments re-initialised")
        start = state.get("step", 0)
        print(f"[rank {rank}] resumed at step {start}", flush=True)
    legacy_amp = os.environ.get("LEGACY_AMP") == "1"
    scaler = torch.cuda.amp.GradScaler(enabled=False) if legacy_amp else None
    steps = int(os.environ.get("STEPS", "30"))
    t0 = time.time()
    for step in range(start, start + steps):
        ids = torch.randint(0, cfg["vocab_size"], (8, 128), device="cuda")
        if legacy_amp:
            with torch.cuda.amp.autocast(dtype=torch.bfloat16):
                logits = model(ids[:, :-1])
        else:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(ids[:, :-1])
        loss = nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        else:
            loss.backward(); opt.step()
        if step % 10 == 0:
            print(f"{time.strftime('%H:%M:%S')} [rank {rank}] step {step} loss {loss.item():.4f} "
                  f"({(time.time() - t0) / (step - start + 1) * 1000:.0f} ms/step)", flush=True)
    torch.cuda.synchronize()
    print(f"[rank {rank}] fine-tune done", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
