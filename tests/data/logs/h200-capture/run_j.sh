#!/usr/bin/env bash
# Capture run J (torch only, no vLLM): a seventh blind batch, made on purpose for blind collector K.
# A healthy NCCL run full of alarming INFO/warnings, a container whose /dev/nvidia* device nodes were
# not mounted, a 70B model loaded in float32 (no torch_dtype), DataParallel over 4 device ids on one
# GPU, a JIT C++ extension with no ninja, an AWQ toy whose group size does not split over TP 8,
# cross_entropy with a label >= num_classes in DDP, `ulimit -n 32` under NCCL, and node 1 of a
# 2-node torchrun whose master never came up. Each fault has its own `timeout`.
# Run from the repo root on the device with OUT set; logs go to $OUT/logs/<name>.log.
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
mkdir -p "$OUT/logs" /tmp/j
T0=$SECONDS; BUDGET=${J_BUDGET:-170}
py() {  # py NAME LIMIT_S COMMAND... : one run, its whole output kept as logs/NAME.log
  local name=$1 limit=$2; shift 2
  if [ -n "${J_ONLY:-}" ] && [[ " $J_ONLY " != *" $name "* ]]; then return; fi  # second call: only the named runs
  if (( SECONDS - T0 + limit > BUDGET )); then echo "== $name: skipped (time: $((SECONDS - T0)) s used)"; return; fi
  echo "== $name: $*"
  timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$name.log")  t=$((SECONDS - T0))s"
  tail -n 2 "$OUT/logs/$name.log" | cut -c1-200
}
echo "== facts"
nvidia-smi -L; which ninja gcc; find /dev -maxdepth 1 -name 'nvidia*' -type c | tr '\n' ' '; echo; ulimit -n

