# tp_mlp.py: tensor-parallel smoke test of a Phi-3-mini-shaped decoder MLP with torch's native TP API
# (fused gate_up_proj column-parallel, down_proj row-parallel), run on CPU with gloo before the GPU job.
import json, os, sys, time
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel


class Phi3MLP(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.gate_up_proj = nn.Linear(hidden_size, 2 * intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        return self.down_proj(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.post_attention_layernorm = nn.RMSNorm(cfg["hidden_size"], eps=cfg["rms_norm_eps"])
        self.mlp = Phi3MLP(cfg["hidden_size"], cfg["intermediate_size"])

    def forward(self, x):
        return x + self.mlp(self.post_attention_layernorm(x))


cfg = json.load(open(sys.argv[1]))
tp = int(os.environ["WORLD_SIZE"]); rank = int(os.environ["RANK"])
dist.init_process_group("gloo")
mesh = init_device_mesh("cpu", (tp,), mesh_dim_names=("tp",))
if rank == 0:
    print(f"{time.strftime('%H:%M:%S')} model {cfg['_name_or_path']}: hidden {cfg['hidden_size']}, intermediate "
          f"{cfg['intermediate_size']}, {cfg['num_attention_heads']} heads; TP degree {tp}", flush=True)
torch.manual_seed(0)
blocks = nn.ModuleList(Block(cfg) for _ in range(int(os.environ.get("N_LAYERS", "2"))))
for blk in blocks:
    parallelize_module(blk.mlp, mesh, {"gate_up_proj": ColwiseParallel(), "down_proj": RowwiseParallel()})
local = blocks[0].mlp.gate_up_proj.weight.to_local().shape
print(f"[tp rank {rank}] gate_up_proj local shard {tuple(local)}", flush=True)
x = torch.randn(2, 256, cfg["hidden_size"])
with torch.no_grad():
    for i, blk in enumerate(blocks):
        x = blk(x)
print(f"[tp rank {rank}] forward ok, output norm {x.norm().item():.3f}", flush=True)
dist.destroy_process_group()
