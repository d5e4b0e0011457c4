#!/usr/bin/env bash
# Capture run G (torch only, no vLLM): a fourth blind batch, made on purpose for blind collector H.
# Multi-rank where it can be: a rank that runs out of GPU memory while the other waits, a
# corrupt libnccl.so.2, a Triton kernel storing out of bounds, DataLoader under `ulimit -n 128`,
# an unresolvable MASTER_ADDR, another process holding the GPU, a missing Python package, a
# healthy NCCL_DEBUG=INFO run, graph capture after a cache took the memory, an extension built
# for sm_80 only, a rank killed by a memory cgroup. Each fault has its own `timeout`.
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
mkdir -p "$OUT/logs"
T0=$SECONDS; BUDGET=${G_BUDGET:-400}
py() {  # py NAME LIMIT_S COMMAND... : one run, its whole output kept as logs/NAME.log
  local name=$1 limit=$2; shift 2
  if (( SECONDS - T0 + limit > BUDGET )); then echo "== $name: skipped (time: $((SECONDS - T0)) s used)"; return; fi
  echo "== $name: $*"
  timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$name.log")  t=$((SECONDS - T0))s"
  tail -n 2 "$OUT/logs/$name.log" | cut -c1-200
}
echo "== facts"
nvidia-smi -L; python3 -c "import torch,triton;print('torch',torch.__version__,'nccl',torch.cuda.nccl.version(),'triton',triton.__version__)"
python3 -c "import importlib.util as u;print('flash_attn spec:',u.find_spec('flash_attn'))"
TORCH_LIB=$(python3 -c "import torch,os;print(os.path.dirname(torch.__file__))")/lib
NCCL_LIB=$(python3 -c "import nvidia.nccl,os;print(nvidia.nccl.__path__[0])")/lib
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"; ls -l "$NCCL_LIB"
readelf -d "$TORCH_LIB/libtorch_cuda.so" | grep -E 'NEEDED.*nccl|RPATH|RUNPATH' | cut -c1-300

# 1. healthy but noisy: one rank, NCCL_DEBUG=INFO, IB disabled, no destroy_process_group
cat > /tmp/g_nccl_ok.py <<'PY'
import os, torch, torch.distributed as dist
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
x = torch.ones(1 << 20, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
dist.broadcast(x, src=0)
torch.cuda.synchronize()
print(f"rank {dist.get_rank()}: all_reduce ok, x[0]={x[0].item()} world={dist.get_world_size()}")
PY
NCCL_DEBUG=INFO NCCL_IB_DISABLE=1 py torchrun-nccl-info-ib-disabled-ok 60 torchrun --nproc_per_node=1 /tmp/g_nccl_ok.py

# 2. a package the training script imports is not installed
cat > /tmp/g_train_fa.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
print(f"rank {dist.get_rank()}/{dist.get_world_size()}: process group up", flush=True)
from flash_attn import flash_attn_func
q = torch.randn(1, 128, 8, 64)
print(flash_attn_func(q, q, q).shape)
PY
py torchrun-flash-attn-not-installed 60 torchrun --nproc_per_node=2 /tmp/g_train_fa.py

# 3. rank 1 keeps 8 GiB of activations per step until CUDA OOM; rank 0 (CPU) waits in all_reduce
cat > /tmp/g_oom_rank1.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
dev = "cuda:0" if rank == 1 else "cpu"
print(f"rank {rank}: computing on {dev}", flush=True)
acts = []
for step in range(100):
    if rank == 1:
        acts.append(torch.randn(4096, 1 << 20, dtype=torch.bfloat16, device=dev))  # 8 GiB kept per step
    loss = torch.tensor([float(step)])
    dist.all_reduce(loss)
    print(f"rank {rank}: step {step} loss {loss.item()}", flush=True)
PY
py torchrun-gloo-rank1-cuda-oom 90 torchrun --nproc_per_node=2 /tmp/g_oom_rank1.py

# 4. another process holds 130 GiB of the GPU; a small NCCL training job then starts
cat > /tmp/g_holder.py <<'PY'
import time, torch
x = torch.empty(130 << 30, dtype=torch.uint8, device="cuda")
open("/tmp/g_holder.ready", "w").close()
time.sleep(240)
PY
cat > /tmp/g_train_small.py <<'PY'
import os, torch, torch.distributed as dist
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
free, total = torch.cuda.mem_get_info()
print(f"rank {dist.get_rank()}: GPU free {free / 2**30:.2f} GiB of {total / 2**30:.2f} GiB", flush=True)
model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(16)]).cuda()
opt = torch.optim.AdamW(model.parameters())
x = torch.randn(16384, 8192, device="cuda")
for step in range(10):
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step(); opt.zero_grad()
    dist.all_reduce(loss.detach())
    print(f"step {step} loss {loss.item():.4f}", flush=True)
