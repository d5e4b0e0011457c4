# train2n.py: multi-node DDP pretraining loop, one GPU per node, NCCL. Launched by torchrun or by the site's per-node
# launcher (env:// with RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT, as srun does).
# Knobs from the environment: MODEL_CONFIG, STEPS, PRINT_EVERY, STEP_SLEEP, PG_TIMEOUT_S.
import datetime, json, os, socket, time
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", rank))
cfg_path = os.environ.get("MODEL_CONFIG", os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "mlp-8l.json"))
cfg = json.load(open(cfg_path))
steps, every = int(os.environ.get("STEPS", "40")), int(os.environ.get("PRINT_EVERY", "10"))
pause = float(os.environ.get("STEP_SLEEP", "0"))
host = socket.gethostname()
print(f"{time.strftime('%H:%M:%S')} [{host} rank {rank}/{world}] device cuda:{local_rank}, master "
      f"{os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}, model config {cfg_path} "
      f"(n_layers={cfg['n_layers']} d_model={cfg['d_model']} d_ff={cfg['d_ff']})", flush=True)
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "60"))),
                        device_id=torch.device("cuda", local_rank))
print(f"{time.strftime('%H:%M:%S')} [{host} rank {rank}] process group up (backend {dist.get_backend()})", flush=True)
x = torch.full((4 * 1024 * 1024,), float(rank + 1), device="cuda")
dist.all_reduce(x)
print(f"[rank {rank}] all_reduce 16 MiB check: {x[0].item()} (want {world * (world + 1) / 2})", flush=True)
blocks = []
for _ in range(cfg["n_layers"]):
    blocks += [torch.nn.LayerNorm(cfg["d_model"]), torch.nn.Linear(cfg["d_model"], cfg["d_ff"]), torch.nn.GELU(),
               torch.nn.Linear(cfg["d_ff"], cfg["d_model"])]
model = DDP(torch.nn.Sequential(*blocks).cuda(), device_ids=[local_rank])
n_params = sum(p.numel() for p in model.parameters())
print(f"[rank {rank}] model ready: {n_params / 1e6:.1f}M parameters", flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
t0 = time.time()
for step in range(steps):
    xb = torch.randn(32, cfg["d_model"], device="cuda")
    loss = (model(xb) - xb).pow(2).mean()
    opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    if step % every == 0 or step == steps - 1:
        print(f"{time.strftime('%H:%M:%S')} [rank {rank}] step {step}/{steps} loss {loss.item():.4f} "
              f"({(time.time() - t0) / (step + 1) * 1000:.0f} ms/step)", flush=True)
    if pause:
        time.sleep(pause)
torch.cuda.synchronize()
print(f"[rank {rank}] training done", flush=True)
dist.destroy_process_group()
