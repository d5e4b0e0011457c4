#!/usr/bin/env bash
# Capture run V (session 7, collector Z27): a nineteenth blind batch, real `vllm serve`
# (vLLM 0.26.0) at TP 1 on the one GPU plus one torch-only NCCL job: libraries, package
# versions and GPU selection on the node. The wheel is staged as 52 MiB chunks joined into
# /tmp/part0 (part1..4 empty), as in run_q.sh..run_u.sh. Every server uses
# --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that the servers starting
# together do not count each other. Carry: .device/validate/whl and .device/validate/z27
# (pydantic-1.10.21-py3-none-any.whl, an old pydantic).
# V_PART=1 (installs first), in parallel:
#   1. CUDA_VISIBLE_DEVICES=0-1 (a range, as written for Slurm/docker, not a list)
#   2. --kv-cache-dtype fp8_inc (the Intel Gaudi FP8 KV-cache type) on the H200
#   3. PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:16 (torch requires > 20)
#   4. the server started from a project directory holding the user's own client script
#      openai.py (which itself does `from openai import OpenAI`): it shadows the openai package
#   5. an old pydantic (1.10.21) first on PYTHONPATH (a stale site directory ahead of vLLM's)
#   6. torch only: two NCCL ranks as two "hosts" (NCCL_HOSTID), rank 1 with
#      LD_PRELOAD=system libnccl.so.2 (2.28.3), rank 0 torch's NCCL 2.28.9, NCCL_DEBUG=INFO
#   7. healthy: LD_PRELOAD naming a library that is not there (ld.so error on every process),
#      NVIDIA_VISIBLE_DEVICES=all, CUDA_DEVICE_ORDER=PCI_BUS_ID, one request served, SIGINT
# V_PART=2 (same warm machine, only if the budget allows), in parallel:
#   8. CUDA_VISIBLE_DEVICES=GPU-xxxxxxxx (the first 8 hex digits of the real UUID only)
#   9. --attention-backend FLASH_ATTN --kv-cache-dtype fp8_e5m2
#  10. torch only: PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True (typo), a CUDA tensor
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
V_PART=${V_PART:-1}
if [ "$V_PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VS="python3 -m vllm.entrypoints.cli.main serve"

# sh_serve NAME LIMIT SHELL-SCRIPT: run a shell snippet (which execs the job), whole output kept
sh_serve() {
  local name=$1 limit=$2 script=$3
  echo "== $name: $script"
  timeout -s INT -k 15 "$limit" bash -c "$script" > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}

if [ "$V_PART" = 1 ]; then
SYSNCCL=$(ldconfig -p | awk '/libnccl\.so\.2 /{print $NF; exit}')
echo "system libnccl: $SYSNCCL -> $(readlink -f "$SYSNCCL")"
# 4. a project directory with the user's own openai.py client script
mkdir -p /tmp/v-proj
cat > /tmp/v-proj/openai.py <<'PY'
# quick client for the local server
from openai import OpenAI

client = OpenAI(base_url="http://localhost:8000/v1", api_key="EMPTY")
print(client.completions.create(model="/tmp/tiny", prompt="Hello", max_tokens=8))
PY
# 5. an old pydantic in a stale site directory
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/v-oldsite .device/validate/z27/pydantic-1.10.21-py3-none-any.whl || echo "pydantic 1.10 install failed"
ls /tmp/v-oldsite
# 6. torch-only NCCL job
cat > /tmp/v_nccl.py <<'PY'
import os, socket, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
torch.cuda.set_device(0)
print(f"[rank {rank}] host {socket.gethostname()} NCCL_HOSTID={os.environ.get('NCCL_HOSTID')} "
      f"LD_PRELOAD={os.environ.get('LD_PRELOAD', '')} torch {torch.__version__}", flush=True)
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"[rank {rank}] all_reduce ok: {x[0].item()}", flush=True)
dist.destroy_process_group()
PY

# 1. CUDA_VISIBLE_DEVICES as a range
( export CUDA_VISIBLE_DEVICES=0-1
  serve vllm026-cuda-visible-devices-range-0-1 90 /tmp/tiny $TINY_ARGS $GMU --port 8501 ) &
