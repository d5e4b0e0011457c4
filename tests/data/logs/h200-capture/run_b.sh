#!/usr/bin/env bash
# Capture run B (same warm machine, after run_a.sh): more start-up failures and NCCL_DEBUG runs.
set -u
. tests/data/logs/h200-capture/common.sh
# the API port is taken by another server
python3 -m http.server 8000 > /dev/null 2>&1 &
WEB=$!; sleep 2
serve vllm026-port-8000-taken 150 /tmp/tiny $TINY_ARGS --port 8000
kill $WEB
# CUDA_VISIBLE_DEVICES names a GPU the machine does not have
CUDA_VISIBLE_DEVICES=3 serve vllm026-visible-devices-3 150 /tmp/tiny $TINY_ARGS
# TP=3 with 4 attention heads
serve vllm026-tp3-4-heads 150 /tmp/tiny $TINY_ARGS --tensor-parallel-size 3
# NCCL with torchrun, one rank: healthy, wrong socket interface, IB forced without IB
cat > /tmp/allreduce1.py <<'PY'
import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print("all_reduce ok", x[0].item(), "world", dist.get_world_size())
dist.destroy_process_group()
PY
nccl() {
  local name=$1; shift
  echo "== $name: $*"
  env NCCL_DEBUG=INFO "$@" timeout 120 torchrun --nproc_per_node=1 /tmp/allreduce1.py > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
nccl torch-nccl-allreduce-1rank-ok
nccl torch-nccl-socket-ifname-missing NCCL_SOCKET_IFNAME=ib9
nccl torch-nccl-net-ib-forced NCCL_NET=IB
nccl torch-nccl-ib-hca-missing NCCL_IB_HCA=mlx5_7 NCCL_NET=IB
