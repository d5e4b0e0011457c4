# compile_train.py: data-parallel distillation step on the CPU pool (Gloo), model compiled with torch.compile.
import datetime, os, socket, time
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "60"))))
rank, world = dist.get_rank(), dist.get_world_size()
torch.set_num_threads(2)
print(f"{time.strftime('%H:%M:%S')} [{socket.gethostname()} rank {rank}/{world}] compiling student model "
      f"(torch {torch.__version__}, CXX={os.environ.get('CXX', '<unset>')})", flush=True)
torch.manual_seed(0)
student = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256))
model = DDP(torch.compile(student))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(int(os.environ.get("STEPS", "20"))):
    xb = torch.randn(64, 256)
    loss = (model(xb) - xb.tanh()).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"{time.strftime('%H:%M:%S')} [rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
print(f"[rank {rank}] distillation done", flush=True)
dist.destroy_process_group()