PY
rm -f /tmp/g_holder.ready
python3 /tmp/g_holder.py > /tmp/g_holder.out 2>&1 & HOLDER=$!
for i in $(seq 60); do [ -e /tmp/g_holder.ready ] && break; sleep 1; done
nvidia-smi --query-gpu=memory.used,memory.total --format=csv; nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
py torchrun-other-process-holds-130gib 90 torchrun --nproc_per_node=1 /tmp/g_train_small.py
kill "$HOLDER"; wait "$HOLDER" 2>/dev/null; cat /tmp/g_holder.out

# 5. a Triton scatter kernel with an unchecked index stores 4 TiB past its buffer (rank 0);
#    rank 1 waits in all_reduce
cat > /tmp/g_triton_oob.py <<'PY'
import datetime, torch, torch.distributed as dist
import triton, triton.language as tl

@triton.jit
def scatter_kernel(out_ptr, idx_ptr, src_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    val = tl.load(src_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + idx, val, mask=mask)  # idx is not bounds-checked

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
if rank == 0:
    n = 1 << 20
    out = torch.zeros(n, device="cuda")
    src = torch.randn(n, device="cuda")
    idx = torch.randint(0, n, (n,), device="cuda", dtype=torch.int64)
    idx[12345] = 1 << 40  # one corrupt index
    scatter_kernel[(triton.cdiv(n, 1024),)](out, idx, src, n, BLOCK=1024)
    total = out.sum().cpu().reshape(1)
else:
    total = torch.zeros(1)
dist.all_reduce(total)
print(f"rank {rank}: total {total.item()}")
PY
py torchrun-triton-scatter-oob 90 torchrun --nproc_per_node=2 /tmp/g_triton_oob.py

# 6. DataLoader workers pass 256 tensors per batch (one fd each) under `ulimit -n 128`
cat > /tmp/g_loader_fds.py <<'PY'
import datetime, torch, torch.distributed as dist
from torch.utils.data import DataLoader, Dataset

class PackedDocs(Dataset):
    def __len__(self):
        return 4096
    def __getitem__(self, i):
        return [torch.full((16,), i) for _ in range(256)]  # 256 documents per sample

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
loader = DataLoader(PackedDocs(), batch_size=4, num_workers=4)
kept = []
for step, batch in enumerate(loader):
    kept.append(batch)
    if step % 10 == 0:
        print(f"rank {dist.get_rank()}: step {step}, {len(batch)} fields", flush=True)
    if step == 50:
        break
dist.destroy_process_group()
PY
py torchrun-dataloader-ulimit-n-128 60 bash -c 'ulimit -n 128 && exec torchrun --nproc_per_node=2 /tmp/g_loader_fds.py'

# 7. two ranks started by a shell launcher with MASTER_ADDR set to a name that does not resolve
cat > /tmp/g_env_init.py <<'PY'
import datetime, os, torch.distributed as dist
print(f"rank {os.environ['RANK']}: init_process_group env:// {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
print(f"rank {dist.get_rank()}: ok")
PY
MASTER_ADDR=trainer-0.trainer-headless.default.svc.cluster.local MASTER_PORT=29500 WORLD_SIZE=2 \
  py env-master-addr-unresolvable 55 bash -c 'for r in 0 1; do RANK=$r python3 /tmp/g_env_init.py & done; wait'

# 8. a truncated libnccl.so.2 (first 1 MiB of the real one) first on LD_LIBRARY_PATH
mkdir -p /tmp/nccl/build/lib; head -c 1048576 "$NCCL_LIB/libnccl.so.2" > /tmp/nccl/build/lib/libnccl.so.2
LD_LIBRARY_PATH=/tmp/nccl/build/lib:${LD_LIBRARY_PATH:-} python3 -c "import torch; print('probe: torch imported; maps:', sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libnccl' in l}))" 2>&1 | tail -n 2 | cut -c1-300
LD_LIBRARY_PATH=/tmp/nccl/build/lib:${LD_LIBRARY_PATH:-} py torchrun-libnccl-truncated-ld-library-path 60 torchrun --nproc_per_node=1 /tmp/g_nccl_ok.py
if ! grep -q libnccl "$OUT/logs/torchrun-libnccl-truncated-ld-library-path.log"; then
  # torch did not take it from LD_LIBRARY_PATH: truncate the wheel's own copy (an interrupted install), then restore it
  cp "$NCCL_LIB/libnccl.so.2" /tmp/libnccl.so.2.orig && trap 'cp /tmp/libnccl.so.2.orig "$NCCL_LIB/libnccl.so.2"' EXIT
  cp /tmp/nccl/build/lib/libnccl.so.2 "$NCCL_LIB/libnccl.so.2"
  py torchrun-libnccl-truncated-in-wheel 60 torchrun --nproc_per_node=1 /tmp/g_nccl_ok.py
  cp /tmp/libnccl.so.2.orig "$NCCL_LIB/libnccl.so.2"; trap - EXIT; cmp /tmp/libnccl.so.2.orig "$NCCL_LIB/libnccl.so.2" && echo "   libnccl.so.2 restored"
fi

# 9. CUDA graph capture after a cache took all but 768 MiB of the free memory
cat > /tmp/g_graph_oom.py <<'PY'
import torch
torch.cuda.set_device(0)
H = 16384
model = torch.nn.Sequential(*[torch.nn.Linear(H, H, bias=False, dtype=torch.bfloat16, device="cuda") for _ in range(8)]).eval()
static_x = torch.randn(H, H, dtype=torch.bfloat16, device="cuda")  # input buffer for the largest batch
with torch.inference_mode():
    model(static_x)  # profile run
    torch.cuda.synchronize(); torch.cuda.empty_cache()
    free, total = torch.cuda.mem_get_info()
    print(f"after profiling: free {free / 2**30:.2f} GiB of {total / 2**30:.2f} GiB", flush=True)
    cache = torch.empty(free - (768 << 20), dtype=torch.uint8, device="cuda")
    print(f"allocated cache of {cache.numel() / 2**30:.2f} GiB", flush=True)
    graphs = {}
    for bs in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = model(static_x[:bs])
        graphs[bs] = (g, out)
        print(f"captured batch size {bs}", flush=True)
print("all graphs captured")
PY
py torch-cudagraph-capture-after-cache 60 python3 /tmp/g_graph_oom.py

# 10. a CUDA extension built with TORCH_CUDA_ARCH_LIST=8.0 (sm_80 code only) run on the H200 (sm_90)
mkdir -p /tmp/g_ext
cat > /tmp/g_ext/fused_scale_kernel.cu <<'CU'
#include <cstdint>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAException.h>
__global__ void fused_scale_kernel(float* p, float s, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}
void fused_scale_launch(float* p, float s, int64_t n) {
  fused_scale_kernel<<<(n + 255) / 256, 256>>>(p, s, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
CU
cat > /tmp/g_ext/fused_scale.cpp <<'CPP'
#include <torch/extension.h>
void fused_scale_launch(float* p, float s, int64_t n);
torch::Tensor fused_scale_(torch::Tensor x, double s) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "float32 CUDA tensor expected");
  fused_scale_launch(x.data_ptr<float>(), (float)s, x.numel());
  return x;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("fused_scale_", &fused_scale_); }
CPP
cat > /tmp/g_ext_run.py <<'PY'
import torch
from torch.utils.cpp_extension import load
ext = load(name="fused_scale", sources=["/tmp/g_ext/fused_scale.cpp", "/tmp/g_ext/fused_scale_kernel.cu"], verbose=True)
x = torch.ones(1 << 20, device="cuda")
ext.fused_scale_(x, 2.0)
print("fused_scale ok", x[0].item())
PY
TORCH_CUDA_ARCH_LIST="8.0" TORCH_EXTENSIONS_DIR=/tmp/g_torch_ext MAX_JOBS=16 py torch-extension-built-for-sm80 150 python3 /tmp/g_ext_run.py

# 11. rank 1 loads 8 GiB into host memory inside a 3 GiB memory cgroup (only where cgroup v2 is writable)
cat > /tmp/g_host_oom.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
if rank == 1:
    print("rank 1: loading the dataset into memory", flush=True)
    data = torch.ones(8 << 30, dtype=torch.uint8)
    print("rank 1: loaded", data.numel(), flush=True)
t = torch.ones(1)
dist.all_reduce(t)
print(f"rank {rank}: all_reduce {t.item()}")
PY
CG=/sys/fs/cgroup/g_oom
if mkdir -p "$CG" 2>/dev/null && [ -e "$CG/memory.max" ] && echo 3G > "$CG/memory.max" 2>/dev/null; then
  echo 0 > "$CG/memory.swap.max" 2>/dev/null
  py torchrun-rank-host-oom-cgroup-3g 60 bash -c "echo \$\$ > $CG/cgroup.procs && exec torchrun --nproc_per_node=2 /tmp/g_host_oom.py"
  cat "$CG/memory.events" 2>/dev/null
else
  echo "== torchrun-rank-host-oom-cgroup-3g: skipped (no writable memory cgroup: $(cat /sys/fs/cgroup/cgroup.subtree_control 2>&1 | head -c 200))"
fi
echo "== done in $((SECONDS - T0)) s"
