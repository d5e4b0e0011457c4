# sft_nan.py: toy SFT loop under torchrun, NCCL, DDP (prompt tokens masked with -100 in the labels).
import datetime, os, torch, torch.distributed as dist, torch.nn.functional as F
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
os.environ.setdefault("NCCL_HOSTID", f"sft-host-{rank}")
torch.cuda.set_device(0)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=20), device_id=torch.device("cuda", 0))
V, D, T = 4096, 512, 256
class LM(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.emb = torch.nn.Embedding(V, D); s.mlp = torch.nn.Sequential(torch.nn.Linear(D, 4 * D), torch.nn.GELU(), torch.nn.Linear(4 * D, D)); s.head = torch.nn.Linear(D, V)
    def forward(s, x): return s.head(s.mlp(s.emb(x)))
model = torch.nn.parallel.DistributedDataParallel(LM().cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
g = torch.Generator().manual_seed(rank)
for step in range(12):
    x = torch.randint(0, V, (8, T), generator=g)
    labels = x.clone()
    plen = torch.randint(32, 200, (8,), generator=g)
    if rank == 1 and step == 5:
        plen[:] = T                         # every sample's response was cut off at max_len: only prompt tokens left
    for i in range(8):
        labels[i, : plen[i]] = -100
    x, labels = x.cuda(), labels.cuda()
    tok_loss = F.cross_entropy(model(x).view(-1, V), labels.view(-1), ignore_index=-100, reduction="none")
    mask = (labels.view(-1) != -100).float()
    loss = (tok_loss * mask).sum() / mask.sum()          # mean over response tokens
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
torch.cuda.synchronize()
print(f"[rank {rank}] done", flush=True)
dist.destroy_process_group()
