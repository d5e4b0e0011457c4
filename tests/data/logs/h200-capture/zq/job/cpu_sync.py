# cpu_sync.py: CPU (gloo) data-parallel fine-tune of an embedding + classifier whose vocabulary comes from the
# node's tokenizer directory; rank 0's initial weights are broadcast to every rank before training.
import argparse, datetime, json, os, socket, time
import torch
import torch.distributed as dist
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--tokenizer", default="/workspace/tok")
ap.add_argument("--steps", type=int, default=6)
ap.add_argument("--pg-timeout", type=int, default=600)
args = ap.parse_args()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
log(f"host {socket.gethostname()}: init_process_group(gloo) via {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
log(f"process group ready: world {world}, torch {torch.__version__}")
with open(os.path.join(args.tokenizer, "vocab.txt")) as f:
    vocab = sum(1 for _ in f)
added = os.path.join(args.tokenizer, "added_tokens.json")
if os.path.exists(added):
    with open(added) as f:
        vocab += len(json.load(f))
log(f"tokenizer {args.tokenizer}: vocab size {vocab}")
torch.manual_seed(rank)
model = nn.Sequential(nn.EmbeddingBag(vocab, 64), nn.Linear(64, 4))
for p in model.parameters():                       # start every rank from rank 0's weights
    dist.broadcast(p.data, src=0)
log("initial weights synchronised from rank 0")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(args.steps):
    g = torch.Generator().manual_seed(100 * rank + step)
    x = torch.randint(0, vocab, (32, 16), generator=g); y = torch.randint(0, 4, (32,), generator=g)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad); p.grad /= world
    opt.step()
    l = loss.detach().clone(); dist.all_reduce(l)
    if rank == 0:
        log(f"step {step} loss {l.item() / world:.4f}")
log("done")
dist.destroy_process_group()
