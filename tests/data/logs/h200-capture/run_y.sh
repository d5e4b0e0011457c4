#!/usr/bin/env bash
# Capture run Y (session 7, collector Z37): a blind batch, torch only (no vLLM, nothing staged),
# torch 2.11.0+cu130 already on the machine. Every job is a small DDP training script
# (/tmp/y/train.py) under torchrun; with 2 ranks both use cuda:0 and each rank is its own
# "host" for NCCL (NCCL_HOSTID=node<RANK>, set by a sitecustomize on PYTHONPATH so that it does
# not show in the job's output). Each log starts with the command as an operator types it.
# Y_PART=1, in parallel:
#   1. communication: 2 ranks, NCCL, 15 s process-group timeout; rank 1 stalls 120 s silently (a
#      stuck input pipeline) before the metrics all_reduce of step 3; NCCL_DEBUG=INFO
#   2. communication: 2 ranks, TORCH_DISTRIBUTED_DEBUG=DETAIL; rank 1 all_reduces a metrics
#      tensor of 2 elements, rank 0 of 1 (a logging bug: mismatched collectives); NCCL_DEBUG=INFO
#   3. network: torchrun --nnodes 2 with the c10d rendezvous started on node 0 only (node 1 never
#      launched), --rdzv_conf join_timeout=30
#   4. resources: rank 0 saves the checkpoint to a 16 MiB volume (own mount namespace, tmpfs)
#   5. other: both ranks resume from a checkpoint cut short (a partial copy), NCCL_DEBUG=INFO
#   6. versions: --rdzv_backend etcd without the python-etcd package
#   7. visibility: the CUDA stub libcuda (libcuda.so.1 -> stubs/libcuda.so, as a Dockerfile
#      build step leaves it) first on LD_LIBRARY_PATH
# Y_PART=2 (same warm machine), in parallel:
#   8. healthy but noisy: 2 ranks, NCCL_DEBUG=INFO, TORCH_DISTRIBUTED_DEBUG=INFO,
#      TORCH_CPP_LOG_LEVEL=INFO, NCCL_IB_DISABLE=1
#   9. resources: PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True (typo of expandable_segments)
#  10. versions: init_process_group("mpi") with a torch built without MPI
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
Y_PART=${Y_PART:-1}
mkdir -p "$OUT/logs" /tmp/y/site /tmp/y/ckpt
export PYTHONPATH=/tmp/y/site

cat > /tmp/y/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None:
    os.environ["NCCL_HOSTID"] = "node" + os.environ["RANK"]  # one "host" per rank
PY

cat > /tmp/y/train.py <<'PY'
import datetime, os, time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)


device = torch.device("cuda", 0)  # one GPU per node
torch.cuda.set_device(device)
backend = os.environ.get("BACKEND", "nccl")
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group(backend, timeout=timeout)
nccl = ".".join(map(str, torch.cuda.nccl.version()))
log(f"process group ready: backend {backend}, world {world}, timeout {timeout}, torch {torch.__version__}, nccl {nccl}")

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
resume = os.environ.get("RESUME")
if resume:
    log(f"resuming from {resume}")
    state = torch.load(resume, map_location=device)
    model.load_state_dict(state["model"])
ddp = DDP(model, device_ids=[0])
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
stall_rank = int(os.environ.get("STALL_RANK", "-1"))
extra_metric = os.environ.get("GRAD_NORM_METRIC") == "1"

