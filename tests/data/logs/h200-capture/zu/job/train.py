# train.py: small LM-style DDP training loop (torchrun, one GPU per rank)
import argparse, datetime, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: each local rank is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-{os.environ['LOCAL_RANK']}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=8)
ap.add_argument("--pg-timeout", type=int, default=600)
ap.add_argument("--vocab", type=int, default=32000)
ap.add_argument("--step-sleep", type=float, default=0.0, help="simulated data-loading time per step")
ap.add_argument("--fused-gelu", action="store_true", help="use the Triton fused GELU from fused_ops.py")
ap.add_argument("--ckpt-every", type=int, default=0)
ap.add_argument("--ckpt-dir", default="/workspace/ckpt")
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
if os.environ.get("Z91_PIDDIR"):   # capture harness: where the harness finds the workers
    open(os.path.join(os.environ["Z91_PIDDIR"], f"rank{rank}.pid"), "w").write(str(os.getpid()))

log(f"host {socket.gethostname()}, pid {os.getpid()}, cuda available: {torch.cuda.is_available()}, device count: {torch.cuda.device_count()}")
device = torch.device("cuda", 0)   # one GPU per node
torch.cuda.set_device(device)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout), device_id=device)
log(f"process group ready: world {world}, torch {torch.__version__}, nccl {'.'.join(map(str, torch.cuda.nccl.version()))}")

if args.fused_gelu:
    from fused_ops import fused_gelu
    act = fused_gelu
else:
    act = F.gelu

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d); self.up = nn.Linear(d, 4 * d); self.down = nn.Linear(4 * d, d)
    def forward(self, h):
        return self.down(act(self.up(self.norm(h))))

class TinyLM(nn.Module):
    def __init__(self, vocab, d=512, layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.head = nn.Linear(d, vocab, bias=False)
    def forward(self, ids):
        h = self.embed(ids)
        for b in self.blocks:
            h = h + b(h)
        return self.head(h)

torch.manual_seed(0)
model = TinyLM(args.vocab).to(device)
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])
opt = torch.optim.AdamW(ddp.parameters(), lr=3e-4)
log(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, vocab {args.vocab}")

t_last = time.time()
for step in range(args.steps):
    if args.step_sleep:
        time.sleep(args.step_sleep)
    g = torch.Generator().manual_seed(1000 * rank + step)
    ids = torch.randint(0, args.vocab, (8, 128), generator=g).to(device)
    logits = ddp(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, args.vocab), ids[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    l = loss.detach().float(); dist.all_reduce(l)
    if rank == 0:
        now = time.time()
        log(f"step {step} loss {l.item() / world:.4f} ({now - t_last:.2f}s)")
        t_last = now
    if args.ckpt_every and (step + 1) % args.ckpt_every == 0:
        t0 = time.time()
        if rank == world - 1:       # the last rank writes the checkpoint (slow network volume)
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.ckpt_dir, f"step{step + 1}.pt"))
            time.sleep(12)
            log(f"checkpoint step{step + 1}.pt written in {time.time() - t0:.1f}s")
        dist.barrier()
        waited = time.time() - t0
        if waited > 5:
            log(f"WARNING: waited {waited:.1f}s at the checkpoint barrier (straggler rank {world - 1})")
log("done")
dist.destroy_process_group()
