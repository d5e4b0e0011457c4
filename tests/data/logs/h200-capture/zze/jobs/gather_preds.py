# gather_preds.py: evaluation job (gloo, CPU): each rank predicts its shard of the test set (dataset[rank::world]),
# then all ranks all_gather the predictions to compute accuracy.
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)
N = 1025                                   # test set size
idx = list(range(N))[rank::world]          # 513 samples on rank 0, 512 on rank 1
model = torch.nn.Linear(32, 10)
with torch.no_grad():
    preds = model(torch.randn(len(idx), 32)).argmax(1)
print(f"[rank {rank}] predicted {len(idx)} samples", flush=True)
out = [torch.empty_like(preds) for _ in range(world)]
dist.all_gather(out, preds)
allp = torch.cat(out)
print(f"[rank {rank}] gathered {allp.numel()} predictions", flush=True)
dist.destroy_process_group()