for step in range(int(os.environ.get("STEPS", "6"))):
    x = torch.randn(64, 1024, device=device)
    loss = (ddp(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if rank == stall_rank and step == 3:
        time.sleep(120)
    metrics = [loss.detach()]
    if extra_metric and rank % 2 == 1:
        metrics.append(torch.nn.utils.get_total_norm([p.grad for p in ddp.parameters()]).to(device))
    metrics = torch.stack(metrics)
    dist.all_reduce(metrics)
    if rank == 0:
        log(f"step {step} loss {metrics[0].item() / world:.5f}")

ckpt = os.environ.get("CKPT")
if ckpt and rank == 0:
    log(f"saving checkpoint to {ckpt}")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, ckpt)
    log("checkpoint saved")
dist.barrier()
dist.destroy_process_group()
log("done")
PY

# job NAME LIMIT SHOWN CMD...: one fault; its log starts with "$ SHOWN" (the command as typed),
# then the whole output of CMD (all ranks, as torchrun prints them)
job() {
  local name=$1 limit=$2 shown=$3; shift 3
  local log="$OUT/logs/$name.log" t0=$SECONDS
  echo "== $name: $shown"
  { echo "\$ $shown"; timeout -s INT -k 10 "$limit" "$@"; } > "$log" 2>&1
  local rc=$?
  echo "   $name rc $rc  wall $((SECONDS - t0)) s  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-220
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
TR="torchrun --nproc_per_node 2"

if [ "$Y_PART" = 1 ]; then
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"
python3 -c "import etcd" 2>&1 | tail -n 1
# a checkpoint of this model, then a partial copy of it (as an interrupted scp/rsync leaves it)
python3 - <<'PY'
import torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
torch.save({"model": m.state_dict()}, "/tmp/y/ckpt/full.pt")
PY
head -c 20000000 /tmp/y/ckpt/full.pt > /tmp/y/ckpt/step_4000.pt
ls -la /tmp/y/ckpt
# a CUDA stubs directory with the libcuda.so.1 link a Docker build step adds
STUB=$(ls /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so 2>/dev/null | head -n 1)
echo "stub: ${STUB:-none found}"
mkdir -p /tmp/y/cuda/lib64/stubs
[ -n "$STUB" ] && cp "$STUB" /tmp/y/cuda/lib64/stubs/libcuda.so && ln -sf libcuda.so /tmp/y/cuda/lib64/stubs/libcuda.so.1

# 1. rank 1 stalls before a collective; 15 s process-group timeout
job torchrun-nccl-rank1-stalls-pg-timeout-15s 80 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=15 STALL_RANK=1 $TR --master_port 29961 /tmp/y/train.py" \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=15 STALL_RANK=1 $TR --master_port 29961 /tmp/y/train.py &
J="$!"
# 2. mismatched metrics all_reduce shapes, caught by TORCH_DISTRIBUTED_DEBUG=DETAIL
job torchrun-nccl-debug-detail-allreduce-shape-mismatch 80 \
  "TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=INFO GRAD_NORM_METRIC=1 $TR --master_port 29962 /tmp/y/train.py" \
  env TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=INFO GRAD_NORM_METRIC=1 $TR --master_port 29962 /tmp/y/train.py &
J="$J $!"
# 3. --nnodes 2 but only node 0 launched
job torchrun-c10d-nnodes-2-only-node0-started 80 \
  "NCCL_DEBUG=INFO torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29963 --rdzv_id train-42 --rdzv_conf join_timeout=30 /tmp/y/train.py" \
  env NCCL_DEBUG=INFO torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29963 --rdzv_id train-42 --rdzv_conf join_timeout=30 /tmp/y/train.py &
J="$J $!"
# 4. checkpoint directory on a 16 MiB volume
job torchrun-nccl-checkpoint-volume-16m-full 80 \
  "df -h /mnt/ckpt; NCCL_DEBUG=INFO CKPT=/mnt/ckpt/step_6.pt $TR --master_port 29964 /tmp/y/train.py" \
  unshare -m sh -c 'mkdir -p /mnt/ckpt && mount -t tmpfs -o size=16m tmpfs /mnt/ckpt && df -h /mnt/ckpt && export NCCL_DEBUG=INFO CKPT=/mnt/ckpt/step_6.pt && exec torchrun --nproc_per_node 2 --master_port 29964 /tmp/y/train.py' &
J="$J $!"
# 5. resume from a checkpoint cut short
job torchrun-nccl-resume-truncated-checkpoint 80 \
  "NCCL_DEBUG=INFO RESUME=/tmp/y/ckpt/step_4000.pt $TR --master_port 29965 /tmp/y/train.py" \
  env NCCL_DEBUG=INFO RESUME=/tmp/y/ckpt/step_4000.pt $TR --master_port 29965 /tmp/y/train.py &
J="$J $!"
# 6. etcd rendezvous without python-etcd
job torchrun-rdzv-backend-etcd-not-installed 80 \
  "NCCL_DEBUG=INFO torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend etcd --rdzv_endpoint 127.0.0.1:2379 --rdzv_id train-42 /tmp/y/train.py" \
  env NCCL_DEBUG=INFO torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend etcd --rdzv_endpoint 127.0.0.1:2379 --rdzv_id train-42 /tmp/y/train.py &
J="$J $!"
# 7. the CUDA stub driver library first on LD_LIBRARY_PATH
job torchrun-nccl-ld-library-path-cuda-stubs 80 \
  "LD_LIBRARY_PATH=/tmp/y/cuda/lib64/stubs:${LD_LIBRARY_PATH:-} NCCL_DEBUG=INFO $TR --master_port 29966 /tmp/y/train.py" \
  env LD_LIBRARY_PATH=/tmp/y/cuda/lib64/stubs:${LD_LIBRARY_PATH:-} NCCL_DEBUG=INFO $TR --master_port 29966 /tmp/y/train.py &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$Y_PART" = 2 ]; then
# 8. healthy but noisy
job torchrun-nccl-info-two-hosts-sockets-ok 70 \
  "NCCL_DEBUG=INFO NCCL_IB_DISABLE=1 TORCH_DISTRIBUTED_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO STEPS=8 $TR --master_port 29971 /tmp/y/train.py" \
  env NCCL_DEBUG=INFO NCCL_IB_DISABLE=1 TORCH_DISTRIBUTED_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO STEPS=8 $TR --master_port 29971 /tmp/y/train.py &
J="$!"
# 9. allocator option typo
job torchrun-nccl-alloc-conf-expandable-segment-typo 70 \
  "PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True NCCL_DEBUG=INFO $TR --master_port 29972 /tmp/y/train.py" \
  env PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True NCCL_DEBUG=INFO $TR --master_port 29972 /tmp/y/train.py &
J="$J $!"
# 10. MPI backend in a torch built without MPI
job torchrun-backend-mpi-not-built 70 \
  "BACKEND=mpi $TR --master_port 29973 /tmp/y/train.py" \
  env BACKEND=mpi $TR --master_port 29973 /tmp/y/train.py &
J="$J $!"
wait $J
fi
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
