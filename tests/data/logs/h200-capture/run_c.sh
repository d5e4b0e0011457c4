#!/usr/bin/env bash
# Capture run C (same warm machine, after run_b.sh): weights that do not fit, two ranks on one
# GPU, torchrun's store port taken, an unreachable rendezvous endpoint.
set -u
. tests/data/logs/h200-capture/common.sh
# llama-7b shape (13.5 GB of bf16 weights) with 5% of the GPU (7 GB)
serve vllm026-llama7b-weights-5pct 200 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init --enforce-eager --max-model-len 4096 --gpu-memory-utilization 0.05
# two ranks, both on cuda:0
cat > /tmp/allreduce_same_gpu.py <<'PY'
import torch, torch.distributed as dist
dist.init_process_group("nccl")
torch.cuda.set_device(0)
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print("all_reduce ok", x[0].item(), "world", dist.get_world_size())
dist.destroy_process_group()
PY
echo "== torch-nccl-2ranks-same-gpu"
NCCL_DEBUG=INFO timeout 120 torchrun --nproc_per_node=2 /tmp/allreduce_same_gpu.py > "$OUT/logs/torch-nccl-2ranks-same-gpu.log" 2>&1
echo "   rc $?"; tail -n 3 "$OUT/logs/torch-nccl-2ranks-same-gpu.log" | cut -c1-200
# torchrun's store port is held by another server
python3 -m http.server 29500 > /dev/null 2>&1 &
WEB=$!; sleep 2
echo "== torchrun-master-port-taken"
timeout 120 torchrun --nproc_per_node=1 --master_port 29500 /tmp/allreduce1.py > "$OUT/logs/torchrun-master-port-taken.log" 2>&1
echo "   rc $?"; tail -n 3 "$OUT/logs/torchrun-master-port-taken.log" | cut -c1-200
kill $WEB
# second node of two, rendezvous endpoint that nobody answers (no route from this machine)
echo "== torchrun-rdzv-endpoint-unreachable"
timeout 150 torchrun --nnodes=2 --nproc_per_node=1 --rdzv_backend=c10d --rdzv_endpoint=10.254.254.254:29400 \
  --rdzv_conf=join_timeout=60 /tmp/allreduce1.py > "$OUT/logs/torchrun-rdzv-endpoint-unreachable.log" 2>&1
echo "   rc $?"; tail -n 3 "$OUT/logs/torchrun-rdzv-endpoint-unreachable.log" | cut -c1-200
