# ddp.py: a small DDP smoke test run before a multi-node training job (NCCL, one GPU per node)
import datetime, os, time, torch, torch.distributed as dist
rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"]); lr = int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(lr)
print(f"[rank {rank}] init_process_group(nccl) world_size={world} local_rank={lr}", flush=True)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=60), device_id=torch.device("cuda", lr))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
    torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    x = torch.randn(64, 1024, device="cuda")
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
torch.cuda.synchronize()
print(f"[rank {rank}] done", flush=True)
dist.destroy_process_group()
