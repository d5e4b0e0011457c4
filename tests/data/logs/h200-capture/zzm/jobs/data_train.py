#!/usr/bin/env python3
"""data_train.py: DDP language-model training over pre-tokenised int32 shards (train-*.bin, records of SEQ+1 tokens)
memory-mapped by each DataLoader worker; checkpoints (rank 0) and resume. torchrun, one process per rank."""
import argparse, datetime, glob, logging, math, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share the node's one GPU; each is its own NCCL "host"
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True)
ap.add_argument("--seq", type=int, default=256)
ap.add_argument("--vocab", type=int, default=8192)
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--steps", type=int, default=100)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--print-every", type=int, default=10)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--ckpt-dir", default="")
ap.add_argument("--save-every", type=int, default=0)
ap.add_argument("--resume", action="store_true")
ap.add_argument("--warmup", type=int, default=20)
ap.add_argument("--backend", default="cpu:gloo,cuda:nccl")
ap.add_argument("--pg-timeout", type=int, default=120)
ap.add_argument("--device", default="cuda")
args = ap.parse_args()

rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [{socket.gethostname()} rank{rank}] %(message)s")
log = logging.getLogger("train")
if args.device == "cuda":
    dev = torch.device("cuda", local_rank % max(torch.cuda.device_count(), 1))
    torch.cuda.set_device(dev)
else:
    dev = torch.device("cpu")
log.info("start: pid %d, torch %s, device %s, world %d", os.getpid(), torch.__version__, dev, world)
dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=args.pg_timeout))
chk = torch.tensor([float(rank)])
dist.all_reduce(chk)   # a CPU tensor: the gloo side of the group
log.info("process group ready (%s), gloo check %.0f", args.backend, chk.item())


class TokenShards(Dataset):
    """Records of seq+1 tokens from every train-*.bin shard; each worker memory-maps the shards once."""
    def __init__(self, d, seq):
        self.files = sorted(glob.glob(os.path.join(d, "train-*.bin")))
        if not self.files:
            raise FileNotFoundError(f"no train-*.bin shards in {d}")
        self.rec = seq + 1
        self.counts = [os.path.getsize(f) // 4 // self.rec for f in self.files]
        self.cum = np.cumsum(self.counts)
        self.mm = None

    def __len__(self):
        return int(self.cum[-1])

    def __getitem__(self, i):
        if self.mm is None:
            self.mm = [np.memmap(f, dtype=np.int32, mode="r") for f in self.files]
        s = int(np.searchsorted(self.cum, i, side="right"))
        j = i - (int(self.cum[s - 1]) if s else 0)
        return torch.from_numpy(self.mm[s][j * self.rec:(j + 1) * self.rec]).long()


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm, self.up, self.down = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, h):
        return h + self.down(F.gelu(self.up(self.norm(h))))


class TinyLM(nn.Module):
    def __init__(self, vocab, d=256, n=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.norm_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        h = self.embed(ids)
        for b in self.blocks:
            h = b(h)
        return self.head(self.norm_f(h))


ds = TokenShards(args.data, args.seq)
log.info("data: %d shards in %s, %d records of %d tokens (%.1f MiB)", len(ds.files), args.data, len(ds), ds.rec,
         sum(os.path.getsize(f) for f in ds.files) / 2**20)
loader = DataLoader(ds, batch_size=args.batch, sampler=DistributedSampler(ds, world, rank, shuffle=True, seed=0),
                    num_workers=args.workers, persistent_workers=args.workers > 0, pin_memory=dev.type == "cuda",
                    drop_last=True)
torch.manual_seed(0)
model = TinyLM(args.vocab).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / args.warmup))
start = 0
if args.resume and args.ckpt_dir:
    latest = os.path.join(args.ckpt_dir, "latest")
    if os.path.exists(latest):
        path = os.path.join(args.ckpt_dir, open(latest).read().strip())
        ck = torch.load(path, map_location="cpu", weights_only=True)
        res = model.load_state_dict(ck["model"], strict=False)
        if res.missing_keys or res.unexpected_keys:
            log.warning("checkpoint %s: missing keys %s, unexpected keys %s (loaded with strict=False)", path,
                        res.missing_keys, res.unexpected_keys)
            log.warning("optimizer state not restored: the parameter set changed since step %d", ck["step"])
        else:
            opt.load_state_dict(ck["optimizer"])
        start = int(ck["step"])
        log.info("resumed from %s at step %d", path, start)
    else:
        log.info("no checkpoint in %s, starting from scratch", args.ckpt_dir)
model = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
log.info("model ready: %.1fM parameters; %d batches/epoch per rank, %d loader workers",
         sum(p.numel() for p in model.parameters()) / 1e6, len(loader), args.workers)


def save(step):
    if rank != 0 or not args.ckpt_dir:
        return
    os.makedirs(args.ckpt_dir, exist_ok=True)
    name = f"step-{step:06d}.pt"
    tmp = os.path.join(args.ckpt_dir, name + ".tmp")
    torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "step": step}, tmp)
    os.replace(tmp, os.path.join(args.ckpt_dir, name))
    with open(os.path.join(args.ckpt_dir, "latest"), "w") as f:
        f.write(name + "\n")
    log.info("saved checkpoint %s", name)


t0 = time.time()
it = iter(loader)
for step in range(start, args.steps):
    sched.step()   # warm-up schedule: lr for this step
    try:
        ids = next(it)
    except StopIteration:
        it = iter(loader)
        ids = next(it)
    ids = ids.to(dev, non_blocking=True)
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, args.vocab), ids[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % args.print_every == 0 or step == args.steps - 1:
        log.info("step %d/%d loss %.4f lr %.2e (%.0f ms/step)", step, args.steps, loss.item(), sched.get_last_lr()[0],
                 (time.time() - t0) / (step - start + 1) * 1000)
    if args.save_every and (step + 1) % args.save_every == 0:
        save(step + 1)
    if args.step_sleep:
        time.sleep(args.step_sleep)
log.info("training done in %.1fs", time.time() - t0)
dist.destroy_process_group()
