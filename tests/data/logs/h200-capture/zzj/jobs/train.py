# train.py: multi-node DDP pretraining loop, one GPU per node, NCCL, launched by torchrun (one process per node).
# Knobs (environment): DATA=synthetic|images|memmap|h5, DATA_DIR / DATA_FILE, NUM_WORKERS, BATCH, IMG, SEQ, VOCAB,
# D_MODEL, D_FF, N_LAYERS, STEPS, PRINT_EVERY, PG_TIMEOUT_S, DDP_BUCKET_CAP_MB, EAGER_INIT, EVAL_AT, EVAL_DIR,
# CKPT_DIR, SAVE_EVERY.
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
DATA = E("DATA", "synthetic")
STEPS, PRINT_EVERY = int(E("STEPS", "40")), int(E("PRINT_EVERY", "10"))
D_MODEL, D_FF, N_LAYERS = int(E("D_MODEL", "512")), int(E("D_FF", "2048")), int(E("N_LAYERS", "8"))
BATCH, WORKERS = int(E("BATCH", "32")), int(E("NUM_WORKERS", "0"))
SEQ, VOCAB, IMG = int(E("SEQ", "256")), int(E("VOCAB", "8192")), int(E("IMG", "224"))
BUCKET_MB = float(E("DDP_BUCKET_CAP_MB", "25"))
EVAL_AT, EVAL_DIR = int(E("EVAL_AT", "-1")), E("EVAL_DIR", "/scratch/eval")
CKPT_DIR, SAVE_EVERY = E("CKPT_DIR", ""), int(E("SAVE_EVERY", "0"))
EVAL_BATCHES, AUX_LOSS = int(E("EVAL_BATCHES", "4")), E("AUX_LOSS", "0") == "1"

log.info("start: world %d, device cuda:%d, master %s:%s, data=%s, d_model=%d d_ff=%d n_layers=%d, batch %d, workers %d",
         world, local_rank, E("MASTER_ADDR"), E("MASTER_PORT"), DATA, D_MODEL, D_FF, N_LAYERS, BATCH, WORKERS)
torch.cuda.set_device(local_rank)
eager = E("EAGER_INIT", "1") == "1"
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(E("PG_TIMEOUT_S", "60"))),
                        device_id=torch.device("cuda", local_rank) if eager else None)
log.info("process group up (backend %s)", dist.get_backend())
if not eager:
    dist.barrier()
x = torch.full((4 * 1024 * 1024,), float(rank + 1), device="cuda")
dist.all_reduce(x)
log.info("all_reduce 16 MiB check: %s (want %s)", x[0].item(), world * (world + 1) / 2)


# ---------------------------------------------------------------- data
class SyntheticFeatures(Dataset):
    """Stand-in for pre-computed features: deterministic random vectors per index (sized by the shard manifest)."""
    def __init__(self):
        self.n = 1 << 16
        manifest = E("DATA_MANIFEST")
        if manifest:
            for attempt in range(1, 16):
                if os.path.exists(manifest):
                    break
                log.warning("manifest %s not visible yet (attempt %d/15), retrying in 2s", manifest, attempt)
                time.sleep(2)
            else:
                raise FileNotFoundError(manifest)
            self.n = sum(int(line.split()[1]) for line in open(manifest) if line.strip())
            log.info("manifest %s: %d samples", manifest, self.n)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(D_MODEL, generator=torch.Generator().manual_seed(i))


class ImageShards(Dataset):
    """Decoded RGB crops (float32, 3 x IMG x IMG) as the augmentation pipeline hands them over."""
    def __len__(self):
        return 1 << 14

    def __getitem__(self, i):
        return torch.randn(3, IMG, IMG, generator=torch.Generator().manual_seed(i))


class TokenShard(Dataset):
    """Pre-tokenised shard on node-local disk: int32 records of SEQ+1 tokens (np.memmap, one shard per rank)."""
    def __init__(self, path):
        self.path = path
        self.tok = np.memmap(path, dtype=np.int32, mode="r").reshape(-1, SEQ + 1)
        log.info("token shard %s: %d records", path, len(self.tok))

    def __len__(self):
        return len(self.tok)

    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.tok[i, :SEQ], dtype=np.int64))


class H5Tokens(Dataset):
    """Token records in an HDF5 file (the data team's export format)."""
    def __init__(self, path):
        import h5py  # only needed for the HDF5 export format
        self.path = path
        with h5py.File(path, "r") as f:
            self.n = f["tokens"].shape[0]
            log.info("hdf5 %s: tokens %s %s (h5py %s)", path, f["tokens"].shape, f["tokens"].dtype, h5py.__version__)
        self.f = None

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import h5py
        if self.f is None:
            self.f = h5py.File(self.path, "r")
        return torch.from_numpy(self.f["tokens"][i, :SEQ].astype(np.int64))


