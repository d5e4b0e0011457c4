# dedup_train.py: rank 0 builds the near-duplicate filter for the shard (MinHash signatures over token shingles),
# broadcasts the keep-list to the other ranks over the CPU (gloo) group, then all ranks train with DDP on NCCL.
# Knobs: DEDUP_CHUNKS (x 256 documents), DOC_LEN, N_HASH, STEPS, PG_TIMEOUT_S.
import datetime, logging, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share this node's one GPU; each is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

E = os.environ.get
rank, world, local_rank = int(E("RANK")), int(E("WORLD_SIZE")), int(E("LOCAL_RANK", "0"))
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s")
log = logging.getLogger("dedup")
CHUNKS, DOC_LEN, N_HASH, CHUNK = int(E("DEDUP_CHUNKS", "4000")), int(E("DOC_LEN", "256")), int(E("N_HASH", "128")), 256
VOCAB, D = 8192, 256

dev = torch.device("cuda", local_rank % max(torch.cuda.device_count(), 1))
torch.cuda.set_device(dev)
dist.init_process_group("cpu:gloo,cuda:nccl", timeout=datetime.timedelta(seconds=int(E("PG_TIMEOUT_S", "60"))))
log.info("process group ready: world %d, device %s, intra-op threads %d", world, dev, torch.get_num_threads())


def minhash_keep_list():
    """MinHash (N_HASH permutations) of every document's token shingles; keep the first of each signature bucket."""
    P = (1 << 31) - 1
    g = torch.Generator().manual_seed(1234)
    a = torch.randint(1, P, (N_HASH,), generator=g, dtype=torch.int64)
    b = torch.randint(0, P, (N_HASH,), generator=g, dtype=torch.int64)
    seen, keep, t0 = set(), [], time.time()
    for c in range(CHUNKS):
        docs = torch.randint(0, VOCAB, (CHUNK, DOC_LEN), generator=g, dtype=torch.int64)
        shingles = docs[:, :-2] * VOCAB * VOCAB + docs[:, 1:-1] * VOCAB + docs[:, 2:]
        sig = ((shingles.unsqueeze(-1) * a + b) % P).amin(dim=1)          # [CHUNK, N_HASH]
        band = sig[:, :8].sum(dim=1).tolist()
        for j, key in enumerate(band):
            if key not in seen:
                seen.add(key)
                keep.append(c * CHUNK + j)
        if c % 100 == 0:
            log.info("dedup: %d/%d chunks, %d kept, %.0fs", c, CHUNKS, len(keep), time.time() - t0)
    return keep


obj = [None]
if rank == 0:
    log.info("building the near-duplicate filter for %d documents (%d hashes)", CHUNKS * CHUNK, N_HASH)
    obj[0] = minhash_keep_list()
    log.info("dedup done: keeping %d documents", len(obj[0]))
dist.broadcast_object_list(obj, src=0, device=torch.device("cpu"))
keep = obj[0]
log.info("received keep-list: %d documents", len(keep))

model = DDP(nn.Sequential(nn.Embedding(VOCAB, D), nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, VOCAB)).to(dev),
            device_ids=[dev.index])
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(int(E("STEPS", "30"))):
    ids = torch.randint(0, VOCAB, (16, 129), device=dev)
    loss = F.cross_entropy(model(ids[:, :-1]).reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        log.info("step %d loss %.4f", step, loss.item())
dist.destroy_process_group()
