# ddp_unused.py: DDP (gloo, CPU) classifier wrapped with find_unused_parameters=True (kept from a multi-head variant).
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
model = torch.nn.parallel.DistributedDataParallel(net, find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(30):
    x, y = torch.randn(64, 128), torch.randint(0, 10, (64,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
