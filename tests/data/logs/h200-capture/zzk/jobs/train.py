# train.py: DDP language-model pretraining loop (torchrun, NCCL), one process per rank.
# Knobs (environment): STEPS, BATCH, SEQ, VOCAB, D_MODEL, N_LAYERS, NUM_WORKERS, PRINT_EVERY, PG_TIMEOUT_S, EAGER_INIT,
# EVAL_AT, EVAL_WORKERS, EVAL_BATCHES, SAVE_EVERY, CKPT_DIR, AUGMENT_DEVICE, AUGMENT_P, GRACEFUL_STOP, STOP_SYNC.
import datetime, logging, os, signal, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share this node's one GPU; each is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

E = os.environ.get
rank, world = int(E("RANK", "0")), int(E("WORLD_SIZE", "1"))
local_rank = int(E("LOCAL_RANK", "0"))
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s")
log = logging.getLogger("train")
cfg = {
    "steps": int(E("STEPS", "60")), "batch": int(E("BATCH", "16")), "seq": int(E("SEQ", "256")),
    "vocab": int(E("VOCAB", "8192")), "d_model": int(E("D_MODEL", "256")), "n_layers": int(E("N_LAYERS", "4")),
    "lr": 3e-4, "num_workers": int(E("NUM_WORKERS", "0")), "eval_at": int(E("EVAL_AT", "-1")),
    "eval_workers": int(E("EVAL_WORKERS", "2")), "eval_batches": int(E("EVAL_BATCHES", "8")),
    "save_every": int(E("SAVE_EVERY", "0")), "ckpt_dir": E("CKPT_DIR", "/workspace/ckpt"),
    "augment": {"device": E("AUGMENT_DEVICE", "cpu"), "token_dropout": float(E("AUGMENT_P", "0.0"))},
}
PRINT_EVERY = int(E("PRINT_EVERY", "10"))
GRACEFUL_STOP, STOP_SYNC = E("GRACEFUL_STOP", "0") == "1", E("STOP_SYNC", "1") == "1"
UNK = 1

n_dev = torch.cuda.device_count()
dev = torch.device("cuda", local_rank % max(n_dev, 1))
log.info("start: host %s pid %d, torch %s, %d visible GPU(s), using %s, world %d",
         socket.gethostname(), os.getpid(), torch.__version__, n_dev, dev, world)
torch.cuda.set_device(dev)
eager = E("EAGER_INIT", "1") == "1"
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(E("PG_TIMEOUT_S", "60"))),
                        device_id=dev if eager else None)
log.info("process group ready (backend %s, nccl %s)", dist.get_backend(), ".".join(map(str, torch.cuda.nccl.version())))
x = torch.full((4 * 1024 * 1024,), float(rank + 1), device=dev)
dist.all_reduce(x)
log.info("all_reduce check: %.1f (want %.1f)", x[0].item(), world * (world + 1) / 2)
del x

stop_requested = False
if GRACEFUL_STOP:
    def _on_sigterm(signum, frame):
        global stop_requested
        stop_requested = True
        log.warning("received signal %d (SIGTERM): will save and stop after the current step", signum)
    signal.signal(signal.SIGTERM, _on_sigterm)


class SyntheticTokens(Dataset):
    """Token windows of the pre-tokenised corpus (deterministic per index), with optional token-dropout augmentation."""
    def __init__(self, n, seed=0):
        self.n, self.seed = n, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + i)
        ids = torch.randint(2, cfg["vocab"], (cfg["seq"] + 1,), generator=g)
        aug = cfg["augment"]
        if aug["token_dropout"] > 0:
            ids = ids.to(aug["device"])   # augmentation runs where the data config puts it
            drop = torch.rand(ids.shape, device=ids.device) < aug["token_dropout"]
            ids = torch.where(drop, torch.full_like(ids, UNK), ids).cpu()
        return ids


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm, self.up, self.down = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, h):
        return h + self.down(F.gelu(self.up(self.norm(h))))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        d = cfg["d_model"]
        self.embed = nn.Embedding(cfg["vocab"], d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(cfg["n_layers"]))
        self.head = nn.Linear(d, cfg["vocab"], bias=False)

    def forward(self, ids):
        h = self.embed(ids)
        for b in self.blocks:
            h = b(h)
        return self.head(h)


