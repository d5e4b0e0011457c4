#!/usr/bin/env bash
# Capture run R (session 6, collector Z18): a fifteenth blind batch with real `vllm serve`
# (vLLM 0.26.0), set-ups not in the README's earlier batches. Two-"node" jobs as in run_p.sh /
# run_q.sh (node 0 + a --headless node 1 on this one GPU, one shared log, NCCL_HOSTID per node).
# One call (after the wheel chunks were staged and joined into /tmp/part0), in parallel:
#   - /dev/nvidia-uvm (and -tools) covered with /dev/null: a container without the UVM device
#   - the CUDA forward-compat libcuda (/usr/local/cuda/compat) first on LD_LIBRARY_PATH
#   - DP head (--data-parallel-size 2 --data-parallel-size-local 1) given another node's
#     address as --data-parallel-address (10.254.254.254)
#   - DP head whose --data-parallel-rpc-port is already held by another server
#   - TP 2 over 2 nodes, a GPTQ (4-bit, group 128) config with intermediate_size 384
#   - TP 2 over 2 nodes, served; node 1's processes then stopped (SIGSTOP, a hung node) and a
#     request sent; VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
bash tests/data/logs/h200-capture/install.sh || exit $?
. tests/data/logs/h200-capture/common.sh

pair() {  # as in run_q.sh
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
tree() { local c; echo "$1"; for c in $(ps -o pid= --ppid "$1"); do tree "$c"; done; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05"

python3 - <<'PY'
from transformers import LlamaConfig
# a GPTQ 4-bit checkpoint's config (group_size 128); intermediate_size 384 = 3 groups
c = LlamaConfig(hidden_size=512, intermediate_size=384, num_hidden_layers=2, num_attention_heads=8,
                num_key_value_heads=4, vocab_size=1024, max_position_embeddings=512, torch_dtype="float16")
c.quantization_config = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
                         "sym": True, "damp_percent": 0.01, "true_sequential": True}
c.save_pretrained("/tmp/tiny-gptq-i384")
PY
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader
ls -la /dev/nvidia-uvm* 2>&1
ls -la /usr/local/cuda/compat/ 2>&1 | head

# 1. /dev/nvidia-uvm not mounted into the container
(
  name=vllm026-dev-nvidia-uvm-not-mounted
  echo "== $name: /dev/nvidia-uvm and /dev/nvidia-uvm-tools covered with /dev/null; vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8101"
  timeout -s INT -k 15 120 unshare -m sh -c 'for d in /dev/nvidia-uvm /dev/nvidia-uvm-tools; do [ -c "$d" ] && mount --bind /dev/null "$d"; done; exec python3 -m vllm.entrypoints.cli.main serve /tmp/tiny '"$TINY_ARGS $GMU"' --port 8101' > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$!"
# 2. the forward-compat libcuda first on LD_LIBRARY_PATH
if ls /usr/local/cuda/compat/libcuda.so.1 >/dev/null 2>&1; then
  LD_LIBRARY_PATH=/usr/local/cuda/compat${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    serve vllm026-cuda-compat-libcuda-on-ld-library-path 100 /tmp/tiny $TINY_ARGS $GMU --port 8102 &
  J="$J $!"
else
  echo "== no /usr/local/cuda/compat/libcuda.so.1: compat fault skipped"
fi
# 3. DP head given another node's address
serve vllm026-dp-head-address-other-node 100 /tmp/tiny $TINY_ARGS $GMU --data-parallel-size 2 \
  --data-parallel-size-local 1 --data-parallel-address 10.254.254.254 --data-parallel-rpc-port 13355 --port 8103 &
J="$J $!"
# 4. DP head whose RPC port is held by another server
python3 -m http.server 13365 > /dev/null 2>&1 &
HOLDER=$!
sleep 1
serve vllm026-dp-rpc-port-13365-taken 100 /tmp/tiny $TINY_ARGS $GMU --data-parallel-size 2 \
  --data-parallel-size-local 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13365 --port 8104 &
J="$J $!"
# 5. GPTQ group 128, intermediate 384 over TP 2 (192 per rank)
pair vllm026-2nodes-tp2-gptq-g128-intermediate-384 120 29781 8105 /tmp/tiny-gptq-i384 "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 6. TP 2 over 2 nodes, served, then node 1 hangs (SIGSTOP) and a request arrives
(
  name=vllm026-2nodes-tp2-node1-stopped-execute-timeout-30
  log="$OUT/logs/$name.log"; : > "$log"
  echo "== $name: node1: $H1 vllm serve /tmp/tiny $TINY_ARGS $GMU -tp 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29791 --headless"
  echo "   node0: $H0 (same) --node-rank 0 --port 8106; both VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30; after health, SIGSTOP to node 1's processes, then one request"
  VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 NCCL_HOSTID=node1 timeout -s INT -k 10 170 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS $GMU \
    --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29791 --headless >> "$log" 2>&1 &
  h1=$!
  VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 NCCL_HOSTID=node0 timeout -s INT -k 10 170 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS $GMU \
    --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 29791 --port 8106 >> "$log" 2>&1 &
  h0=$!
  python3 -c "
import time, urllib.request
for i in range(110):
    try:
        urllib.request.urlopen('http://localhost:8106/health', timeout=2); break
    except Exception:
        time.sleep(1)
print('   health after', i, 's')"
  STOPPED=$(for c in $(ps -o pid= --ppid $h1); do tree $c; done | tr '\n' ' ')
  echo "   SIGSTOP to node 1: $STOPPED"
  kill -STOP $STOPPED
  python3 -c "
import json, urllib.request
try:
    req = urllib.request.Request('http://localhost:8106/v1/completions', headers={'Content-Type': 'application/json'},
        data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4, 5], 'max_tokens': 8}).encode())
    print('  ', urllib.request.urlopen(req, timeout=45).read()[:300])
except Exception as e:
    print('   request failed:', e)"
  sleep 5
  kill -INT $h0 2>/dev/null; wait $h0; r0=$?
  kill -CONT $STOPPED 2>/dev/null; sleep 1; kill -INT $h1 2>/dev/null; wait $h1; r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"; tail -n 3 "$log" | cut -c1-200
) &
J="$J $!"
wait $J
kill $HOLDER 2>/dev/null
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
