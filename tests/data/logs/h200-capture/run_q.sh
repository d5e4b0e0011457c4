#!/usr/bin/env bash
# Capture run Q (session 6, collector Z13): a fourteenth blind batch with real `vllm serve`
# (vLLM 0.26.0), set-ups not in the README's earlier batches. Multi-"node" jobs are run as in
# run_p.sh: two `vllm serve` processes on this one GPU (node 0 + a --headless node 1), both
# appending to one log as a shared console would; NCCL_HOSTID per node makes NCCL see two hosts.
# Q_PART=1 (after the five wheel parts were staged in /tmp): install, then in parallel
#   - PP 2 over 2 nodes with VLLM_PP_LAYER_PARTITION=16,16 (copied from a 32-layer model's
#     launch script) on a 2-layer model
#   - TP 2 over 2 nodes, a model whose intermediate_size is 1365 (int(8/3*512))
#   - TP 2 over 2 nodes, VLLM_NCCL_SO_PATH pointing at a libnccl that does not exist here
#   - TP 2 over 2 nodes, NCCL_NET=IB forced on a host without InfiniBand (NCCL_DEBUG=INFO)
#   - TP 2 over 2 nodes, node 1's --master-addr a Kubernetes service name that does not resolve
# Q_PART=2 (same warm machine), in parallel:
#   - healthy PP 2 over 2 nodes, NCCL_DEBUG=INFO, one request served, both nodes stopped (SIGINT)
#   - TP 2 over 2 nodes, node 1 with CUDA_VISIBLE_DEVICES=1 (this host has only GPU 0)
#   - `vllm serve --host vllm-0.vllm.default.svc.cluster.local` (a name this node cannot resolve)
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
Q_PART=${Q_PART:-1}
if [ "$Q_PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

# pair NAME LIMIT MPORT APIPORT MODEL "ENV0" "ENV1" ADDR0 ADDR1 EXTRA...: a 2-"node" job on this
# machine (node 1 --headless), both appending to one log. EXTRA holds the parallel sizes.
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05"

if [ "$Q_PART" = 1 ]; then
  python3 - <<'PY'
from transformers import LlamaConfig
# intermediate_size int(8/3*512) = 1365: odd, does not split over TP 2
LlamaConfig(hidden_size=512, intermediate_size=1365, num_hidden_layers=2, num_attention_heads=8,
            num_key_value_heads=4, vocab_size=1024, max_position_embeddings=512).save_pretrained("/tmp/tiny-i1365")
PY
  ls -la /usr/local/nccl/lib/libnccl.so.2 2>&1
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
  pair vllm026-2nodes-pp2-layer-partition-16-16 120 29711 8091 /tmp/tiny "$H0 VLLM_PP_LAYER_PARTITION=16,16" \
    "$H1 VLLM_PP_LAYER_PARTITION=16,16" 127.0.0.1 127.0.0.1 $GMU --pipeline-parallel-size 2 &
  pair vllm026-2nodes-tp2-intermediate-size-1365 120 29721 8092 /tmp/tiny-i1365 "$H0" "$H1" 127.0.0.1 127.0.0.1 \
    $GMU --tensor-parallel-size 2 &
  pair vllm026-2nodes-tp2-nccl-so-path-missing 120 29731 8093 /tmp/tiny "$H0 VLLM_NCCL_SO_PATH=/usr/local/nccl/lib/libnccl.so.2" \
    "$H1 VLLM_NCCL_SO_PATH=/usr/local/nccl/lib/libnccl.so.2" 127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
  pair vllm026-2nodes-tp2-nccl-net-ib-no-infiniband 120 29741 8094 /tmp/tiny "$H0 NCCL_DEBUG=INFO NCCL_NET=IB" \
    "$H1 NCCL_DEBUG=INFO NCCL_NET=IB" 127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
  pair vllm026-2nodes-tp2-node1-master-addr-unresolvable 75 29751 8095 /tmp/tiny "$H0" "$H1" 127.0.0.1 \
    vllm-head-0.vllm-head.default.svc.cluster.local $GMU --tensor-parallel-size 2 &
  wait
  sleep 2
  echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
fi

if [ "$Q_PART" = 2 ]; then
  (
    name=vllm026-2nodes-pp2-nccl-info-served-ok
    log="$OUT/logs/$name.log"; : > "$log"
    echo "== $name: node1: NCCL_DEBUG=INFO $H1 vllm serve /tmp/tiny $TINY_ARGS $GMU -pp 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29761 --headless"
    echo "   node0: NCCL_DEBUG=INFO $H0 vllm serve (same) --node-rank 0 --port 8096; one request, then SIGINT to both"
    NCCL_DEBUG=INFO NCCL_HOSTID=node1 timeout -s INT -k 15 150 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS $GMU \
      --pipeline-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29761 --headless >> "$log" 2>&1 &
    h1=$!
    NCCL_DEBUG=INFO NCCL_HOSTID=node0 timeout -s INT -k 15 150 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS $GMU \
      --pipeline-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 29761 --port 8096 >> "$log" 2>&1 &
    h0=$!
    python3 - <<'PY'
import json, time, urllib.request
for i in range(120):
    try:
        urllib.request.urlopen("http://localhost:8096/health", timeout=2); break
    except Exception:
        time.sleep(1)
print("   health after", i, "s")
try:
    req = urllib.request.Request("http://localhost:8096/v1/completions", headers={"Content-Type": "application/json"},
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
  pair vllm026-2nodes-tp2-node1-cuda-visible-devices-1 100 29771 8097 /tmp/tiny "$H0" "$H1 CUDA_VISIBLE_DEVICES=1" \
    127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
  serve vllm026-host-unresolvable-k8s-name 100 /tmp/tiny $TINY_ARGS $GMU --host vllm-0.vllm.default.svc.cluster.local --port 8098 &
  wait
  sleep 2
  echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
fi
