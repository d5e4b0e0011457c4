# tp_resume.py: Megatron-style tensor-parallel fine-tune (column-/row-parallel linears) that resumes from the per-rank
# model shards (iter_XXXXXXX/mp_rank_XX/model_optim_rng.pt) of the pre-training run. Gloo on CPU (pre-flight pool).
# Usage: torchrun --nnodes N --nproc_per_node 1 tp_resume.py CKPT_ROOT
import datetime, json, os, socket, sys, time
import torch, torch.distributed as dist

ckpt_root = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, tp = dist.get_rank(), dist.get_world_size()
host = socket.gethostname()
cfg = json.load(open(os.path.join(ckpt_root, "config.json")))
H, NH, FFN, NL = cfg["hidden_size"], cfg["num_attention_heads"], cfg["intermediate_size"], cfg["num_hidden_layers"]
print(f"{time.strftime('%H:%M:%S')} [{host} rank {rank}] fine-tune: tensor-model-parallel size {tp}, hidden {H}, "
      f"{NH} heads, ffn {FFN}, {NL} layers", flush=True)


class ColumnParallelLinear(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(n_out // tp, n_in, dtype=torch.bfloat16))

    def forward(self, x):
        return x @ self.weight.t()


class RowParallelLinear(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(n_out, n_in // tp, dtype=torch.bfloat16))

    def forward(self, x):
        y = x @ self.weight.t()
        dist.all_reduce(y)
        return y


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = ColumnParallelLinear(H, 3 * H)
        self.proj = RowParallelLinear(H, H)
        self.fc1 = ColumnParallelLinear(H, FFN)
        self.fc2 = RowParallelLinear(FFN, H)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, NH // tp, H // NH).unbind(2)
        o = torch.nn.functional.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                             is_causal=True)
        x = x + self.proj(o.transpose(1, 2).reshape(b, s, -1))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


model = torch.nn.ModuleList([Block() for _ in range(NL)])
it = int(open(os.path.join(ckpt_root, "latest_checkpointed_iteration.txt")).read().strip())
path = os.path.join(ckpt_root, f"iter_{it:07d}", f"mp_rank_{rank:02d}", "model_optim_rng.pt")
print(f"[rank {rank}] loading checkpoint from {ckpt_root} at iteration {it}: {path}", flush=True)
state = torch.load(path, map_location="cpu", weights_only=True)
model.load_state_dict(state["model"])
print(f"[rank {rank}] successfully loaded checkpoint at iteration {it}", flush=True)
x = torch.randn(2, 64, H, dtype=torch.bfloat16)
dist.broadcast(x, 0)
for blk in model:
    x = blk(x)
print(f"[rank {rank}] TP forward ok: out {tuple(x.shape)} norm {x.float().norm():.3f}", flush=True)
dist.destroy_process_group()
