# dl.py: a small training loop whose DataLoader uses 16 worker processes
import os, resource, torch
from torch.utils.data import DataLoader, Dataset
print(f"uid {os.getuid()} RLIMIT_NPROC {resource.getrlimit(resource.RLIMIT_NPROC)} cpus {os.cpu_count()}", flush=True)
class Shards(Dataset):
    def __len__(self): return 4096
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(64, 256, generator=g), torch.randint(0, 10, (64,), generator=g)
dev = torch.device("cuda")
model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 10)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(Shards(), batch_size=32, shuffle=True, num_workers=16, pin_memory=True, persistent_workers=True)
print("model on", dev, "- starting epoch 0 with 16 DataLoader workers", flush=True)
for step, (x, y) in enumerate(loader):
    x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
    loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    if step == 60:
        break
print("epoch done", flush=True)
