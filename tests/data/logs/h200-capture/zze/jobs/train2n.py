# train2n.py: multi-node DDP smoke test (one GPU per node), NCCL; a 64 MiB all_reduce check, then 20 DDP steps.
import datetime, os, socket, torch, torch.distributed as dist
rank, world, lr = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(lr)
print(f"[{socket.gethostname()} rank {rank}] init_process_group(nccl) world_size={world} "
      f"master={os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}", flush=True)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "30"))),
                        device_id=torch.device("cuda", lr))
x = torch.full((16 * 1024 * 1024,), float(rank + 1), device="cuda")
dist.all_reduce(x)
want = world * (world + 1) / 2
print(f"[rank {rank}] all_reduce 64 MiB: min {x.min().item()} max {x.max().item()} (want {want})", flush=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
    torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    xb = torch.randn(64, 1024, device="cuda")
    loss = (model(xb) - xb).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
torch.cuda.synchronize()
print(f"[rank {rank}] done", flush=True)
dist.destroy_process_group()
