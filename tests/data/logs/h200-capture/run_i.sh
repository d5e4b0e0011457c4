#!/usr/bin/env bash
# Capture run I (torch only, no vLLM): a sixth blind batch, made on purpose for blind collector J.
# A healthy DDP run over NCCL with NCCL_SOCKET_IFNAME=lo and SHM/P2P turned down, NCCL_ALGO and
# NCCL_PROTO typos, CUDA_VISIBLE_DEVICES holding a MIG UUID, a Megatron-style toy whose vocab,
# layers (over PP) and experts (over EP) do not split, a container whose libcuda is hidden, a
# DataLoader worker killed by a memory cgroup, a checkpoint whose storages sit on cuda:1, a
# malformed PYTORCH_CUDA_ALLOC_CONF, torch.compile with no C compiler on PATH, and NCCL started
# on a GPU that the same process already filled. Each fault has its own `timeout`.
# Run from the repo root on the device with OUT set; logs go to $OUT/logs/<name>.log.
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
mkdir -p "$OUT/logs"
T0=$SECONDS; BUDGET=${I_BUDGET:-210}
py() {  # py NAME LIMIT_S COMMAND... : one run, its whole output kept as logs/NAME.log
  local name=$1 limit=$2; shift 2
  if [ -n "${I_ONLY:-}" ] && [[ " $I_ONLY " != *" $name "* ]]; then return; fi  # second call: only the named runs
  if (( SECONDS - T0 + limit > BUDGET )); then echo "== $name: skipped (time: $((SECONDS - T0)) s used)"; return; fi
  echo "== $name: $*"
  timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$name.log")  t=$((SECONDS - T0))s"
  tail -n 2 "$OUT/logs/$name.log" | cut -c1-200
}
echo "== facts"
nvidia-smi -L; ls /sys/class/net; ldconfig -p | grep -E 'libcuda\.so' ; which gcc cc clang
python3 -c "import torch,triton;print('torch',torch.__version__,'nccl',torch.cuda.nccl.version(),'triton',triton.__version__,'gpus',torch.cuda.device_count())"
mkdir -p /tmp/i

# A small DDP training script over NCCL, used by several set-ups below.
cat > /tmp/i/ddp_train.py <<'PY'
import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 1)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(256, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 0 or step == 19:
        print(f"rank {rank}/{world}: step {step} loss {loss.item():.4f}", flush=True)
t = torch.ones(1 << 20, device="cuda"); dist.all_reduce(t)
print(f"rank {rank}: done, all_reduce {t[0].item()}", flush=True)
dist.destroy_process_group()
PY

# 1. healthy: NCCL over loopback only, SHM transport off, P2P limited to the same GPU, NCCL_DEBUG=INFO
NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=lo NCCL_SHM_DISABLE=1 NCCL_P2P_LEVEL=LOC \
  py torchrun-nccl-ifname-lo-shm-disabled-ok 60 torchrun --nproc_per_node=1 /tmp/i/ddp_train.py

# 2-3. NCCL_ALGO / NCCL_PROTO typos
NCCL_DEBUG=INFO NCCL_ALGO=Rnig py torchrun-nccl-algo-typo-rnig 60 torchrun --nproc_per_node=1 /tmp/i/ddp_train.py
NCCL_DEBUG=INFO NCCL_PROTO=LL129 py torchrun-nccl-proto-typo-ll129 60 torchrun --nproc_per_node=1 /tmp/i/ddp_train.py

# 4. CUDA_VISIBLE_DEVICES copied from a MIG node's job spec; this GPU has MIG disabled
CUDA_VISIBLE_DEVICES=MIG-5c89852c-d268-5e5f-a3c1-7d8e2a0b9f41 NCCL_DEBUG=INFO \
  py torchrun-nccl-cuda-visible-devices-mig-uuid 60 torchrun --nproc_per_node=2 /tmp/i/ddp_train.py

# 5-7. a Megatron-style toy: vocab over TP 2, 30 layers over PP 4, 8 experts over EP 3
cat > /tmp/i/mg_toy.py <<'PY'
# A Megatron-style toy: the model is split over tensor (TP), pipeline (PP) and expert (EP) parallel ranks.
import argparse, datetime, torch, torch.distributed as dist

def ensure_divisibility(numerator, denominator):
    """Ensure that numerator is divisible by the denominator."""
    assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)

