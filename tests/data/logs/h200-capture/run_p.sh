#!/usr/bin/env bash
# Capture run P (session 6, a fresh machine): a thirteenth blind batch, all with real `vllm serve`
# (vLLM 0.26.0), set-ups chosen by collector Z8 and not in the README's earlier batches.
# P_PART=1 (after the five wheel parts were staged in /tmp): install, then in parallel
#   - CUDA_VISIBLE_DEVICES=0,0 (a launcher that repeats the GPU index)
#   - /dev/nvidia* covered with /dev/null (a container started without the GPU devices), vllm serve
#   - "two nodes" of a TP-2 job (--nnodes 2, node 0 + a --headless node 1) both on this one GPU:
#       * plainly (both ranks land on cuda:0 of the same host), NCCL_DEBUG=WARN
#       * NCCL_HOSTID per node (so NCCL sees two hosts) and node 1 loading the system libnccl
#         2.28.3 through VLLM_NCCL_SO_PATH while node 0 uses torch's 2.28.9 (NCCL_DEBUG=INFO)
#       * NCCL_SOCKET_IFNAME=eth9 on both nodes (no such interface here), NCCL_DEBUG=INFO
#       * NCCL_HOSTID per node, a model with 6 heads / 3 KV heads over TP 2
#   then alone (it needs the whole GPU):
#     - Llama-7B shape with --enable-lora --max-loras 64 --max-lora-rank 512
# P_PART=2 (a fresh machine again, parts re-staged; installs first), in parallel:
#     - --host 10.254.254.254 (an address of another machine, not of this node)
#     - the two-"node" TP-2 job with NCCL_HOSTID per node, node 1 pointed at the wrong
#       --master-port (29662 while node 0 listens on 29661)
#     - the same two-"node" TP-2 job, healthy (NCCL_HOSTID per node, NCCL_DEBUG=INFO): one request
#       served, then both nodes stopped with SIGINT
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
P_PART=${P_PART:-1}
if [ "$P_PART" = 1 ] || [ "$P_PART" = 2 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

# pair NAME LIMIT MPORT APIPORT MODEL "ENV0" "ENV1" EXTRA...: a TP-2 job as two "nodes" on this
# machine (node 1 --headless), both appending to one log, as a shared console would show them.
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7; shift 7
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* -tp 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port $mport --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* -tp 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}

gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }

if [ "$P_PART" = 1 ]; then
  python3 - <<'PY'
from transformers import LlamaConfig
# 6 heads / 3 KV heads (head_dim 64): heads split over TP 2, KV heads do not
LlamaConfig(hidden_size=384, intermediate_size=768, num_hidden_layers=2, num_attention_heads=6,
            num_key_value_heads=3, vocab_size=1024, max_position_embeddings=512).save_pretrained("/tmp/tiny-6h-3kv")
