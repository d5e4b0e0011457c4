# two-stage pipeline: stage 0 (rank 0) runs the first half and sends activations to stage 1 (rank 1)
import datetime, os, time
import torch
import torch.distributed as dist

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
os.environ.setdefault("NCCL_HOSTID", f"pp-host-{rank}")  # harness: each stage its own host (one GPU here)
MICRO_BS, HIDDEN = 4, 1024
SEQ_LEN = int(os.environ.get("SEQ_LEN", "1024"))
def log(m):
    print(f"{time.strftime('%H:%M:%S')} [stage {rank}] {m}", flush=True)
dev = torch.device("cuda", 0)
torch.cuda.set_device(dev)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=20), device_id=dev)
log(f"process group ready (world {world}, nccl {torch.cuda.nccl.version()})")
torch.manual_seed(rank)
layer = torch.nn.Linear(HIDDEN, HIDDEN).to(dev)
for step in range(6):
    if rank == 0:
        batch = torch.randn(MICRO_BS, SEQ_LEN, HIDDEN, device=dev)
        # sequence packing trims the padded tail before sending
        act = layer(batch)[:, : SEQ_LEN // 2].contiguous()
        dist.send(act, dst=1)
        log(f"step {step}: sent activations {tuple(act.shape)}")
    else:
        act = torch.empty(MICRO_BS, SEQ_LEN, HIDDEN, device=dev)
        dist.recv(act, src=0)
        loss = layer(act).float().pow(2).mean()
        log(f"step {step}: recv {tuple(act.shape)} loss {loss.item():.4f}")
dist.barrier()
log("done")
dist.destroy_process_group()