# A small DDP training script over NCCL (eager init), used by several set-ups below.
cat > /tmp/j/ddp_train.py <<'PY'
import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank, world = dist.get_rank(), dist.get_world_size()
model = DDP(torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 1)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    loss = model(torch.randn(256, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 0 or step == 9:
        print(f"rank {rank}/{world}: step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
PY

# 1. healthy but noisy: no device_id at init (barrier warning), TORCH_DISTRIBUTED_DEBUG=DETAIL, P2P and IB off, NCCL INFO
cat > /tmp/j/noisy_ok.py <<'PY'
import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
dist.barrier()
rank = dist.get_rank()
model = DDP(torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for step in range(6):
    loss = model(torch.randn(128, 512, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"rank {rank}: step {step} loss {loss.item():.4f}", flush=True)
dist.barrier()
dist.destroy_process_group()
print(f"rank {rank}: training finished", flush=True)
PY
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_NCCL_BLOCKING_WAIT=1 \
  py torchrun-nccl-debug-detail-no-device-id-ok 40 torchrun --nproc_per_node=1 /tmp/j/noisy_ok.py

# 2. a container started without the NVIDIA device nodes: /dev/nvidia* hidden by binds of /dev/null; its entrypoint runs nvidia-smi then torchrun
DEVS=$(find /dev -maxdepth 1 -name 'nvidia*' -type c | tr '\n' ' ')
NCCL_DEBUG=INFO py container-dev-nvidia-not-mounted 30 unshare -m bash -c "for f in $DEVS; do mount --bind /dev/null \$f; done; nvidia-smi; exec torchrun --nproc_per_node=2 /tmp/j/ddp_train.py"

# 3. Llama-3-70B shape loaded with the default dtype (float32, no torch_dtype): weights do not fit in 140 GiB
cat > /tmp/j/load_70b_fp32.py <<'PY'
import os, torch
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
cfg = dict(hidden_size=8192, intermediate_size=28672, num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8, vocab_size=128256)
print(f"rank {local_rank}: loading meta-llama/Meta-Llama-3-70B shape {cfg}, torch_dtype={torch.get_default_dtype()}", flush=True)
h, f, kv = cfg["hidden_size"], cfg["intermediate_size"], cfg["hidden_size"] // cfg["num_attention_heads"] * cfg["num_key_value_heads"]
state = {"model.embed_tokens.weight": torch.empty(cfg["vocab_size"], h, device="cuda")}
for i in range(cfg["num_hidden_layers"]):
    p = f"model.layers.{i}."
    for name, shape in (("self_attn.q_proj", (h, h)), ("self_attn.k_proj", (kv, h)), ("self_attn.v_proj", (kv, h)), ("self_attn.o_proj", (h, h)),
                        ("mlp.gate_proj", (f, h)), ("mlp.up_proj", (f, h)), ("mlp.down_proj", (h, f))):
        state[p + name + ".weight"] = torch.empty(*shape, device="cuda")
    if i % 10 == 9:
        print(f"Loading checkpoint shards: layer {i + 1}/{cfg['num_hidden_layers']}, allocated {torch.cuda.memory_allocated() / 2**30:.1f} GiB", flush=True)
state["lm_head.weight"] = torch.empty(cfg["vocab_size"], h, device="cuda")
print("model loaded", flush=True)
PY
py torchrun-llama70b-shape-fp32-default-dtype 40 torchrun --nproc_per_node=1 /tmp/j/load_70b_fp32.py

# 4. DataParallel told to use 4 GPUs on a 1-GPU machine
cat > /tmp/j/dp4.py <<'PY'
import torch
print(f"torch {torch.__version__}, cuda devices: {torch.cuda.device_count()}", flush=True)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 10)).cuda()
model = torch.nn.DataParallel(model, device_ids=[0, 1, 2, 3])
out = model(torch.randn(64, 1024, device="cuda"))
print("forward ok", out.shape, flush=True)
PY
py dataparallel-device-ids-4-on-1-gpu 30 python3 /tmp/j/dp4.py

# 5. a JIT C++ extension (torch.utils.cpp_extension.load_inline) in an image whose PATH has no ninja
cat > /tmp/j/jit_ext.py <<'PY'
import os, torch, torch.distributed as dist
from torch.utils.cpp_extension import load_inline
dist.init_process_group("gloo")
print(f"rank {dist.get_rank()}: building fused_rmsnorm extension ...", flush=True)
src = "torch::Tensor rmsnorm(torch::Tensor x, double eps) { return x * torch::rsqrt(x.pow(2).mean(-1, true) + eps); }"
ext = load_inline(name="fused_rmsnorm", cpp_sources=[src], functions=["rmsnorm"], verbose=True)
print(ext.rmsnorm(torch.randn(4, 8), 1e-6).shape, flush=True)
dist.destroy_process_group()
PY
mkdir -p /tmp/j/bin; ln -sf "$(readlink -f "$(which python3)")" /tmp/j/bin/python3; ln -sf "$(which torchrun)" /tmp/j/bin/torchrun
py torchrun-jit-extension-no-ninja 40 env PATH=/tmp/j/bin TORCH_EXTENSIONS_DIR=/tmp/j/torch-ext /tmp/j/bin/torchrun --nproc_per_node=2 /tmp/j/jit_ext.py

# 6. cross_entropy with a label >= num_classes (dataset has 11 classes, head has 10), DDP over NCCL
cat > /tmp/j/ce_labels.py <<'PY'
import os, torch, torch.distributed as dist, torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank = dist.get_rank()
num_classes = 10  # config says 10; the dataset's labels run 0..10
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, num_classes)).cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
g = torch.Generator().manual_seed(0)
for step in range(20):
    x = torch.randn(64, 256, device="cuda")
    y = torch.randint(0, 11, (64,), generator=g).cuda()
    loss = F.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"rank {rank}: step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
PY
NCCL_DEBUG=INFO py torchrun-nccl-cross-entropy-label-out-of-range 40 torchrun --nproc_per_node=1 /tmp/j/ce_labels.py

# 7. an AWQ toy: Qwen2-72B-Instruct-AWQ shape (intermediate 29568, group_size 128) over TP 8, gloo on CPU
cat > /tmp/j/awq_tp.py <<'PY'
import argparse, torch, torch.distributed as dist
p = argparse.ArgumentParser()
p.add_argument("--hidden-size", type=int, default=8192); p.add_argument("--intermediate-size", type=int, default=29568)
p.add_argument("--num-attention-heads", type=int, default=64); p.add_argument("--num-key-value-heads", type=int, default=8)
p.add_argument("--group-size", type=int, default=128); p.add_argument("--bits", type=int, default=4)
p.add_argument("--tensor-parallel-size", type=int, default=1)
args = p.parse_args()
dist.init_process_group("gloo")
rank, tp = dist.get_rank(), args.tensor_parallel_size
assert dist.get_world_size() == tp
pack = 32 // args.bits
if rank == 0:
    print(f"Initializing model Qwen/Qwen2-72B-Instruct-AWQ: quantization=awq (bits={args.bits}, group_size={args.group_size}), tensor_parallel_size={tp}", flush=True)

class AWQLinear:
    def __init__(self, name, input_size, output_size, tp, split):
        in_pp = input_size // tp if split == "row" else input_size
        out_pp = output_size // tp if split == "column" else output_size
        if in_pp % args.group_size != 0:
            raise ValueError(f"{name}: the input size {in_pp} is not aligned with the quantized weight shape "
                             f"(group_size {args.group_size}). This can be caused by too large tensor parallel size.")
        if out_pp % pack != 0:
            raise ValueError(f"{name}: the output size {out_pp} is not aligned with the quantized weight shape (pack factor {pack}).")
        self.qweight = torch.empty(in_pp, out_pp // pack, dtype=torch.int32, device="meta")
        self.scales = torch.empty(in_pp // args.group_size, out_pp, dtype=torch.float16, device="meta")

h, f = args.hidden_size, args.intermediate_size
kvd = h // args.num_attention_heads * args.num_key_value_heads
print(f"rank {rank}: creating layer 0 weights", flush=True)
qkv = AWQLinear("model.layers.0.self_attn.qkv_proj", h, h + 2 * kvd, tp, "column")
o = AWQLinear("model.layers.0.self_attn.o_proj", h, h, tp, "row")
gate_up = AWQLinear("model.layers.0.mlp.gate_up_proj", h, 2 * f, tp, "column")
down = AWQLinear("model.layers.0.mlp.down_proj", f, h, tp, "row")
print(f"rank {rank}: layer 0 ok", flush=True)
dist.barrier(); dist.destroy_process_group()
PY
py torchrun-awq-tp8-qwen2-72b-group-128 40 torchrun --nproc_per_node=8 /tmp/j/awq_tp.py --tensor-parallel-size 8

# 8. open-file limit of 32 for a one-rank NCCL job
NCCL_DEBUG=INFO py torchrun-nccl-ulimit-n-32 30 bash -c "ulimit -n 32; exec torchrun --nproc_per_node=1 /tmp/j/ddp_train.py"

# 9. node 1 of a 2-node torchrun; the master node (127.0.0.1:29555 here) never came up: connection refused
py torchrun-node1-master-not-up-refused 40 torchrun --nnodes=2 --node_rank=1 --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29555 --rdzv_conf timeout=20 /tmp/j/ddp_train.py
echo "== done in $((SECONDS - T0)) s"