J="$!"
# 2. Gaudi FP8 KV-cache dtype on the H200
serve vllm026-kv-cache-dtype-fp8-inc 90 /tmp/tiny $TINY_ARGS $GMU --kv-cache-dtype fp8_inc --port 8502 &
J="$J $!"
# 3. allocator option torch rejects
( export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:16
  serve vllm026-pytorch-cuda-alloc-conf-max-split-16 90 /tmp/tiny $TINY_ARGS $GMU --port 8503 ) &
J="$J $!"
# 4. started from the project directory holding openai.py
sh_serve vllm026-cwd-openai-py-shadows-package 90 \
  "cd /tmp/v-proj && ls -la >&2 && exec $VS /tmp/tiny $TINY_ARGS $GMU --port 8504" &
J="$J $!"
# 5. old pydantic first on PYTHONPATH
( export PYTHONPATH=/tmp/v-oldsite:/tmp/site
  serve vllm026-pydantic-1.10-first-on-pythonpath 90 /tmp/tiny $TINY_ARGS $GMU --port 8505 ) &
J="$J $!"
# 6. torch only: rank 1 preloads the system NCCL
(
  name=torch-nccl-rank1-ld-preload-system-nccl
  echo "== $name: rank 0 NCCL_HOSTID=hostA; rank 1 NCCL_HOSTID=hostB LD_PRELOAD=$SYSNCCL; NCCL_DEBUG=INFO"
  export MASTER_ADDR=127.0.0.1 MASTER_PORT=29731 WORLD_SIZE=2 NCCL_DEBUG=INFO
  {
    echo "+ RANK=0 NCCL_HOSTID=hostA python3 /tmp/v_nccl.py &"
    echo "+ RANK=1 NCCL_HOSTID=hostB LD_PRELOAD=$SYSNCCL python3 /tmp/v_nccl.py"
    RANK=0 LOCAL_RANK=0 NCCL_HOSTID=hostA timeout -k 5 60 python3 /tmp/v_nccl.py &
    P0=$!
    RANK=1 LOCAL_RANK=0 NCCL_HOSTID=hostB LD_PRELOAD=$SYSNCCL timeout -k 5 60 python3 /tmp/v_nccl.py
    echo "+ rank 1 exit $?"
    wait $P0; echo "+ rank 0 exit $?"
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 7. healthy but noisy: LD_PRELOAD of a missing library, NVIDIA_VISIBLE_DEVICES, one request
(
  name=vllm026-ld-preload-missing-lib-served-ok
  echo "== $name: LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 NVIDIA_VISIBLE_DEVICES=all CUDA_DEVICE_ORDER=PCI_BUS_ID vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8507"
  LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 NVIDIA_VISIBLE_DEVICES=all CUDA_DEVICE_ORDER=PCI_BUS_ID \
    timeout -s INT -k 15 110 $VS /tmp/tiny $TINY_ARGS $GMU --port 8507 > "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request
for i in range(95):
    try:
        urllib.request.urlopen('http://localhost:8507/health', timeout=2); break
    except Exception:
        time.sleep(1)
req = urllib.request.Request('http://localhost:8507/v1/completions', data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
print('   completion:', urllib.request.urlopen(req, timeout=30).read()[:200])" || true
  kill -INT $S; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$V_PART" = 2 ]; then
UUID=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1); PFX=${UUID:0:12}
echo "GPU uuid $UUID, prefix $PFX"
# 8. a UUID prefix (CUDA accepts it; NVML needs the whole UUID)
( export CUDA_VISIBLE_DEVICES=$PFX
  serve vllm026-cuda-visible-devices-uuid-prefix 90 /tmp/tiny $TINY_ARGS $GMU --port 8511 ) &
J="$!"
# 9. FlashAttention forced with an e5m2 FP8 KV cache
serve vllm026-flash-attn-kv-cache-fp8-e5m2 90 /tmp/tiny $TINY_ARGS $GMU --attention-backend FLASH_ATTN --kv-cache-dtype fp8_e5m2 --port 8512 &
J="$J $!"
# 10. torch only: allocator option typo
sh_serve torch-alloc-conf-expandable-segment-typo 60 \
  "export PYTORCH_CUDA_ALLOC_CONF=expandable_segment:True; exec python3 -c 'import torch; print(torch.__version__, flush=True); x = torch.randn(1024, 1024, device=\"cuda\"); print((x @ x).sum().item())'" &
J="$J $!"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
