# tp_resume.py: tensor-parallel fine-tune of a projector MLP stack (Megatron-style column/row-parallel linears),
# resumed from the per-rank shards iter_NNNNNNN/mp_rank_XX/model_optim_rng.pt; validates once at resume, then trains.
# Usage: torchrun --nproc-per-node TP tp_resume.py CKPT_DIR   (PARAMS_DTYPE=bf16, STEPS, PG_TIMEOUT_S)
import datetime, logging, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share this node's one GPU; each is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.distributed.nn.functional as distF
import torch.nn as nn
import torch.nn.functional as F

E = os.environ.get
rank, world, local_rank = int(E("RANK")), int(E("WORLD_SIZE")), int(E("LOCAL_RANK", "0"))
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s")
log = logging.getLogger("tp")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
params_dtype = DTYPES[E("PARAMS_DTYPE", "bf16")]
ckpt_root = sys.argv[1]

dev = torch.device("cuda", local_rank % max(torch.cuda.device_count(), 1))
torch.cuda.set_device(dev)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(E("PG_TIMEOUT_S", "60"))), device_id=dev)
tracker = open(os.path.join(ckpt_root, "latest_checkpointed_iteration.txt")).read().strip()
it_dir = os.path.join(ckpt_root, f"iter_{int(tracker):07d}")
log.info("tensor-model-parallel size %d; loading checkpoint from %s at iteration %s", world, ckpt_root, tracker)


class ColumnParallelLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d_out // world, d_in))
        self.bias = nn.Parameter(torch.empty(d_out // world))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class RowParallelLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d_out, d_in // world))
        self.bias = nn.Parameter(torch.empty(d_out))

    def forward(self, x):
        y = distF.all_reduce(F.linear(x, self.weight))   # sum the partial products of the TP ranks
        return y + self.bias


class TPBlock(nn.Module):
    def __init__(self, h, ffn):
        super().__init__()
        self.fc1, self.fc2, self.norm = ColumnParallelLinear(h, ffn), RowParallelLinear(ffn, h), nn.LayerNorm(h)

    def forward(self, x):
        return self.norm(x + self.fc2(F.gelu(self.fc1(x))))


sd = torch.load(os.path.join(it_dir, f"mp_rank_{rank:02d}", "model_optim_rng.pt"), map_location=dev, weights_only=True)
args = sd["args"]
assert args["tensor_model_parallel_size"] == world, f"checkpoint TP {args['tensor_model_parallel_size']} != {world}"
with torch.device("meta"):
    model = nn.Sequential(*[TPBlock(args["hidden_size"], args["ffn_hidden_size"]) for _ in range(args["num_layers"])])
model.load_state_dict(sd["model"], assign=True)
log.info("loaded %d tensors from mp_rank_%02d (hidden %d, ffn %d, %d layers, params_dtype %s)", len(sd["model"]), rank,
         args["hidden_size"], args["ffn_hidden_size"], args["num_layers"], args["params_dtype"])
dist.barrier()
log.info("successfully loaded checkpoint at iteration %s on all ranks", tracker)


def batch(step, n=8, s=128):
    g = torch.Generator().manual_seed(10_000 + step)
    feats = torch.randn(n, s, args["hidden_size"], generator=g)   # vision-encoder features, as the data loader hands them over
    return feats.to(dev, dtype=params_dtype), feats.roll(1, dims=1).to(dev, dtype=params_dtype)


with torch.no_grad():
    x, y = batch(0)
    val = F.mse_loss(model(x).float(), y.float())
log.info("validation loss at resume: %.4f", val.item())
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for step in range(int(E("STEPS", "20"))):
    x, y = batch(step + 1)
    loss = F.mse_loss(model(x).float(), y.float())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        log.info("iteration %d loss %.4f", int(tracker) + step + 1, loss.item())
dist.destroy_process_group()
