#!/usr/bin/env python3
"""train.py: a small causal-LM pre-training loop (torchrun, DDP over NCCL, optional Gloo CPU group), optionally
torch.compile'd, with a periodic evaluation pass (optionally compiled on its own, optionally on rank 0 only)."""
import argparse, datetime, math, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share the node's one GPU; each is its own NCCL "host"
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--d-model", type=int, default=256)
ap.add_argument("--layers", type=int, default=2)
ap.add_argument("--heads", type=int, default=4)
ap.add_argument("--vocab", type=int, default=4096)
ap.add_argument("--seq", type=int, default=128)
ap.add_argument("--seq-schedule", default="", help="comma list of sequence lengths, cycled per step (packing buckets)")
ap.add_argument("--batch", type=int, default=8)
ap.add_argument("--lr", type=float, default=3e-4)
ap.add_argument("--compile", default="none", help="none | default | reduce-overhead | max-autotune | max-autotune-no-cudagraphs")
ap.add_argument("--eval-every", type=int, default=0)
ap.add_argument("--eval-batches", type=int, default=4)
ap.add_argument("--eval-compile", default="none")
ap.add_argument("--eval-rank0-only", action="store_true")
ap.add_argument("--debug-act-norm", action="store_true", help="print the residual-stream norm in every training forward (debug)")
ap.add_argument("--backend", default="nccl")
ap.add_argument("--eager-init", action="store_true", help="bind the device at init_process_group (eager NCCL init)")
ap.add_argument("--pg-timeout", type=int, default=120)
ap.add_argument("--print-every", type=int, default=5)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--device", default="cuda")
args = ap.parse_args()

rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
host = socket.gethostname()


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{host} rank {rank}/{world}] {msg}", flush=True)


if args.device == "cuda":
    dev = torch.device("cuda", local_rank % max(torch.cuda.device_count(), 1))
    torch.cuda.set_device(dev)
    dname = torch.cuda.get_device_name(dev)
else:
    dev, dname = torch.device("cpu"), "cpu"
log(f"start: pid {os.getpid()}, torch {torch.__version__}, cuda {torch.version.cuda}, device {dev} ({dname}), "
    f"compile={args.compile}")
kw = {"device_id": dev} if args.eager_init else {}
dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.pg_timeout), **kw)
log(f"process group ready: backend {args.backend}, world {dist.get_world_size()}, timeout {args.pg_timeout}s")


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyLM(nn.Module):
    def __init__(self, vocab, d, layers, heads, debug_norm=False):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.debug_norm = debug_norm

    def forward(self, idx):
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        if self.debug_norm and self.training:
            print(f"[{host} rank {rank}] debug: residual norm {x.float().norm().item():.2f}", flush=True)
        return self.head(self.ln_f(x))


torch.manual_seed(0)
model = TinyLM(args.vocab, args.d_model, args.layers, args.heads, args.debug_act_norm).to(dev)
nparams = sum(p.numel() for p in model.parameters())
log(f"model: {args.layers} layers, d_model {args.d_model}, vocab {args.vocab}, {nparams / 1e6:.2f}M parameters")
ddp = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
step_model = ddp if args.compile == "none" else torch.compile(ddp, mode=None if args.compile == "default" else args.compile)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
gen = torch.Generator().manual_seed(1234 + rank)
sched = [int(s) for s in args.seq_schedule.split(",") if s] or [args.seq]


def batch(t, n=None):
    x = torch.randint(0, args.vocab, (n or args.batch, t + 1), generator=gen)
    return x[:, :-1].to(dev, non_blocking=True), x[:, 1:].to(dev, non_blocking=True)


eval_fn = None


def evaluate(step):
    global eval_fn
    if eval_fn is None:
        eval_fn = model if args.eval_compile == "none" else torch.compile(model, mode=None if args.eval_compile == "default" else args.eval_compile)
        log(f"eval: {args.eval_batches} batches, compile={args.eval_compile}")
    model.eval()
    tot = 0.0
    with torch.no_grad():
        for _ in range(args.eval_batches):
            x, y = batch(args.seq)
            logits = eval_fn(x)
            tot += F.cross_entropy(logits.float().view(-1, args.vocab), y.reshape(-1)).item()
    model.train()
    val = tot / args.eval_batches
    log(f"eval step {step}: val_loss {val:.4f} ppl {math.exp(min(val, 30)):.1f}")


t0 = time.time()
for step in range(1, args.steps + 1):
    x, y = batch(sched[(step - 1) % len(sched)])
    if step == 1:
        log(f"first step: compiling={args.compile != 'none'}, batch {tuple(x.shape)}")
    logits = step_model(x)
    loss = F.cross_entropy(logits.float().view(-1, args.vocab), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step == 1 or step % args.print_every == 0:
        lv = loss.detach().clone()
        dist.all_reduce(lv)
        log(f"step {step}/{args.steps} loss {lv.item() / world:.4f} seq {x.shape[1]} ({time.time() - t0:.1f}s)")
    if args.eval_every and step % args.eval_every == 0:
        if args.eval_rank0_only:
            if rank == 0:
                evaluate(step)
            dist.barrier()
        else:
            evaluate(step)
    if args.step_sleep:
        time.sleep(args.step_sleep)
log(f"training done: {args.steps} steps in {time.time() - t0:.1f}s")
dist.destroy_process_group()
