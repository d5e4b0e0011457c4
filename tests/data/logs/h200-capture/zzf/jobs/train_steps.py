# train_steps.py: multi-node DDP training (one GPU per node), NCCL; optional CPU (gloo) side group for
# object collectives. Knobs from the environment: STEPS, STEP_SLEEP, PRINT_EVERY, PG_TIMEOUT_S, DIST_BACKEND.
import datetime, os, socket, time
import torch, torch.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
lr_ = int(os.environ.get("LOCAL_RANK", 0))
steps, pause = int(os.environ.get("STEPS", "40")), float(os.environ.get("STEP_SLEEP", "0"))
every = int(os.environ.get("PRINT_EVERY", "10"))
backend = os.environ.get("DIST_BACKEND", "nccl")
torch.cuda.set_device(lr_)
print(f"{time.strftime('%H:%M:%S')} [{socket.gethostname()} rank {rank}] init_process_group({backend}) world_size={world} "
      f"master={os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}", flush=True)
dist.init_process_group(backend, timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "60"))),
                        device_id=torch.device("cuda", lr_))
if "gloo" in backend:
    meta = [{"run": "pretrain-7b-ablation", "started": time.time()}] if rank == 0 else [None]
    dist.broadcast_object_list(meta, src=0, device=torch.device("cpu"))
    print(f"[rank {rank}] run metadata: {meta[0]['run']}", flush=True)
x = torch.full((16 * 1024 * 1024,), float(rank + 1), device="cuda")
dist.all_reduce(x)
print(f"[rank {rank}] all_reduce 64 MiB check: {x[0].item()} (want {world * (world + 1) / 2})", flush=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
    torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
t0 = time.time()
for step in range(steps):
    xb = torch.randn(64, 1024, device="cuda")
    loss = (model(xb) - xb).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % every == 0:
        print(f"{time.strftime('%H:%M:%S')} [rank {rank}] step {step}/{steps} loss {loss.item():.4f} "
              f"({(time.time() - t0) / (step + 1) * 1000:.0f} ms/step)", flush=True)
    if pause:
        time.sleep(pause)
torch.cuda.synchronize()
print(f"[rank {rank}] training done", flush=True)
dist.destroy_process_group()