def divide(numerator, denominator):
    ensure_divisibility(numerator, denominator)
    return numerator // denominator

class VocabParallelEmbedding(torch.nn.Module):
    def __init__(self, num_embeddings, embedding_dim, tp_size, tp_rank):
        super().__init__()
        per_partition = divide(num_embeddings, tp_size)
        self.vocab_start_index = tp_rank * per_partition
        self.vocab_end_index = self.vocab_start_index + per_partition
        self.weight = torch.nn.Parameter(torch.empty(per_partition, embedding_dim))

class ParallelMLP(torch.nn.Module):
    def __init__(self, hidden, ffn, tp_size):
        super().__init__()
        self.fc1 = torch.nn.Linear(hidden, divide(ffn, tp_size), bias=False)
        self.fc2 = torch.nn.Linear(divide(ffn, tp_size), hidden, bias=False)

class MoELayer(torch.nn.Module):
    def __init__(self, hidden, ffn, num_experts, ep_size, tp_size):
        super().__init__()
        assert num_experts % ep_size == 0, \
            f"num_experts ({num_experts}) must be divisible by expert_model_parallel_size ({ep_size})"
        self.router = torch.nn.Linear(hidden, num_experts, bias=False)
        self.local_experts = torch.nn.ModuleList([ParallelMLP(hidden, ffn, tp_size) for _ in range(num_experts // ep_size)])

class ParallelTransformerLayer(torch.nn.Module):
    def __init__(self, args, tp):
        super().__init__()
        self.head_dim = divide(args.hidden_size, args.num_attention_heads)
        heads = divide(args.num_attention_heads, tp)
        groups = divide(args.num_query_groups, tp)
        self.linear_qkv = torch.nn.Linear(args.hidden_size, (heads + 2 * groups) * self.head_dim, bias=False)
        self.linear_proj = torch.nn.Linear(heads * self.head_dim, args.hidden_size, bias=False)
        if args.num_experts:
            self.mlp = MoELayer(args.hidden_size, args.ffn_hidden_size, args.num_experts, args.expert_model_parallel_size, tp)
        else:
            self.mlp = ParallelMLP(args.hidden_size, args.ffn_hidden_size, tp)

p = argparse.ArgumentParser()
p.add_argument("--num-layers", type=int, default=24)
p.add_argument("--hidden-size", type=int, default=1024)
p.add_argument("--num-attention-heads", type=int, default=16)
p.add_argument("--num-query-groups", type=int, default=16)
p.add_argument("--ffn-hidden-size", type=int, default=4096)
p.add_argument("--vocab-size", type=int, default=32000)
p.add_argument("--num-experts", type=int, default=0)
p.add_argument("--tensor-model-parallel-size", type=int, default=1)
p.add_argument("--pipeline-model-parallel-size", type=int, default=1)
p.add_argument("--expert-model-parallel-size", type=int, default=1)
args = p.parse_args()

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
tp, pp, ep = args.tensor_model_parallel_size, args.pipeline_model_parallel_size, args.expert_model_parallel_size
assert world % (tp * pp) == 0, f"world size {world} is not divisible by tp ({tp}) x pp ({pp})"
dp = world // (tp * pp)
if rank == 0:
    print("------------------------ arguments ------------------------", flush=True)
    for k, v in sorted(vars(args).items()):
        print(f"  {k} {'.' * (40 - len(k))} {v}", flush=True)
    print(f"  world_size {'.' * 30} {world}", flush=True)
    print(f"  data_parallel_size {'.' * 22} {dp}", flush=True)
    print("-------------------- end of arguments ---------------------", flush=True)
tp_rank, pp_rank = rank % tp, (rank // tp) % pp
print(f"> initializing model parallel: rank {rank} -> tp_rank {tp_rank}, pp_rank {pp_rank}, ep_size {ep}", flush=True)
print(f"rank {rank}: building model ...", flush=True)
modules = []
if pp_rank == 0:
    modules.append(VocabParallelEmbedding(args.vocab_size, args.hidden_size, tp, tp_rank))
assert args.num_layers % pp == 0, \
    f"num_layers ({args.num_layers}) must be divisible by pipeline_model_parallel_size ({pp})"
layers_per_stage = args.num_layers // pp
modules += [ParallelTransformerLayer(args, tp) for _ in range(layers_per_stage)]
model = torch.nn.ModuleList(modules)
n = sum(p.numel() for p in model.parameters())
print(f" > number of parameters on (tensor, pipeline) model parallel rank ({tp_rank}, {pp_rank}): {n}", flush=True)
dist.barrier()
dist.destroy_process_group()
PY
# GPT-2 tokenizer vocab (50257, unpadded) over TP 2; 12 heads, ffn 3072 divide fine
py torchrun-tp2-gpt2-vocab-50257 60 torchrun --nproc_per_node=2 /tmp/i/mg_toy.py --num-layers 12 --hidden-size 768 --num-attention-heads 12 --num-query-groups 12 --ffn-hidden-size 3072 --vocab-size 50257 --tensor-model-parallel-size 2
# 30 layers over 4 pipeline stages
py torchrun-pp4-30-layers 60 torchrun --nproc_per_node=4 /tmp/i/mg_toy.py --num-layers 30 --hidden-size 1024 --num-attention-heads 16 --num-query-groups 16 --ffn-hidden-size 4096 --vocab-size 32000 --pipeline-model-parallel-size 4
# Mixtral-like shape (8 experts) over EP 3 ranks
py torchrun-ep3-8-experts 60 torchrun --nproc_per_node=3 /tmp/i/mg_toy.py --num-layers 4 --hidden-size 1024 --num-attention-heads 16 --num-query-groups 8 --ffn-hidden-size 3584 --vocab-size 32000 --num-experts 8 --expert-model-parallel-size 3

# 8. a container where the NVIDIA user-space driver (libcuda) was not mounted: hidden by a bind of /dev/null
LIBS=$( (ldconfig -p | awk '/libcuda\.so/ {print $NF}'; for d in ${LD_LIBRARY_PATH//:/ } /usr/local/nvidia/lib64 /usr/local/cuda/compat /usr/lib/x86_64-linux-gnu; do ls "$d"/libcuda.so* 2>/dev/null; done) | xargs -r -n1 readlink -f | sort -u | tr '\n' ' ')
echo "   libcuda files hidden: $LIBS"
NCCL_DEBUG=INFO py torchrun-nccl-libcuda-not-mounted 60 unshare -m bash -c "for f in $LIBS; do mount --bind /dev/null \$f; done; exec torchrun --nproc_per_node=2 /tmp/i/ddp_train.py"

# 9. DataLoader workers in a 3 GiB memory cgroup; one sample decodes into 4 GiB of host memory
cat > /tmp/i/dl_oom.py <<'PY'
import torch
from torch.utils.data import DataLoader, Dataset

class Scans(Dataset):
    def __len__(self): return 64
    def __getitem__(self, i):
        if i == 37:  # one oversized volume: 4 GiB once decoded
            vol = torch.ones(4 << 30, dtype=torch.uint8)
            return vol[:4096].float().reshape(64, 64), torch.tensor(1.0)
        return torch.randn(64, 64), torch.tensor(0.0)

if __name__ == "__main__":
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4096, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Scans(), batch_size=4, num_workers=2)
    for epoch in range(2):
        for step, (x, y) in enumerate(loader):
            loss = (model(x.cuda()).squeeze(1) - y.cuda()).pow(2).mean()
            loss.backward(); opt.step(); opt.zero_grad()
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
PY
CG=/sys/fs/cgroup/i_oom
if mkdir -p "$CG" 2>/dev/null && [ -e "$CG/memory.max" ] && echo 3G > "$CG/memory.max" 2>/dev/null; then
  echo 0 > "$CG/memory.swap.max" 2>/dev/null
  py dataloader-worker-cgroup-oom-3g 60 bash -c "echo \$\$ > $CG/cgroup.procs && exec python3 /tmp/i/dl_oom.py"
  cat "$CG/memory.events" 2>/dev/null
else
  echo "== dataloader-worker-cgroup-oom-3g: skipped (no writable memory cgroup)"
fi

# 10. resume from a checkpoint written on cuda:1 of a 2-GPU node (storages tagged cuda:1), on this 1-GPU node
cat > /tmp/i/make_ckpt.py <<'PY'
import torch
m = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.Linear(1024, 10)).cuda()
sd = {"model": m.state_dict(), "step": 1200}
torch.save(sd, "/tmp/i/ckpt.tmp", _use_new_zipfile_serialization=False)
b = open("/tmp/i/ckpt.tmp", "rb").read()
open("/tmp/i/ckpt_step1200.pt", "wb").write(b.replace(b"cuda:0", b"cuda:1"))  # as rank 1 of a 2-GPU node writes it
PY
cat > /tmp/i/resume.py <<'PY'
import os, torch, torch.distributed as dist
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.Linear(1024, 10)).cuda()
path = "/tmp/i/ckpt_step1200.pt"
print(f"rank {dist.get_rank()}: resuming from {path}", flush=True)
ckpt = torch.load(path)
model.load_state_dict(ckpt["model"])
print(f"rank {dist.get_rank()}: resumed at step {ckpt['step']}", flush=True)
dist.destroy_process_group()
PY
[ -n "${I_ONLY:-}" ] || timeout 60 python3 /tmp/i/make_ckpt.py && NCCL_DEBUG=INFO py torchrun-load-checkpoint-saved-on-cuda1 60 torchrun --nproc_per_node=1 /tmp/i/resume.py

# 11. a malformed PYTORCH_CUDA_ALLOC_CONF ('=' for ':', and an out-of-range threshold)
PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb=512 py torchrun-alloc-conf-equals-sign 60 torchrun --nproc_per_node=1 /tmp/i/ddp_train.py
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,garbage_collection_threshold:1.5 py torchrun-alloc-conf-gc-threshold-1.5 60 torchrun --nproc_per_node=1 /tmp/i/ddp_train.py

# 12. torch.compile in an image with no C compiler on PATH (fresh Triton/Inductor caches)
cat > /tmp/i/compiled.py <<'PY'
import os, torch, torch.distributed as dist
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda()
cmodel = torch.compile(model)
print(f"rank {dist.get_rank()}: compiling ...", flush=True)
y = cmodel(torch.randn(64, 1024, device="cuda"))
print(f"rank {dist.get_rank()}: compiled forward ok {y.shape}", flush=True)
dist.destroy_process_group()
PY
mkdir -p /tmp/i/bin; ln -sf "$(readlink -f "$(which python3)")" /tmp/i/bin/python3; ln -sf "$(which torchrun)" /tmp/i/bin/torchrun
PATH=/tmp/i/bin TRITON_CACHE_DIR=/tmp/i/triton-cache TORCHINDUCTOR_CACHE_DIR=/tmp/i/inductor-cache \
  py torchrun-compile-no-c-compiler 90 /tmp/i/bin/torchrun --nproc_per_node=1 /tmp/i/compiled.py

# 13. the process fills the GPU with a cached dataset, then starts NCCL (eager init), NCCL_DEBUG=INFO
cat > /tmp/i/fill_then_nccl.py <<'PY'
import os, torch, torch.distributed as dist
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
cache = []  # keep the whole training set resident on the GPU
for chunk in (1 << 30, 64 << 20, 2 << 20):
    while True:
        try:
            cache.append(torch.empty(chunk, dtype=torch.uint8, device="cuda"))
        except torch.OutOfMemoryError:
            break
free, total = torch.cuda.mem_get_info()
print(f"rank {local_rank}: dataset cache on GPU: {sum(t.numel() for t in cache) / 2**30:.2f} GiB, free {free / 2**20:.1f} MiB of {total / 2**30:.1f} GiB", flush=True)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
t = cache[-1][:16]
dist.all_reduce(t)
print(f"rank {dist.get_rank()}: all_reduce ok", flush=True)
dist.destroy_process_group()
PY
NCCL_DEBUG=INFO py torchrun-nccl-init-gpu-filled-by-cache 60 torchrun --nproc_per_node=1 /tmp/i/fill_then_nccl.py
echo "== done in $((SECONDS - T0)) s"
