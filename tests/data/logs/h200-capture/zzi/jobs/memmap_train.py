# memmap_train.py: data-parallel training on the CPU pool (Gloo) over a memory-mapped token file with a small
# fraction of malformed records; the loader skips those with a warning.
import datetime, logging, os, socket, time, warnings
import numpy as np
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
log = logging.getLogger(f"train.rank{rank}")
path = os.environ["DATA_FILE"]
SEQ = 129


class Records(Dataset):
    def __init__(self):
        self.arr = np.memmap(path, dtype=np.int32, mode="r").reshape(-1, SEQ)

    def __len__(self):
        return self.arr.shape[0]

    def __getitem__(self, i):
        rec = self.arr[i]
        if rec[0] < 0:
            logging.getLogger("data").warning("record %d malformed (length field %d), replaced by record %d", i, rec[0], (i + 1) % len(self))
            rec = self.arr[(i + 1) % len(self)]
        t = torch.from_numpy(rec[1:])
        return t[:-1].long(), t[1:].long()


ds = Records()
loader = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds, world, rank, shuffle=True, seed=0), num_workers=2)
log.info("%d records, %d batches per rank", len(ds), len(loader))
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Embedding(4096, 128), torch.nn.Linear(128, 4096)))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        log.info("step %d/%d loss %.4f", step, len(loader), loss.item())
dist.barrier()
log.info("epoch done")
dist.destroy_process_group()
