#!/usr/bin/env python3
"""fsdp_train.py: FSDP2 (fully_shard) pre-training of a small decoder from a YAML recipe; torchrun, one rank per GPU."""
import argparse, datetime, os, socket, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share the node's one GPU; each is its own NCCL "host"
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True)
ap.add_argument("--device", default="cuda")
args = ap.parse_args()
cfg = yaml.safe_load(open(args.config))
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
host = socket.gethostname()


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{host} rank {rank}/{world}] {msg}", flush=True)


if args.device == "cuda":
    dev = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev, timeout=datetime.timedelta(seconds=60))
else:
    dev = torch.device("cpu")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
m, f, t = cfg["model"], cfg["fsdp"], cfg["train"]
log(f"recipe {os.path.basename(args.config)}: model {m}, fsdp {f}, world {world}")


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.up, self.down = nn.Linear(d, 4 * d, bias=False), nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        x = x + self.o(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, d))
        return x + self.down(F.silu(self.up(self.ln2(x))))


class Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.emb = nn.Embedding(c["vocab"], c["d_model"])
        self.layers = nn.ModuleList(Block(c["d_model"], c["n_heads"]) for _ in range(c["n_layers"]))
        self.norm = nn.LayerNorm(c["d_model"])
        self.head = nn.Linear(c["d_model"], c["vocab"], bias=False)

    def forward(self, idx):
        x = self.emb(idx)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


torch.manual_seed(0)
model = Decoder(m).to(dev)
log(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters; applying fully_shard to "
    f"{len(model.layers)} layers + root")
mp = MixedPrecisionPolicy(param_dtype=getattr(torch, f["param_dtype"]), reduce_dtype=getattr(torch, f["reduce_dtype"]))
for layer in model.layers:
    fully_shard(layer, reshard_after_forward=f["reshard_after_forward"], mp_policy=mp)
fully_shard(model, reshard_after_forward=f["reshard_after_forward"], mp_policy=mp)
opt = torch.optim.AdamW(model.parameters(), lr=float(t["lr"]))
t0 = time.time()
for step in range(1, t["steps"] + 1):
    x = torch.randint(0, m["vocab"], (t["micro_batch"], t["seq"] + 1), device=dev)
    loss = F.cross_entropy(model(x[:, :-1]).float().reshape(-1, m["vocab"]), x[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step == 1 or step % 10 == 0:
        log(f"step {step}/{t['steps']} loss {loss.item():.4f} ({time.time() - t0:.1f}s)")
log("done")
dist.destroy_process_group()
