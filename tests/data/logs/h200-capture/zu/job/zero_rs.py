# zero_rs.py: ZeRO-1 style data parallel: gradients flattened into one buffer, reduce-scattered so each rank
# updates its own shard of the flat parameters, then all-gathered back.
import argparse, datetime, os, socket, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: each local rank is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-{os.environ['LOCAL_RANK']}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=6)
ap.add_argument("--pg-timeout", type=int, default=600)
args = ap.parse_args()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
device = torch.device("cuda", 0)
torch.cuda.set_device(device)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout), device_id=device)
log(f"process group ready: world {world}")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1000, 1000), nn.GELU(), nn.Linear(1000, 10)).to(device)
params = [p for p in model.parameters()]
numel = sum(p.numel() for p in params)
shard = numel // world
flat_param = torch.cat([p.detach().reshape(-1) for p in params])
opt_state = torch.zeros(shard, device=device)
log(f"flat parameters: {numel} elements, shard {shard} per rank ({world} ranks)")
for step in range(args.steps):
    x = torch.randn(32, 1000, device=device); y = torch.randint(0, 10, (32,), device=device)
    loss = F.cross_entropy(model(x), y)
    model.zero_grad(); loss.backward()
    flat_grad = torch.cat([p.grad.reshape(-1) for p in params])
    grad_shard = torch.empty(shard, device=device)
    dist.reduce_scatter_tensor(grad_shard, flat_grad, op=dist.ReduceOp.AVG)
    opt_state.mul_(0.9).add_(grad_shard)
    my = flat_param[rank * shard:(rank + 1) * shard]
    my.add_(opt_state, alpha=-1e-3)
    dist.all_gather_into_tensor(flat_param, my)
    log(f"step {step} loss {loss.item():.4f}")
dist.destroy_process_group()
