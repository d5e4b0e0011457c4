# scatter_train.py: data-parallel training where rank 0 reads each global batch from the packed dataset and
# scatters one micro-batch to every data-parallel rank (the other ranks hold no data pipeline).
# Run config: GLOBAL_BATCH (sequences per optimizer step, all ranks together), SEQ, VOCAB, STEPS.
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
log = logging.getLogger("train")
GLOBAL_BATCH, SEQ, VOCAB, STEPS = int(E("GLOBAL_BATCH", "32")), int(E("SEQ", "256")), int(E("VOCAB", "8192")), int(E("STEPS", "40"))
D = 256

dev = torch.device("cuda", local_rank % max(torch.cuda.device_count(), 1))
torch.cuda.set_device(dev)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(E("PG_TIMEOUT_S", "60"))), device_id=dev)
log.info("process group ready: world %d, device %s; run config: global_batch=%d seq=%d", world, dev, GLOBAL_BATCH, SEQ)
micro_batch = GLOBAL_BATCH // world
log.info("data parallel size %d -> micro-batch %d sequences per rank", world, micro_batch)


class PackedCorpus:
    """Packed token stream on rank 0: each call returns the next global batch [GLOBAL_BATCH, SEQ + 1]."""
    def __init__(self, seed=0):
        self.g = torch.Generator().manual_seed(seed)

    def next_batch(self):
        return torch.randint(0, VOCAB, (GLOBAL_BATCH, SEQ + 1), generator=self.g)


model = DDP(nn.Sequential(nn.Embedding(VOCAB, D), nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D),
                          nn.Linear(D, VOCAB)).to(dev), device_ids=[dev.index])
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
corpus = PackedCorpus() if rank == 0 else None
t0 = time.time()
for step in range(STEPS):
    ids = torch.empty(micro_batch, SEQ + 1, dtype=torch.long, device=dev)
    chunks = list(corpus.next_batch().to(dev).chunk(world)) if rank == 0 else None
    dist.scatter(ids, chunks, src=0)
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        log.info("step %d/%d loss %.4f", step, STEPS, loss.item())
log.info("training done in %.1fs", time.time() - t0)
dist.destroy_process_group()
