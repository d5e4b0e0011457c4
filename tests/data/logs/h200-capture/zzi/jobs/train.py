# train.py: multi-node DDP pretraining loop, one GPU per node, NCCL, launched by torchrun (one process per node).
# Knobs from the environment: MODEL_CONFIG, STEPS, PRINT_EVERY, STEP_SLEEP, PG_TIMEOUT_S, NUM_WORKERS (DataLoader
# workers reading the token shards), LEGACY_AMP (old torch.cuda.amp API).
import datetime, json, os, socket, time
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
cfg_path = os.environ.get("MODEL_CONFIG", os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "mlp-8l.json"))
cfg = json.load(open(cfg_path))
steps, every = int(os.environ.get("STEPS", "40")), int(os.environ.get("PRINT_EVERY", "10"))
pause = float(os.environ.get("STEP_SLEEP", "0"))
workers = int(os.environ.get("NUM_WORKERS", "0"))
legacy_amp = os.environ.get("LEGACY_AMP", "0") == "1"
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


class TokenShards(Dataset):
    """Stand-in for the pre-tokenised shards: deterministic random features per index."""
    def __len__(self):
        return 1 << 16

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(cfg["d_model"], generator=g)


loader = DataLoader(TokenShards(), batch_size=32, sampler=DistributedSampler(TokenShards(), world, rank),
                    num_workers=workers, pin_memory=workers > 0, persistent_workers=workers > 0,
                    prefetch_factor=4 if workers else None)
print(f"[rank {rank}] data loader: {len(loader)} batches/epoch, {workers} workers", flush=True)
blocks = []
for _ in range(cfg["n_layers"]):
    blocks += [torch.nn.LayerNorm(cfg["d_model"]), torch.nn.Linear(cfg["d_model"], cfg["d_ff"]), torch.nn.GELU(),
               torch.nn.Linear(cfg["d_ff"], cfg["d_model"])]
model = DDP(torch.nn.Sequential(*blocks).cuda(), device_ids=[local_rank])
n_params = sum(p.numel() for p in model.parameters())
print(f"[rank {rank}] model ready: {n_params / 1e6:.1f}M parameters", flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
if legacy_amp:
    scaler = torch.cuda.amp.GradScaler()
t0 = time.time()
it = iter(loader)
for step in range(steps):
    xb = next(it).cuda(non_blocking=True)
    if legacy_amp:
        with torch.cuda.amp.autocast(dtype=torch.float16):
            loss = (model(xb).float() - xb).pow(2).mean()
        opt.zero_grad(set_to_none=True); scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
    else:
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
