# dl_train.py: DDP training with a DataLoader (8 workers, pin_memory), NCCL, one GPU.
import datetime, os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
class DS(Dataset):
    def __len__(self): return 4096
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(512, generator=g), torch.randint(0, 16, (), generator=g)
rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=120))
print(f"[rank {rank}] cpus usable: {sorted(os.sched_getaffinity(0))}", flush=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 16)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
dl = DataLoader(DS(), batch_size=128, num_workers=8, pin_memory=True, shuffle=True)
for epoch in range(2):
    for step, (x, y) in enumerate(dl):
        loss = torch.nn.functional.cross_entropy(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] epoch {epoch} steps {step + 1} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
