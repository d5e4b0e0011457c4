# train.py: multi-node DDP pretraining loop, one GPU per node, NCCL, launched by torchrun (one process per node).
# Knobs (environment): DATA=synthetic|memmap, DATA_DIR, NUM_WORKERS, BATCH, SEQ, VOCAB, D_MODEL, D_FF, N_LAYERS,
# AUX_HEADS (comma list of auxiliary heads), STEPS, PRINT_EVERY, STEP_SLEEP, PG_TIMEOUT_S, EAGER_INIT, CKPT_DIR,
# SAVE_EVERY, RESUME, TRAIN_DEVICE (cuda|cpu; cpu runs Gloo).
import datetime, logging, os, socket, sys, time
import numpy as np
import torch, torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

E = os.environ.get
rank, world = int(E("RANK")), int(E("WORLD_SIZE"))
local_rank = int(E("LOCAL_RANK", "0"))
host = socket.gethostname()
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [{host} rank{rank}] %(name)s: %(message)s")
log = logging.getLogger("train")
DEV = E("TRAIN_DEVICE", "cuda")
DATA = E("DATA", "synthetic")
STEPS, PRINT_EVERY = int(E("STEPS", "40")), int(E("PRINT_EVERY", "10"))
STEP_SLEEP = float(E("STEP_SLEEP", "0"))
D_MODEL, D_FF, N_LAYERS = int(E("D_MODEL", "512")), int(E("D_FF", "2048")), int(E("N_LAYERS", "8"))
BATCH, WORKERS = int(E("BATCH", "32")), int(E("NUM_WORKERS", "0"))
SEQ, VOCAB = int(E("SEQ", "256")), int(E("VOCAB", "32000"))
CKPT_DIR, SAVE_EVERY = E("CKPT_DIR", ""), int(E("SAVE_EVERY", "0"))
# auxiliary prediction heads (multi-task fine-tunes): name -> output size
AUX_DIMS = {"value": 1, "reward": 1, "mtp": 128, "contrastive": 256, "length": 16}
AUX_HEADS = {h for h in E("AUX_HEADS", "").split(",") if h}

log.info("start: pid %d, world %d, device %s:%d, master %s:%s, data=%s, d_model=%d d_ff=%d n_layers=%d, batch %d",
         os.getpid(), world, DEV, local_rank, E("MASTER_ADDR"), E("MASTER_PORT"), DATA, D_MODEL, D_FF, N_LAYERS, BATCH)
if DEV == "cuda":
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
else:
    device = torch.device("cpu")
eager = E("EAGER_INIT", "1") == "1" and DEV == "cuda"
dist.init_process_group("nccl" if DEV == "cuda" else "gloo",
                        timeout=datetime.timedelta(seconds=int(E("PG_TIMEOUT_S", "60"))),
                        device_id=device if eager else None)
log.info("process group up (backend %s)", dist.get_backend())
if not eager:
    dist.barrier()
x = torch.full((4 * 1024 * 1024,), float(rank + 1), device=device)
dist.all_reduce(x)
log.info("all_reduce 16 MiB check: %s (want %s)", x[0].item(), world * (world + 1) / 2)


# ---------------------------------------------------------------- data
class SyntheticFeatures(Dataset):
    """Stand-in for pre-computed features: deterministic random vectors per index."""
    def __len__(self):
        return 1 << 16

    def __getitem__(self, i):
        return torch.randn(D_MODEL, generator=torch.Generator().manual_seed(i))


class TokenShard(Dataset):
    """Pre-tokenised shard on node-local disk: int32 records of SEQ+1 tokens (np.memmap, one shard per rank)."""
    def __init__(self, path):
        self.tok = np.memmap(path, dtype=np.int32, mode="r").reshape(-1, SEQ + 1)
        log.info("token shard %s: %d records of %d tokens", path, len(self.tok), SEQ + 1)

    def __len__(self):
        return len(self.tok)

    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.tok[i], dtype=np.int64))


