# tj.py: a small torch.distributed training-style loop (all_reduce of "gradients" every step) with a fault at step 3.
#   Env: RANK, WORLD_SIZE, MASTER_ADDR/PORT (env://), TJ_BACKEND (nccl|gloo), TJ_TIMEOUT (s), TJ_MODE:
#   plain     : nothing else
#   newgroup  : at step 3, rank 0 alone builds a "metrics" sub-group (dist.new_group under `if rank == 0:`)
#   sendsend  : at step 3, a pipeline-style activation exchange: every rank dist.send()s to its peer, then dist.recv()s
import datetime, os, socket, time
import torch, torch.distributed as dist
backend = os.environ.get("TJ_BACKEND", "nccl"); mode = os.environ.get("TJ_MODE", "plain")
to = datetime.timedelta(seconds=int(os.environ.get("TJ_TIMEOUT", "20")))
rank, ws = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
tag = f"[{socket.gethostname()} rank {rank}]"
print(f"{tag} torch {torch.__version__}: init_process_group(backend={backend!r}, world_size={ws}, rank={rank}, timeout={to.seconds}s)", flush=True)
kw = dict(backend=backend, init_method="env://", world_size=ws, rank=rank, timeout=to)
if backend == "nccl":
    torch.cuda.set_device(0)
    if mode != "newgroup":   # the metrics-group script binds no device_id (lazy NCCL init)
        kw["device_id"] = torch.device("cuda:0")
dist.init_process_group(**kw)
dev = "cuda" if backend == "nccl" else "cpu"
print(f"{tag} process group ready", flush=True)
for step in range(6):
    g = torch.full((1 << 20,), float(rank + 1), device=dev)
    dist.all_reduce(g)
    print(f"{tag} step {step}: grad all_reduce sum {g[0].item():.0f}", flush=True)
    if step == 3 and mode == "newgroup" and rank == 0:
        print(f"{tag} step {step}: building metrics group on ranks [0, 1]", flush=True)
        mg = dist.new_group(ranks=[0, 1], timeout=to)
        print(f"{tag} metrics group ready", flush=True)
    if step == 3 and mode == "sendsend":
        peer = 1 - rank
        act = torch.full((128 << 20,), float(rank), device=dev)   # 512 MiB of activations
        buf = torch.empty_like(act)
        print(f"{tag} step {step}: send {act.numel() * 4 >> 20} MiB to rank {peer}, then recv from rank {peer}", flush=True)
        dist.send(act, dst=peer)
        dist.recv(buf, src=peer)
        print(f"{tag} step {step}: exchange done, got {buf[0].item():.0f}", flush=True)
    time.sleep(0.5)
dist.destroy_process_group()
print(f"{tag} done", flush=True)
