# gather_ckpt.py: sharded (ZeRO-3 style) training; every --save-every steps rank 0 consolidates the full
# fp32 state dict on the CPU (all_gather of each layer's shards) and torch.save()s it.
import argparse, datetime, os, socket, time
import torch
import torch.distributed as dist

ap = argparse.ArgumentParser()
ap.add_argument("--layers", type=int, default=24)
ap.add_argument("--dim", type=int, default=8192)
ap.add_argument("--steps", type=int, default=6)
ap.add_argument("--save-every", type=int, default=3)
ap.add_argument("--save-dir", default="/workspace/ckpt")
ap.add_argument("--pg-timeout", type=int, default=600)
args = ap.parse_args()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
device = torch.device("cuda", 0)
torch.cuda.set_device(device)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout), device_id=device)
log(f"process group ready: world {world}, host {socket.gethostname()}, nccl {'.'.join(map(str, torch.cuda.nccl.version()))}")
rows = args.dim // world
torch.manual_seed(rank)
shards = [(torch.randn(rows, args.dim, device=device) * 0.02).requires_grad_() for _ in range(args.layers)]
opt = torch.optim.SGD(shards, lr=1e-3)
full_gib = args.layers * args.dim * args.dim * 4 / 2**30
log(f"{args.layers} layers of {args.dim}x{args.dim} fp32, {rows} rows per rank; full state {full_gib:.1f} GiB")

def save_full(step):
    log(f"step {step}: consolidating full state dict on rank 0 (cpu offload)")
    state = {}
    buf = torch.empty(args.dim, args.dim, device=device)
    for i, s in enumerate(shards):
        dist.all_gather_into_tensor(buf, s.detach())
        if rank == 0:
            state[f"layers.{i}.weight"] = buf.cpu()
            if i % 4 == 3:
                log(f"  gathered {i + 1}/{args.layers} layers")
    if rank == 0:
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save(state, os.path.join(args.save_dir, f"step{step}.pt"))
        log(f"saved {args.save_dir}/step{step}.pt")
    dist.barrier()

for step in range(1, args.steps + 1):
    x = torch.randn(256, args.dim, device=device)
    loss = sum((x @ s.t()).pow(2).mean() for s in shards[:4])
    opt.zero_grad(); loss.backward(); opt.step()
    l = loss.detach(); dist.all_reduce(l)
    log(f"step {step} loss {l.item() / world:.4f}")
    if step % args.save_every == 0:
        save_full(step)
log("done")
dist.destroy_process_group()