if DATA == "memmap":
    ds = TokenShard(os.path.join(E("DATA_DIR", "/scratch/data/tok"), f"train-{rank:05d}-of-{world:05d}.bin"))
    sampler = None
else:
    ds = SyntheticFeatures()
    sampler = DistributedSampler(ds, world, rank)
loader = DataLoader(ds, batch_size=BATCH, sampler=sampler, shuffle=False, num_workers=WORKERS,
                    persistent_workers=WORKERS > 0, drop_last=True)
log.info("data loader: %d batches/epoch, %d workers", len(loader), WORKERS)


# ---------------------------------------------------------------- model
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Embedding(VOCAB, D_MODEL) if DATA == "memmap" else torch.nn.Identity()
        blocks = []
        for _ in range(N_LAYERS):
            blocks += [torch.nn.LayerNorm(D_MODEL), torch.nn.Linear(D_MODEL, D_FF), torch.nn.GELU(),
                       torch.nn.Linear(D_FF, D_MODEL)]
        self.blocks = torch.nn.Sequential(*blocks)
        self.head = torch.nn.Linear(D_MODEL, VOCAB if DATA == "memmap" else D_MODEL)
        self.aux = torch.nn.ModuleDict({name: torch.nn.Linear(D_MODEL, AUX_DIMS[name]) for name in AUX_HEADS})

    def forward(self, xb):
        h = self.blocks(self.stem(xb))
        return self.head(h), {name: head(h) for name, head in self.aux.items()}


def loss_fn(out, aux, xb):
    if DATA == "memmap":
        loss = F.cross_entropy(out[:, :-1].reshape(-1, VOCAB), xb[:, 1:].reshape(-1))
    else:
        loss = (out - xb).pow(2).mean()
    for a in aux.values():
        loss = loss + 0.01 * a.float().pow(2).mean()
    return loss


net = Net().to(device)
log.info("model: %d blocks, head %s, aux heads %s", N_LAYERS, tuple(net.head.weight.shape), list(net.aux.keys()))
model = DDP(net, device_ids=[local_rank] if DEV == "cuda" else None)
n_params = sum(p.numel() for p in model.parameters())
log.info("model ready: %.1fM parameters", n_params / 1e6)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

start = 0
if CKPT_DIR and E("RESUME", "0") == "1" and os.path.exists(os.path.join(CKPT_DIR, "latest")):
    name = open(os.path.join(CKPT_DIR, "latest")).read().strip()
    path = os.path.join(CKPT_DIR, name)
    log.info("resuming from %s (%.1f MiB)", path, os.path.getsize(path) / 2**20)
    ck = torch.load(path, map_location=device)
    net.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    start = ck["step"]
    log.info("resumed at step %d", start)

t0 = time.time()
it = iter(loader)
for step in range(start, STEPS):
    try:
        xb = next(it)
    except StopIteration:
        it = iter(loader)
        xb = next(it)
    xb = xb.to(device, non_blocking=True)
    out, aux = model(xb)
    loss = loss_fn(out, aux, xb)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % PRINT_EVERY == 0 or step == STEPS - 1:
        log.info("step %d/%d loss %.4f (%.0f ms/step)", step, STEPS, loss.item(),
                 (time.time() - t0) / (step - start + 1) * 1000)
    if CKPT_DIR and SAVE_EVERY and (step + 1) % SAVE_EVERY == 0 and rank == 0:
        os.makedirs(CKPT_DIR, exist_ok=True)
        name = f"step-{step + 1:06d}.pt"
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "step": step + 1}, os.path.join(CKPT_DIR, name))
        with open(os.path.join(CKPT_DIR, "latest"), "w") as f:
            f.write(name + "\n")
        log.info("saved checkpoint %s", name)
    if STEP_SLEEP:
        time.sleep(STEP_SLEEP)
if DEV == "cuda":
    torch.cuda.synchronize()
log.info("training done in %.1fs", time.time() - t0)
dist.destroy_process_group()
