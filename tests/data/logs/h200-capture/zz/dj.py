# dj.py: a small torch.distributed job (all_reduce loop). Env: RANK, WORLD_SIZE (+ MASTER_ADDR/PORT for env://),
#   DJ_BACKEND (nccl|gloo), DJ_INIT (init_method, default env://), DJ_TIMEOUT (s, default 30), DJ_STEPS
import datetime, os, socket, time
import torch, torch.distributed as dist
backend = os.environ.get("DJ_BACKEND", "nccl"); init = os.environ.get("DJ_INIT", "env://")
to = datetime.timedelta(seconds=int(os.environ.get("DJ_TIMEOUT", "30")))
rank, ws = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
tag = f"[{socket.gethostname()} rank {rank}]"
print(f"{tag} torch {torch.__version__}: init_process_group(backend={backend!r}, init_method={init!r}, world_size={ws}, rank={rank}, timeout={to.seconds}s)", flush=True)
kw = dict(backend=backend, init_method=init, world_size=ws, rank=rank, timeout=to)
if backend == "nccl":
    dev_i = int(os.environ.get("LOCAL_RANK", "0")) if os.environ.get("DJ_LOCAL") else 0   # DJ_LOCAL=1: cuda:LOCAL_RANK
    torch.cuda.set_device(dev_i); kw["device_id"] = torch.device(f"cuda:{dev_i}")
t0 = time.time()
dist.init_process_group(**kw)
print(f"{tag} process group ready after {time.time() - t0:.1f}s", flush=True)
dev = "cuda" if backend == "nccl" else "cpu"
for step in range(int(os.environ.get("DJ_STEPS", "5"))):
    t = torch.full((1 << 20,), float(rank + 1), device=dev)
    dist.all_reduce(t)
    print(f"{tag} step {step}: all_reduce sum {t[0].item():.0f}", flush=True)
dist.destroy_process_group()
print(f"{tag} done", flush=True)
