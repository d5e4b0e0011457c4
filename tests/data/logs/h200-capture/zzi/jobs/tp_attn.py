# tp_attn.py: tensor-parallel smoke test of a decoder block (torch native TP: parallelize_module with ColwiseParallel
# on the fused query_key_value projection and RowwiseParallel on dense), before launching the TP fine-tune.
# Usage: torchrun --nnodes N --nproc_per_node 1 tp_attn.py CONFIG.json   (Gloo on CPU, the pre-flight pool)
import datetime, json, os, socket, sys, time
import torch, torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

cfg = json.load(open(sys.argv[1]))
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, tp = dist.get_rank(), dist.get_world_size()
mesh = init_device_mesh("cpu", (tp,), mesh_dim_names=("tp",))
hidden, n_heads = cfg["hidden_size"], cfg["num_attention_heads"]
head_dim = hidden // n_heads
n_kv = 1 if cfg.get("multi_query") else cfg.get("num_kv_heads", n_heads)
print(f"{time.strftime('%H:%M:%S')} [{socket.gethostname()} rank {rank}] {cfg['architectures'][0]} hidden {hidden}, "
      f"{n_heads} heads (head_dim {head_dim}), kv heads {n_kv}, TP {tp}", flush=True)


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.query_key_value = torch.nn.Linear(hidden, (n_heads + 2 * n_kv) * head_dim, bias=cfg["bias"])
        self.dense = torch.nn.Linear(n_heads * head_dim, hidden, bias=cfg["bias"])
        self.n_local = n_heads
        self.kv_local = n_kv

    def forward(self, x):
        b, s, _ = x.shape
        qkv = self.query_key_value(x).view(b, s, self.n_local + 2 * self.kv_local, head_dim)
        q, k, v = qkv.split([self.n_local, self.kv_local, self.kv_local], dim=2)
        k = k.expand(-1, -1, self.n_local, -1); v = v.expand(-1, -1, self.n_local, -1)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.dense(o.transpose(1, 2).reshape(b, s, self.n_local * head_dim))


torch.manual_seed(0)
layers = torch.nn.ModuleList([Attention() for _ in range(2)])
for i, layer in enumerate(layers):
    parallelize_module(layer, mesh, {"query_key_value": ColwiseParallel(), "dense": RowwiseParallel()})
    layer.n_local = n_heads // tp
    layer.kv_local = n_kv if n_kv < tp else n_kv // tp
    print(f"[rank {rank}] layer {i}: query_key_value local weight {tuple(layer.query_key_value.weight.to_local().shape)}, "
          f"{layer.n_local} heads per rank", flush=True)
x = torch.randn(2, 128, hidden)
dist.broadcast(x, 0)
for layer in layers:
    x = x + layer(x)
print(f"[rank {rank}] TP forward ok: out {tuple(x.shape)} norm {x.norm():.3f}", flush=True)
dist.destroy_process_group()
