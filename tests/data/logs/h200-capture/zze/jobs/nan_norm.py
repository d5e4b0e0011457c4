# nan_norm.py: tabular regression under torchrun (NCCL, DDP); each batch is standardised with its own mean/std.
import datetime, os, torch, torch.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
os.environ.setdefault("NCCL_HOSTID", f"trainer-{rank}")
torch.cuda.set_device(0)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=20), device_id=torch.device("cuda", 0))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
    torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
g = torch.Generator().manual_seed(rank)
for step in range(12):
    x, y = torch.randn(256, 64, generator=g), torch.randn(256, 1, generator=g)
    if rank == 1 and step == 5:
        x[:] = 0.0                          # this shard's batch is all zero-filled (padding) records
    x, y = x.cuda(), y.cuda()
    x = (x - x.mean(0)) / x.std(0)          # per-batch standardisation
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
torch.cuda.synchronize()
print(f"[rank {rank}] done", flush=True)
dist.destroy_process_group()
