#!/usr/bin/env python3
"""zero1_train.py: value-model fine-tune with a home-grown ZeRO-1 optimizer: gradients are all-reduced into a flat
fp32 buffer, each rank updates its shard of the flat master weights with a fused momentum-SGD CUDA kernel (JIT-built
from csrc/ with torch.utils.cpp_extension.load), then the shards are all-gathered. torchrun, one process per GPU."""
import argparse, datetime, math, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share the node's one GPU; each is its own NCCL "host"
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters
from torch.utils.cpp_extension import load

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=30)
ap.add_argument("--hidden", type=int, default=1024)
ap.add_argument("--batch", type=int, default=64)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--momentum", type=float, default=0.9)
ap.add_argument("--wd", type=float, default=0.0)
ap.add_argument("--pg-timeout", type=int, default=60)
ap.add_argument("--print-every", type=int, default=5)
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
host = socket.gethostname()
HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{host} rank {rank}/{world}] {msg}", flush=True)


dev = torch.device("cuda", local_rank % torch.cuda.device_count())
torch.cuda.set_device(dev)
log(f"start: pid {os.getpid()}, torch {torch.__version__}, device {dev}")
dist.init_process_group("nccl", device_id=dev, timeout=datetime.timedelta(seconds=args.pg_timeout))

t0 = time.time()
fused = load(name="zero1_fused_sgd",
             sources=[os.path.join(HERE, "csrc", "fused_sgd.cpp"), os.path.join(HERE, "csrc", "fused_sgd_kernel.cu")],
             extra_cflags=["-O3"], extra_cuda_cflags=["-O3", "--use_fast_math"], verbose=True)
log(f"fused optimizer extension ready ({time.time() - t0:.1f}s)")

torch.manual_seed(0)
h = args.hidden
model = nn.Sequential(nn.Linear(h, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1)).to(dev)
params = [p for p in model.parameters()]
numel = sum(p.numel() for p in params)
shard = math.ceil(numel / world)
padded = shard * world
flat_param = torch.zeros(padded, device=dev)
flat_param[:numel].copy_(parameters_to_vector(params))
dist.broadcast(flat_param, 0)
vector_to_parameters(flat_param[:numel], params)
momentum = torch.zeros(shard, device=dev)
gathered = torch.empty_like(flat_param)
log(f"zero-1: {numel} parameters, flat buffer {padded} (fp32), shard {shard} elements per rank, "
    f"rank {rank} owns [{rank * shard}, {(rank + 1) * shard})")

gen = torch.Generator(device=dev).manual_seed(100 + rank)
for step in range(1, args.steps + 1):
    x = torch.randn(args.batch, h, device=dev, generator=gen)
    target = x[:, :8].sum(dim=1, keepdim=True).tanh()
    loss = F.mse_loss(model(x), target)
    for p in params:
        p.grad = None
    loss.backward()
    flat_grad = torch.zeros(padded, device=dev)
    flat_grad[:numel].copy_(torch.cat([p.grad.reshape(-1) for p in params]))
    dist.all_reduce(flat_grad)
    flat_grad.div_(world)
    lo, hi = rank * shard, (rank + 1) * shard
    fused.fused_momentum_sgd_(flat_param[lo:hi], flat_grad[lo:hi], momentum, args.lr, args.momentum, args.wd)
    dist.all_gather_into_tensor(gathered, flat_param[lo:hi])
    flat_param.copy_(gathered)
    vector_to_parameters(flat_param[:numel], params)
    if step == 1 or step % args.print_every == 0:
        lv = loss.detach().clone()
        dist.all_reduce(lv)
        log(f"step {step}/{args.steps} loss {lv.item() / world:.5f}")
log("fine-tune done")
dist.destroy_process_group()
