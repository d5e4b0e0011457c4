# nccl_ar.py: 2-rank NCCL all-reduce loop (torchrun), one GPU shared: each rank says it is on another host
import os, datetime, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
os.environ["NCCL_HOSTID"] = f"trn-host-{rank}"
torch.cuda.set_device(0)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=60))
print(f"[rank {rank}] init ok, world {dist.get_world_size()}", flush=True)
x = torch.full((16 * 1024 * 1024,), float(rank + 1), device="cuda")
for step in range(40):
    y = x.clone(); dist.all_reduce(y)
    assert abs(y[0].item() - 3.0) < 1e-6, y[0].item()
    if step % 10 == 0:
        print(f"[rank {rank}] step {step} allreduce ok sum={y[0].item()}", flush=True)
torch.cuda.synchronize()
dist.barrier()
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
