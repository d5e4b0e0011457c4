# train_data.py: DDP training that reads its token shards through the dataset manifest written by the data-sync step.
import datetime, json, os, time
import torch, torch.distributed as dist
data_dir = os.environ.get("DATA_DIR", "/data/tokens")
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=120))
print(f"[rank {rank}] restart count {os.environ.get('TORCHELASTIC_RESTART_COUNT')}; reading {data_dir}/manifest.json", flush=True)
with open(os.path.join(data_dir, "manifest.json")) as f:
    manifest = json.load(f)
shards = manifest["shards"][rank::world]
print(f"[rank {rank}] {len(shards)} shards, {manifest['num_tokens']} tokens", flush=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Embedding(4096, 256), torch.nn.Linear(256, 4096)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(40):
    x = torch.randint(0, 4096, (8, 256), device="cuda")
    loss = torch.nn.functional.cross_entropy(model(x)[:, :-1].reshape(-1, 4096), x[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
