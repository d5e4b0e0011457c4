#!/usr/bin/env python3
"""seqpack_train.py: causal-LM continued pre-training on packed sequences. Documents are packed into fixed-length
rows by a small C++ op (csrc/seqpack.cpp) JIT-built at start-up with torch.utils.cpp_extension.load; DDP over NCCL.
torchrun, one process per GPU."""
import argparse, datetime, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share the node's one GPU; each is its own NCCL "host"
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.cpp_extension import load

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=30)
ap.add_argument("--row-len", type=int, default=256)
ap.add_argument("--vocab", type=int, default=8192)
ap.add_argument("--d-model", type=int, default=256)
ap.add_argument("--rows", type=int, default=8)
ap.add_argument("--pg-timeout", type=int, default=60)
ap.add_argument("--print-every", type=int, default=5)
ap.add_argument("--device", default="cuda")
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
host = socket.gethostname()
HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{host} rank {rank}/{world}] {msg}", flush=True)


if args.device == "cuda":
    dev = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev, timeout=datetime.timedelta(seconds=args.pg_timeout))
else:
    dev = torch.device("cpu")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
log(f"start: pid {os.getpid()}, torch {torch.__version__}, device {dev}, "
    f"TORCH_EXTENSIONS_DIR={os.environ.get('TORCH_EXTENSIONS_DIR', '<default>')}")
t0 = time.time()
seqpack = load(name="seqpack", sources=[os.path.join(HERE, "csrc", "seqpack.cpp")], extra_cflags=["-O2"], verbose=True)
log(f"seqpack op ready ({time.time() - t0:.1f}s)")


class LM(nn.Module):
    def __init__(self, v, d):
        super().__init__()
        self.emb = nn.Embedding(v, d)
        self.pos = nn.Embedding(args.row_len, d)
        self.mlp = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, v, bias=False)

    def forward(self, ids, pos):
        x = self.emb(ids) + self.pos(pos)
        return self.head(x + self.mlp(x))


torch.manual_seed(0)
model = DDP(LM(args.vocab, args.d_model).to(dev), device_ids=[dev.index] if dev.type == "cuda" else None)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
gen = torch.Generator().manual_seed(7 + rank)
for step in range(1, args.steps + 1):
    lengths = torch.randint(16, args.row_len, (3 * args.rows,), generator=gen)
    tokens = torch.randint(1, args.vocab, (int(lengths.sum()),), generator=gen)
    ids, pos = seqpack.pack(tokens, lengths, args.row_len, 0)
    ids, pos = ids[: args.rows].to(dev), pos[: args.rows].to(dev)
    logits = model(ids[:, :-1], pos[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, args.vocab), ids[:, 1:].reshape(-1), ignore_index=0)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step == 1 or step % args.print_every == 0:
        lv = loss.detach().clone()
        dist.all_reduce(lv)
        log(f"step {step}/{args.steps} loss {lv.item() / world:.4f} rows {tuple(ids.shape)}")
log("done")
dist.destroy_process_group()
