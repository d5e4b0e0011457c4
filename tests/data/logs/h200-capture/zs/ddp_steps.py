# ddp_steps.py: a 2-node data-parallel loop (one rank per node), gradient all-reduce every step
import datetime, os, time, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
torch.cuda.set_device(0)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT", "30"))),
                        device_id=torch.device("cuda:0"))
print(f"[rank {rank}] init ok, world {dist.get_world_size()}, master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
g = torch.ones(16 * 1024 * 1024, device="cuda")
for step in range(400):
    dist.all_reduce(g); torch.cuda.synchronize(); g.div_(2)
    if step % 10 == 0:
        print(f"[rank {rank}] step {step} allreduce ok", flush=True)
    time.sleep(0.1)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
