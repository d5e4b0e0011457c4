# train_auto_device.py: DDP training that picks its device automatically (GPU when there is one).
import datetime, os, torch, torch.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", 0))
device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
print(f"[rank {rank}] Using device: {device}", flush=True)
dist.init_process_group(os.environ.get("DIST_BACKEND", "nccl"), timeout=datetime.timedelta(seconds=60))
model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10)).to(device)
model = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(30):
    x = torch.randn(32, 512, device=device); y = torch.randint(0, 10, (32,), device=device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
