# tp_attn.py: tensor-parallel smoke test of one decoder attention block (torch native TP: q/k/v column-parallel,
# o_proj row-parallel), as run before a TP training job. Usage: torchrun --nproc_per_node TP tp_attn.py CONFIG.json
import json, os, sys, time
import torch, torch.distributed as dist, torch.nn as nn, torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

cfg = json.load(open(sys.argv[1]))
dist.init_process_group(os.environ.get("DIST_BACKEND", "gloo"))
rank, world = dist.get_rank(), dist.get_world_size()
mesh = init_device_mesh("cpu", (world,), mesh_dim_names=("tp",))
if rank == 0:
    print(f"{time.strftime('%H:%M:%S')} TP={world} model {cfg.get('_name_or_path')}: hidden {cfg['hidden_size']}, "
          f"heads {cfg['num_attention_heads']}, kv heads {cfg['num_key_value_heads']}, head_dim {cfg['head_dim']}", flush=True)

class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, self.head_dim = c["hidden_size"], c["head_dim"]
        self.q_proj = nn.Linear(h, c["num_attention_heads"] * self.head_dim, bias=False)
        self.k_proj = nn.Linear(h, c["num_key_value_heads"] * self.head_dim, bias=False)
        self.v_proj = nn.Linear(h, c["num_key_value_heads"] * self.head_dim, bias=False)
        self.o_proj = nn.Linear(c["num_attention_heads"] * self.head_dim, h, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, -1, self.head_dim).transpose(1, 2)   # local heads on this TP rank
        k = self.k_proj(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
        v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(o.transpose(1, 2).reshape(b, t, -1))

torch.manual_seed(0)
attn = Attention(cfg)
attn = parallelize_module(attn, mesh, {"q_proj": ColwiseParallel(), "k_proj": ColwiseParallel(),
                                       "v_proj": ColwiseParallel(), "o_proj": RowwiseParallel()})
print(f"[rank {rank}] local shards: q_proj {tuple(attn.q_proj.weight.to_local().shape)} "
      f"k_proj {tuple(attn.k_proj.weight.to_local().shape)} o_proj {tuple(attn.o_proj.weight.to_local().shape)}", flush=True)
x = torch.randn(2, 64, cfg["hidden_size"])
y = attn(x)
print(f"[rank {rank}] forward ok: out {tuple(y.shape)} mean {y.float().mean().item():.5f}", flush=True)
y.float().pow(2).mean().backward()
print(f"[rank {rank}] backward ok", flush=True)
dist.destroy_process_group()
