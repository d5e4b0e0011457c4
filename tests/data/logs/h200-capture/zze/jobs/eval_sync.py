# eval_sync.py: small DDP (gloo, CPU) training loop with a validation pass after each epoch.
# Validation batches are sharded round-robin over ranks; the loss sum is all-reduced, then rank 0's best loss is broadcast.
import datetime, os, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
val = [(torch.randn(32, 64), torch.randint(0, 8, (32,)))]          # the validation split has a single batch
my_val = val[rank::world]                                         # rank 1 gets no validation batch
best = torch.tensor([float("inf")])
for epoch in range(2):
    for step in range(10):
        x, y = torch.randn(32, 64), torch.randint(0, 8, (32,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] epoch {epoch} train loss {loss.item():.4f}", flush=True)
    model.eval()
    if my_val:
        tot = torch.zeros(2)
        with torch.no_grad():
            for x, y in my_val:
                tot += torch.tensor([torch.nn.functional.cross_entropy(model(x), y, reduction="sum").item(), len(y)])
        dist.all_reduce(tot)
        if rank == 0:
            best = torch.minimum(best, tot[:1] / tot[1])
    dist.broadcast(best, src=0)
    model.train()
    print(f"[rank {rank}] epoch {epoch} best val loss {best.item():.4f}", flush=True)
dist.destroy_process_group()
