#!/usr/bin/env bash
# Capture run W (session 7, collector Z29): a twentieth blind batch, real `vllm serve`
# (vLLM 0.26.0), one fault per layer. Two-"node" jobs as in run_p.sh..run_t.sh (node 0 + a
# --headless node 1 on the one GPU, one shared log, NCCL_HOSTID per node). The wheel is staged
# as 52 MiB chunks joined into /tmp/part0 (part1..4 empty), as in run_q.sh..run_v.sh. Small
# servers use --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that the servers
# starting together do not count each other. Carry: .device/validate/whl and
# .device/validate/z29 (openai-1.54.0-py3-none-any.whl, an openai client older than vLLM's
# openai>=2.0.0). One main call (W_PART=1, installs first), in parallel:
#   1. partitioning: a Falcon-7B shape (71 attention heads, multi-query), TP 2 over 2 nodes
#   2. resources: a first server (--gpu-memory-utilization 0.6) whose API server is killed with
#      SIGKILL after it came up, leaving its EngineCore child holding the GPU memory; a new
#      server with the default --gpu-memory-utilization (0.9) is then started
#   3. visibility: CUDA_VISIBLE_DEVICES=GPU-xxxxxxxx (only the first 8 hex digits of the UUID)
#   4. communication: TP 2 over 2 nodes, NCCL_SOCKET_IFNAME=docker0 (no such interface),
#      NCCL_DEBUG=INFO
#   5. network: TP 2 over 2 nodes, both nodes `--master-addr 10.254.254.254` (the head's
#      public/NAT address, not on any interface of the head)
#   6. versions: openai 1.54.0 (a project's pinned client) first on PYTHONPATH
#   7. healthy but noisy: PYTHONWARNINGS=always, NCCL_DEBUG=INFO, TORCH_CPP_LOG_LEVEL=INFO,
#      expandable segments; one request served, SIGINT
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
W_PART=${W_PART:-1}
if [ "$W_PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

pair() {  # as in run_t.sh; node 1's extra args in $N1EXTRA
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* ${N1EXTRA:-} --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" ${N1EXTRA:-} \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; }
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VS="python3 -m vllm.entrypoints.cli.main serve"
export NCCL_NVLS_ENABLE=0

if [ "$W_PART" = 1 ]; then
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader
ls /sys/class/net
python3 - <<'PY'
from transformers import FalconConfig
# Falcon-7B shape: 71 heads, multi-query attention
c = FalconConfig(vocab_size=65024, hidden_size=4544, num_hidden_layers=32, num_attention_heads=71,
                 multi_query=True, parallel_attn=True, bias=False, new_decoder_architecture=False,
                 max_position_embeddings=2048)
c.architectures = ["FalconForCausalLM"]
c.save_pretrained("/tmp/w-falcon-7b")
PY
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/w-vendor .device/validate/z29/openai-1.54.0-py3-none-any.whl || echo "openai 1.54 install failed"
ls /tmp/w-vendor

# 1. Falcon-7B shape (71 heads) over TP 2 on 2 nodes
pair vllm026-2nodes-tp2-falcon7b-71-heads 90 29911 8601 /tmp/w-falcon-7b "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$!"
# 2. an orphaned EngineCore holds the GPU; a new server at the default utilization
(
  name=vllm026-orphan-enginecore-after-kill-9
  echo "== $name: first: vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.6 --port 8602; kill -9 of its API server; then vllm serve /tmp/tiny $TINY_ARGS --port 8612"
  $VS /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.6 --port 8602 > /tmp/w-first-server.log 2>&1 &
  S=$!
  python3 -c "
import time, urllib.request
for i in range(90):
    try:
        urllib.request.urlopen('http://localhost:8602/health', timeout=2); print('   first server healthy after', i, 's'); break
    except Exception:
        time.sleep(1)"
  KIDS=$(python3 -c "import psutil; print(' '.join(str(c.pid) for c in psutil.Process($S).children(recursive=True)))")
  echo "   first server pid $S, children: $KIDS"
  kill -9 $S; wait $S 2>/dev/null; sleep 3
  echo "   GPU apps after kill -9: $(gpu_apps | tr '\n' ' ')"
  {
    echo "$ nvidia-smi"
    nvidia-smi
    echo "$ vllm serve /tmp/tiny $TINY_ARGS --port 8612"
    timeout -s INT -k 10 45 $VS /tmp/tiny $TINY_ARGS --port 8612
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
  echo "   first server log tail:"; tail -n 3 /tmp/w-first-server.log | cut -c1-200
  for k in $KIDS; do kill -9 $k 2>/dev/null; done
  for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do
    case " $KIDS " in *" $k "*) kill -9 $k;; esac
  done
) &
J="$J $!"
# 3. a UUID prefix in CUDA_VISIBLE_DEVICES
UUID=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1); PFX=${UUID:0:12}
echo "GPU uuid $UUID, prefix $PFX"
( export CUDA_VISIBLE_DEVICES=$PFX
  serve vllm026-cuda-visible-devices-uuid-prefix 80 /tmp/tiny $TINY_ARGS $GMU --port 8603 ) &
J="$J $!"
# 4. NCCL_SOCKET_IFNAME=docker0 on both nodes
pair vllm026-2nodes-tp2-nccl-socket-ifname-docker0 100 29914 8604 /tmp/tiny \
  "$H0 NCCL_SOCKET_IFNAME=docker0 NCCL_DEBUG=INFO" "$H1 NCCL_SOCKET_IFNAME=docker0 NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 5. both nodes given the head's public/NAT address as --master-addr
pair vllm026-2nodes-tp2-master-addr-public-ip-not-local 100 29915 8605 /tmp/tiny \
  "$H0" "$H1" 10.254.254.254 10.254.254.254 $GMU --tensor-parallel-size 2 &
J="$J $!"
# 6. an old openai client first on PYTHONPATH
( export PYTHONPATH=/tmp/w-vendor:/tmp/site
  serve vllm026-openai-1.54-first-on-pythonpath 80 /tmp/tiny $TINY_ARGS $GMU --port 8606 ) &
J="$J $!"
# 7. healthy but noisy
(
  name=vllm026-pythonwarnings-always-served-ok
  echo "== $name: PYTHONWARNINGS=always NCCL_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8607"
  PYTHONWARNINGS=always NCCL_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
    timeout -s INT -k 15 110 $VS /tmp/tiny $TINY_ARGS $GMU --port 8607 > "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request
for i in range(95):
    try:
        urllib.request.urlopen('http://localhost:8607/health', timeout=2); break
    except Exception:
        time.sleep(1)
req = urllib.request.Request('http://localhost:8607/v1/completions', data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
print('   completion:', urllib.request.urlopen(req, timeout=30).read()[:200])" || true
  kill -INT $S; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
