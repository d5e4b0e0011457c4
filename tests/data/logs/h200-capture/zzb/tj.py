# tj.py (Z153, from Z147's tj.py): a small torch.distributed loop, env://; TJ_BACKEND nccl|gloo, TJ_TIMEOUT s, TJ_MB MiB per all_reduce
import datetime, os, socket, time
import torch, torch.distributed as dist
backend = os.environ.get("TJ_BACKEND", "nccl"); mb = int(os.environ.get("TJ_MB", "4"))
to = datetime.timedelta(seconds=int(os.environ.get("TJ_TIMEOUT", "30")))
rank, ws = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
tag = f"[{socket.gethostname()} rank {rank}]"
print(f"{tag} torch {torch.__version__}: init_process_group(backend={backend!r}, world_size={ws}, rank={rank}, "
      f"MASTER_ADDR={os.environ.get('MASTER_ADDR')}, MASTER_PORT={os.environ.get('MASTER_PORT')}, timeout={to.seconds}s)", flush=True)
kw = dict(backend=backend, init_method="env://", world_size=ws, rank=rank, timeout=to)
if backend == "nccl":
    torch.cuda.set_device(0); kw["device_id"] = torch.device("cuda:0")
dist.init_process_group(**kw)
dev = "cuda" if backend == "nccl" else "cpu"
print(f"{tag} process group ready", flush=True)
for step in range(5):
    t = time.time()
    g = torch.full((mb << 18,), float(rank + 1), device=dev)
    dist.all_reduce(g)
    if dev == "cuda": torch.cuda.synchronize()
    print(f"{tag} step {step}: all_reduce {mb} MiB sum {g[0].item():.0f} in {time.time() - t:.2f}s", flush=True)
dist.barrier()
dist.destroy_process_group()
print(f"{tag} done", flush=True)
