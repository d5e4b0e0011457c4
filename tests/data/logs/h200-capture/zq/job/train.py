# train.py: small LM-style training loop (torchrun, one GPU per rank)
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
ap.add_argument("--data-dir", default="")
ap.add_argument("--eval-every", type=int, default=0)
ap.add_argument("--amp-fp16", action="store_true")
ap.add_argument("--init-scale", type=float, default=65536.0)
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)

log(f"host {socket.gethostname()}, cuda available: {torch.cuda.is_available()}, device count: {torch.cuda.device_count()}")
device = torch.device("cuda", 0)   # one GPU per node
torch.cuda.set_device(device)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout), device_id=device)
log(f"process group ready: world {world}, torch {torch.__version__}, nccl {'.'.join(map(str, torch.cuda.nccl.version()))}")

class TinyLM(nn.Module):
    def __init__(self, vocab, d=512, layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)) for _ in range(layers))
        self.head = nn.Linear(d, vocab, bias=False)
    def forward(self, ids):
        h = self.embed(ids)
        for b in self.blocks:
            h = h + b(h)
        return self.head(h)

def load_shard(step):
    if args.data_dir:
        path = os.path.join(args.data_dir, f"shard-{rank:05d}.pt")
        ids = torch.load(path)
        return ids[step % ids.shape[0]].to(device)
    g = torch.Generator().manual_seed(1000 * rank + step)
    return torch.randint(0, args.vocab, (8, 128), generator=g).to(device)

torch.manual_seed(0)
model = TinyLM(args.vocab).to(device)
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])
opt = torch.optim.AdamW(ddp.parameters(), lr=3e-4)
if args.amp_fp16:
    try:
        scaler = torch.cuda.amp.GradScaler(init_scale=args.init_scale)
    except AttributeError:
        scaler = torch.amp.GradScaler("cuda", init_scale=args.init_scale)
else:
    scaler = None
log(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, vocab {args.vocab}, data {args.data_dir or 'synthetic'}")

def evaluate(step):
    ddp.eval()
    with torch.no_grad():
        ids = load_shard(10_000 + step)
        logits = ddp(ids[:, :-1])
        preds = logits.argmax(-1).cpu().numpy()
        labels = ids[:, 1:].cpu().numpy()
        acc = float((preds == labels).mean())
    ddp.train()
    log(f"eval step {step}: next-token accuracy {acc:.4f}")

for step in range(args.steps):
    ids = load_shard(step)
    if scaler is not None:
        with torch.autocast("cuda", dtype=torch.float16):
            logits = ddp(ids[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, args.vocab), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        old = scaler.get_scale()
        scaler.step(opt); scaler.update()
        new = scaler.get_scale()
        if new < old:
            log(f"step {step}: gradient overflow (inf/nan in fp16 grads), skipping optimizer step; loss scale {old:.0f} -> {new:.0f}")
    else:
        logits = ddp(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    l = loss.detach().float(); dist.all_reduce(l)
    if rank == 0:
        log(f"step {step} loss {l.item() / world:.4f}")
    if args.eval_every and (step + 1) % args.eval_every == 0:
        evaluate(step)
log("done")
dist.destroy_process_group()