PY
  SYSNCCL=$(ldconfig -p | awk '/libnccl\.so\.2 /{print $NF; exit}')
  echo "system libnccl: $SYSNCCL -> $(readlink -f "$SYSNCCL")"
  python3 -c "import torch; print('torch nccl', torch.cuda.nccl.version())"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
  CUDA_VISIBLE_DEVICES=0,0 serve vllm026-cuda-visible-devices-0-0 100 /tmp/tiny $TINY_ARGS --port 8071 --gpu-memory-utilization 0.1 &
  (
    name=vllm026-dev-nvidia-not-mounted
    echo "== $name: /dev/nvidia* (character devices) covered with /dev/null, vllm serve /tmp/tiny $TINY_ARGS --port 8072"
    timeout -s INT -k 15 100 unshare -m sh -c 'for d in /dev/nvidia*; do [ -c "$d" ] && mount --bind /dev/null "$d"; done; ls -la /dev/nvidia* >&2; exec python3 -m vllm.entrypoints.cli.main serve /tmp/tiny '"$TINY_ARGS"' --port 8072' > "$OUT/logs/$name.log" 2>&1
    echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
  ) &
  pair vllm026-2nodes-tp2-both-on-cuda0 150 29611 8073 /tmp/tiny "NCCL_DEBUG=WARN" "NCCL_DEBUG=WARN" --gpu-memory-utilization 0.1 &
  if [ -n "$SYSNCCL" ]; then
    pair vllm026-2nodes-tp2-node1-system-nccl-2.28.3 150 29621 8074 /tmp/tiny "NCCL_DEBUG=INFO NCCL_HOSTID=node0" \
      "NCCL_DEBUG=INFO NCCL_HOSTID=node1 VLLM_NCCL_SO_PATH=$SYSNCCL" --gpu-memory-utilization 0.1 &
  fi
  pair vllm026-2nodes-tp2-nccl-socket-ifname-eth9 150 29631 8075 /tmp/tiny "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth9" \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth9" --gpu-memory-utilization 0.1 &
  pair vllm026-2nodes-tp2-6-heads-3-kv-heads 150 29641 8076 /tmp/tiny-6h-3kv "NCCL_HOSTID=node0" "NCCL_HOSTID=node1" \
    --gpu-memory-utilization 0.1 &
  wait
  sleep 3
  echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
  for p in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$p"; done 2>/dev/null
  sleep 2
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
  serve vllm026-llama7b-lora-max-loras-64-rank-512 200 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init \
    --enforce-eager --port 8077 --max-model-len 4096 --enable-lora --max-loras 64 --max-lora-rank 512
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
fi

if [ "$P_PART" = 2 ]; then
  serve vllm026-host-10.254.254.254-not-on-this-node 100 /tmp/tiny $TINY_ARGS --host 10.254.254.254 --port 8081 \
    --gpu-memory-utilization 0.1 &
  (
    name=vllm026-2nodes-tp2-node1-wrong-master-port
    log="$OUT/logs/$name.log"; : > "$log"
    echo "== $name: node1: NCCL_HOSTID=node1 vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 -tp 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29662 --headless"
    echo "   node0: NCCL_HOSTID=node0 vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 -tp 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 29661 --port 8082"
    NCCL_HOSTID=node1 timeout -s INT -k 15 100 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 \
      --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29662 --headless >> "$log" 2>&1 &
    q1=$!
    NCCL_HOSTID=node0 timeout -s INT -k 15 100 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 \
      --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 29661 --port 8082 >> "$log" 2>&1 &
    q0=$!
    wait $q0; r0=$?; wait $q1; r1=$?
    echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"; tail -n 3 "$log" | cut -c1-200
  ) &
  (
    name=vllm026-2nodes-tp2-nccl-info-served-ok
    log="$OUT/logs/$name.log"; : > "$log"
    echo "== $name: node1: NCCL_DEBUG=INFO NCCL_HOSTID=node1 vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 -tp 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29671 --headless"
    echo "   node0: NCCL_DEBUG=INFO NCCL_HOSTID=node0 vllm serve (same) --node-rank 0 --port 8083; one request, then SIGINT to both"
    NCCL_DEBUG=INFO NCCL_HOSTID=node1 timeout -s INT -k 15 160 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 \
      --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29671 --headless >> "$log" 2>&1 &
    h1=$!
    NCCL_DEBUG=INFO NCCL_HOSTID=node0 timeout -s INT -k 15 160 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.1 \
      --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 29671 --port 8083 >> "$log" 2>&1 &
    h0=$!
    python3 - <<'PY'
import json, time, urllib.request
for i in range(120):
    try:
        urllib.request.urlopen("http://localhost:8083/health", timeout=2); break
    except Exception:
        time.sleep(1)
print("   health after", i, "s")
try:
    req = urllib.request.Request("http://localhost:8083/v1/completions", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": "/tmp/tiny", "prompt": [1, 2, 3, 4, 5], "max_tokens": 8}).encode())
    print("  ", urllib.request.urlopen(req, timeout=30).read()[:300])
except Exception as e:
    print("   request failed:", e)
PY
    sleep 2
    kill -INT $h0; sleep 3; kill -INT $h1
    wait $h0; r0=$?; wait $h1; r1=$?
    echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"; tail -n 3 "$log" | cut -c1-200
  ) &
  wait
  echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
fi
