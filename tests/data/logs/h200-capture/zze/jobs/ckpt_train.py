# ckpt_train.py: single-node training job (torchrun, NCCL) that checkpoints model + AdamW state every 5 steps.
import datetime, os, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=60))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(8)]).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
CK = os.environ.get("CKPT_DIR", "/tmp/ckpt")
os.makedirs(CK, exist_ok=True)
for step in range(1, 11):
    xb = torch.randn(32, 2048, device="cuda")
    loss = (model(xb) - xb).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
    if step % 5 == 0 and rank == 0:
        path = f"{CK}/step_{step}.pt"
        torch.save({"step": step, "model": model.module.state_dict(), "optim": opt.state_dict()}, path)
        print(f"[rank {rank}] saved {path} ({os.path.getsize(path) / 2**20:.1f} MiB)", flush=True)
    dist.barrier()
dist.destroy_process_group()