def lm_loss(model, ids):
    logits = model(ids[:, :-1])
    return F.cross_entropy(logits.reshape(-1, cfg["vocab"]), ids[:, 1:].reshape(-1))


ds = SyntheticTokens(1 << 15)
loader = DataLoader(ds, batch_size=cfg["batch"], sampler=DistributedSampler(ds, world, rank, shuffle=True),
                    num_workers=cfg["num_workers"], pin_memory=cfg["num_workers"] > 0,
                    persistent_workers=cfg["num_workers"] > 0, drop_last=True)
torch.manual_seed(0)
model = DDP(TinyLM().to(dev), device_ids=[dev.index])
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
log.info("model ready: %.1fM parameters; data loader: %d batches/epoch, %d workers",
         sum(p.numel() for p in model.parameters()) / 1e6, len(loader), cfg["num_workers"])


def run_eval(step):
    """Validation pass on every rank over the held-out split; the loss is averaged over the ranks."""
    ev_ds = SyntheticTokens(2048, seed=1)
    ev = DataLoader(ev_ds, batch_size=cfg["batch"], sampler=DistributedSampler(ev_ds, world, rank, shuffle=False),
                    num_workers=cfg["eval_workers"], pin_memory=True)
    model.eval()
    tot = torch.zeros(2, device=dev)
    with torch.no_grad():
        for i, ids in enumerate(ev):
            if i >= cfg["eval_batches"]:
                break
            tot += torch.stack([lm_loss(model, ids.to(dev, non_blocking=True)), torch.ones((), device=dev)])
    dist.all_reduce(tot)
    log.info("eval at step %d: loss %.4f", step, (tot[0] / tot[1]).item())
    model.train()


def save_checkpoint(step):
    if rank != 0:
        return
    d = os.path.join(cfg["ckpt_dir"], f"step-{step}")
    os.makedirs(d, exist_ok=True)
    torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "step": step},
               os.path.join(d, "checkpoint.pt"))
    import yaml  # the resolved run config goes next to the weights, for the eval harness
    with open(os.path.join(d, "run_config.yaml"), "w") as f:
        yaml.safe_dump({**cfg, "step": step, "world_size": world}, f, sort_keys=False)
    log.info("saved checkpoint %s (model, optimizer, run_config.yaml)", d)


t0 = time.time()
it = iter(loader)
for step in range(cfg["steps"]):
    try:
        ids = next(it)
    except StopIteration:
        it = iter(loader)
        ids = next(it)
    loss = lm_loss(model, ids.to(dev, non_blocking=True))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % PRINT_EVERY == 0 or step == cfg["steps"] - 1:
        log.info("step %d/%d loss %.4f (%.0f ms/step)", step, cfg["steps"], loss.item(),
                 (time.time() - t0) / (step + 1) * 1000)
    if GRACEFUL_STOP:
        if STOP_SYNC:   # every rank learns that one of them was asked to stop
            flag = torch.tensor([1.0 if stop_requested else 0.0], device=dev)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            stop = flag.item() > 0
        else:
            stop = stop_requested
        if stop:
            log.warning("stopping early after step %d (preemption notice)", step)
            save_checkpoint(step + 1)
            break
    if step == cfg["eval_at"]:
        run_eval(step)
    if cfg["save_every"] and (step + 1) % cfg["save_every"] == 0:
        save_checkpoint(step + 1)
torch.cuda.synchronize()
log.info("training done in %.1fs", time.time() - t0)
dist.destroy_process_group()
