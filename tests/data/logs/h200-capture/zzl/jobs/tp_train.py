# tp_train.py: tensor-parallel continued pre-training of a Llama-3-8B-shaped decoder (first N_LAYERS layers for the
# smoke stage), torch native TP (ColwiseParallel on wq/wk/wv/w1/w3, RowwiseParallel on wo/w2) over one TP group.
# The TP degree comes from the job config: TP_SIZE=auto means "all ranks the launcher gave us".
# Usage: torchrun --nnodes MIN:MAX --nproc_per_node 1 --rdzv-backend c10d ... tp_train.py
import datetime, os, socket, time
import torch, torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

E = os.environ.get
DEV = E("TRAIN_DEVICE", "cuda")
DIM, N_HEADS, N_KV_HEADS, FFN, VOCAB = 4096, 32, 8, 14336, 128256
N_LAYERS, SEQ, BATCH, STEPS = int(E("N_LAYERS", "2")), int(E("SEQ", "256")), int(E("BATCH", "2")), int(E("STEPS", "20"))
local_rank = int(E("LOCAL_RANK", "0"))
if DEV == "cuda":
    torch.cuda.set_device(local_rank)
dist.init_process_group("nccl" if DEV == "cuda" else "gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
tp_cfg = E("TP_SIZE", "auto")
tp = world if tp_cfg == "auto" else int(tp_cfg)
mesh = init_device_mesh(DEV, (tp,), mesh_dim_names=("tp",))
dtype = torch.bfloat16
print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{socket.gethostname()} rank {rank}/{world}] llama3-8b shape: dim {DIM}, "
      f"{N_HEADS} heads, {N_KV_HEADS} kv heads, ffn {FFN}; {N_LAYERS} layers; TP_SIZE={tp_cfg} -> tp {tp}", flush=True)


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = DIM // N_HEADS
        self.n_local_heads = N_HEADS
        self.n_local_kv_heads = N_KV_HEADS
        self.wq = torch.nn.Linear(DIM, N_HEADS * self.head_dim, bias=False)
        self.wk = torch.nn.Linear(DIM, N_KV_HEADS * self.head_dim, bias=False)
        self.wv = torch.nn.Linear(DIM, N_KV_HEADS * self.head_dim, bias=False)
        self.wo = torch.nn.Linear(N_HEADS * self.head_dim, DIM, bias=False)

    def forward(self, x):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        rep = self.n_local_heads // self.n_local_kv_heads
        xk, xv = xk.repeat_interleave(rep, dim=2), xv.repeat_interleave(rep, dim=2)
        o = F.scaled_dot_product_attention(xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2), is_causal=True)
        return self.wo(o.transpose(1, 2).reshape(bsz, seqlen, -1))


class FeedForward(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Linear(DIM, FFN, bias=False)
        self.w2 = torch.nn.Linear(FFN, DIM, bias=False)
        self.w3 = torch.nn.Linear(DIM, FFN, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_norm = torch.nn.RMSNorm(DIM)
        self.attention = Attention()
        self.ffn_norm = torch.nn.RMSNorm(DIM)
        self.feed_forward = FeedForward()

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


torch.manual_seed(0)
blocks = torch.nn.ModuleList([Block() for _ in range(N_LAYERS)]).to(device=DEV, dtype=dtype)
for blk in blocks:
    parallelize_module(blk, mesh, {
        "attention.wq": ColwiseParallel(), "attention.wk": ColwiseParallel(), "attention.wv": ColwiseParallel(),
        "attention.wo": RowwiseParallel(),
        "feed_forward.w1": ColwiseParallel(), "feed_forward.w3": ColwiseParallel(), "feed_forward.w2": RowwiseParallel(),
    })
    # local head counts, as in the reference model code: n_heads // model_parallel_size
    blk.attention.n_local_heads = N_HEADS // tp
    blk.attention.n_local_kv_heads = max(1, N_KV_HEADS // tp)
wq = blocks[0].attention.wq.weight
print(f"[rank {rank}] parallelized: wq local {tuple(wq.to_local().shape)}, {blocks[0].attention.n_local_heads} local heads, "
      f"{blocks[0].attention.n_local_kv_heads} local kv heads", flush=True)
opt = torch.optim.AdamW(blocks.parameters(), lr=1e-5)
t0 = time.time()
for step in range(STEPS):
    torch.manual_seed(step)
    x = torch.randn(BATCH, SEQ, DIM, device=DEV, dtype=dtype)
    for blk in blocks:
        x = blk(x)
    loss = x.float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step % 5 == 0 or step == STEPS - 1:
        print(f"[rank {rank}] step {step}/{STEPS} loss {loss.item():.4f} ({(time.time() - t0) / (step + 1):.2f}s/step)",
              flush=True)
dist.destroy_process_group()