if DATA == "images":
    ds = ImageShards()
elif DATA == "memmap":
    ds = TokenShard(os.path.join(E("DATA_DIR", "/scratch/data/tok"), f"train-{rank:05d}-of-{world:05d}.bin"))
elif DATA == "h5":
    ds = H5Tokens(E("DATA_FILE", "/scratch/data/tok-train.h5"))
else:
    ds = SyntheticFeatures()
sampler = None if DATA == "memmap" else DistributedSampler(ds, world, rank)
loader = DataLoader(ds, batch_size=BATCH, sampler=sampler, shuffle=False, num_workers=WORKERS,
                    pin_memory=WORKERS > 0, persistent_workers=WORKERS > 0, drop_last=True)
log.info("data loader: %d batches/epoch, %d workers", len(loader), WORKERS)


# ---------------------------------------------------------------- model
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        if DATA == "images":
            self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 64, 16, stride=16), torch.nn.GELU(),
                                            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, D_MODEL))
        elif DATA in ("memmap", "h5"):
            self.stem = torch.nn.Embedding(VOCAB, D_MODEL)
        else:
            self.stem = torch.nn.Identity()
        blocks = []
        for _ in range(N_LAYERS):
            blocks += [torch.nn.LayerNorm(D_MODEL), torch.nn.Linear(D_MODEL, D_FF), torch.nn.GELU(),
                       torch.nn.Linear(D_FF, D_MODEL)]
        self.blocks = torch.nn.Sequential(*blocks)
        self.head = torch.nn.Linear(D_MODEL, VOCAB if DATA in ("memmap", "h5") else D_MODEL)

    def forward(self, xb):
        h = self.stem(xb)
        return self.head(self.blocks(h))


def loss_fn(out, xb):
    if DATA in ("memmap", "h5"):
        return F.cross_entropy(out[:, :-1].reshape(-1, VOCAB), xb[:, 1:].reshape(-1))
    if DATA == "images":
        return out.pow(2).mean()
    loss = (out - xb).pow(2).mean()
    if AUX_LOSS:
        loss = loss + 0.1 * F.mse_loss(out.mean(-1), xb.mean(-1, keepdim=True))
    return loss


model = DDP(Net().cuda(), device_ids=[local_rank], bucket_cap_mb=BUCKET_MB)
n_params = sum(p.numel() for p in model.parameters())
log.info("model ready: %.1fM parameters, DDP bucket_cap_mb=%s", n_params / 1e6, BUCKET_MB)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)


def run_eval(step):
    """Per-rank eval pass; predictions go to node-local scratch for the offline scorer, the metric is averaged."""
    model.eval()
    preds, tot = [], torch.zeros(2, device="cuda")
    with torch.no_grad():
        for _ in range(EVAL_BATCHES):
            xb = torch.randn(512, D_MODEL, device="cuda")
            out = model(xb)
            tot += torch.stack([(out - xb).pow(2).sum(), torch.tensor(float(out.numel()), device="cuda")])
            preds.append(out.half().cpu().numpy())
    os.makedirs(EVAL_DIR, exist_ok=True)
    path = os.path.join(EVAL_DIR, f"preds-step{step:06d}-rank{rank:03d}.npz")
    np.savez_compressed(path, preds=np.concatenate(preds), step=step)
    log.info("eval step %d: wrote %s (%.1f MiB)", step, path, os.path.getsize(path) / 2**20)
    dist.all_reduce(tot)
    log.info("eval step %d: mse %.5f", step, (tot[0] / tot[1]).item())
    model.train()


t0 = time.time()
it = iter(loader)
for step in range(STEPS):
    try:
        xb = next(it)
    except StopIteration:
        it = iter(loader)
        xb = next(it)
    xb = xb.cuda(non_blocking=True)
    loss = loss_fn(model(xb), xb)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % PRINT_EVERY == 0 or step == STEPS - 1:
        log.info("step %d/%d loss %.4f (%.0f ms/step)", step, STEPS, loss.item(), (time.time() - t0) / (step + 1) * 1000)
    if step == EVAL_AT:
        run_eval(step)
    if CKPT_DIR and SAVE_EVERY and (step + 1) % SAVE_EVERY == 0 and rank == 0:
        os.makedirs(CKPT_DIR, exist_ok=True)
        sd = model.module.state_dict()
        torch.save({"model": sd, "step": step + 1}, os.path.join(CKPT_DIR, f"step-{step + 1}.pt"))
        log.info("saved checkpoint step-%d.pt (%.1f MiB of tensors)", step + 1,
                 sum(t.storage().nbytes() for t in sd.values()) / 2**20)
torch.cuda.synchronize()
log.info("training done in %.1fs", time.time() - t0)
dist.destroy_process_group()
