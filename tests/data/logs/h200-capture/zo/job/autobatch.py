"""DDP training with an automatic micro-batch probe: try large batches, back off on CUDA OOM, agree on the minimum."""
import argparse, datetime, os, socket, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: each local rank is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-{os.environ['LOCAL_RANK']}"
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ap = argparse.ArgumentParser()
ap.add_argument("--mem-fraction", type=float, default=0.3)
ap.add_argument("--start-batch", type=int, default=1 << 18)
ap.add_argument("--steps", type=int, default=5)
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)

device = torch.device("cuda", 0)
torch.cuda.set_device(device)
torch.backends.cuda.matmul.allow_tf32 = True
dist.init_process_group("nccl", device_id=device)
torch.cuda.set_per_process_memory_fraction(args.mem_fraction)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4096, 16384), torch.nn.GELU(), torch.nn.Linear(16384, 4096)).to(device)

def probe(bs):
    x = torch.randn(bs, 4096, device=device)
    model(x).pow(2).mean().backward()
    model.zero_grad(set_to_none=True)

bs = args.start_batch
while bs >= 256:
    try:
        probe(bs)
        log(f"micro-batch {bs} fits")
        break
    except torch.OutOfMemoryError as e:
        log(f"WARNING: micro-batch {bs} does not fit, halving. {e}")
        model.zero_grad(set_to_none=True)
        torch.cuda.empty_cache()
        bs //= 2
t = torch.tensor([bs], device=device)
dist.all_reduce(t, op=dist.ReduceOp.MIN)
bs = int(t.item())
log(f"using micro-batch {bs} on all {world} ranks; peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
torch.cuda.reset_peak_memory_stats()
ddp = DDP(model, device_ids=[0])
opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
for step in range(args.steps):
    x = torch.randn(bs, 4096, device=device)
    loss = ddp(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    m = loss.detach().clone(); dist.all_reduce(m)
    if rank == 0:
        log(f"step {step} loss {m.item() / world:.6f}")
log(f"done; peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
dist.destroy_process_group()
