#!/usr/bin/env bash
# Capture run X (session 7, collector Z36): a twenty-first blind batch, real `vllm serve`
# (vLLM 0.26.0) at TP 1 or as two "nodes" on the one GPU (node 0 + a --headless node 1, one shared
# log, NCCL_HOSTID per node) as in run_p.sh..run_w.sh. The wheel is staged as 52 MiB chunks joined
# into /tmp/part0 (part1..4 empty), as in run_q.sh..run_w.sh. Carry: .device/validate/whl.
# Small servers use --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that servers
# starting together do not count each other.
# X_PART=1 (installs first), in parallel:
#   1. partitioning: a Zamba2 (hybrid Mamba) config, --pipeline-parallel-size 2 over 2 nodes
#   2. partitioning: an AWQ (4-bit, group 128) Llama config, intermediate_size 1408, TP 2 over
#      2 nodes (704 per rank, not a multiple of 128)
#   3. partitioning: a Qwen2.5-0.5B shape (14 heads, 2 KV heads), TP 4 over 2 nodes
#   4. visibility: CUDA_VISIBLE_DEVICES=-1 left in the environment
#   5. versions: vllm serve started from a vLLM source checkout (no compiled extensions) while the
#      wheel is installed
#   6. resources: a Llama-3.2-1B shape (131072 positions) with --kv-cache-memory-bytes 1G
# X_PART=2, in parallel:
#   7. resources: TP 2 over 2 nodes, --master-port held by another service
#   8. resources: TP 2 over 2 nodes, each node with a 64 MiB /dev/shm (docker's default)
#   9. communication: TP 2 over 2 nodes, NCCL_SOCKET_IFNAME an interface that exists but has no
#      address (ifb0 here), NCCL_DEBUG=WARN
#  10. network: node 1 (--headless) started, node 0 (the head) never started
#  11. versions: torch's libnccl.so.2 replaced by a partial copy (own mount namespace)
#  12. visibility: --data-parallel-size 2 on one GPU
# X_PART=3, in parallel:
#  13. network: DP 2 over 2 nodes, the worker given another --data-parallel-rpc-port than the head
#  14. resources: ulimit -n 32 (soft and hard)
#  15. versions: --attention-backend FLASHINFER, flashinfer not installed
#  16. communication: TP 2 over 2 nodes, GLOO_SOCKET_IFNAME an interface without an address (ifb1)
#  17. healthy but noisy: VLLM_LOGGING_LEVEL=DEBUG, one request served, SIGINT
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
X_PART=${X_PART:-1}
OUT=$(cd "$OUT" && pwd)
if [ "$X_PART" = 1 ] || [ ! -d /tmp/site/vllm ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

# pair NAME LIMIT MPORT PORT MODEL ENV0 ENV1 ADDR0 ADDR1 ARGS...: node 1's extra args in $N1EXTRA,
# a command put before python3 on node 0/1 in $WRAP0/$WRAP1
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 ${WRAP1:-} vllm serve $model $TINY_ARGS $* ${N1EXTRA:-} --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 ${WRAP0:-} vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 15 "$limit" ${WRAP1:-} python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" ${N1EXTRA:-} \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 15 "$limit" ${WRAP0:-} python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; }
cleanup_gpu() {  # everything on this machine was started by this script
  for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
}
# an interface that exists but has neither an IPv4 nor an IPv6 address (else a name that does not exist)
noaddr_if() {
  python3 - "$@" <<'PY'
import fcntl, os, socket, struct, sys
v6 = {l.split()[-1] for l in open('/proc/net/if_inet6')} if os.path.exists('/proc/net/if_inet6') else set()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for name in sys.argv[1:]:
    if not os.path.exists('/sys/class/net/' + name) or name in v6:
        continue
    try:
        fcntl.ioctl(s.fileno(), 0x8915, struct.pack('256s', name.encode()[:15]))
    except OSError:
        print(name); break
else:
    print('eth1')
PY
}
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VS="python3 -m vllm.entrypoints.cli.main serve"
export NCCL_NVLS_ENABLE=0

if [ "$X_PART" = 1 ]; then
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader
(ip -br addr 2>/dev/null || cat /proc/net/if_inet6; ls /sys/class/net) | tr '\n' ' '; echo
python3 - <<'PY'
import shutil, pathlib, traceback
def make(fn):
    try:
        fn(); print("written:", fn.__name__)
    except Exception:
        traceback.print_exc()
def zamba2():  # Zamba2-2.7B (transformers' defaults): a hybrid Mamba2/attention model
    from transformers import Zamba2Config
    c = Zamba2Config(); c.architectures = ["Zamba2ForCausalLM"]; c.save_pretrained("/tmp/x-zamba2")
def awq():  # AWQ 4-bit group 128, intermediate 1408 (= 11 x 128; 704 per rank at TP 2)
    from transformers import LlamaConfig
    c = LlamaConfig(hidden_size=256, intermediate_size=1408, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512, torch_dtype="float16")
    c.architectures = ["LlamaForCausalLM"]
    c.quantization_config = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
    c.save_pretrained("/tmp/x-awq-i1408")
def qwen():  # Qwen2.5-0.5B shape: 14 heads, 2 KV heads
    from transformers import Qwen2Config
    c = Qwen2Config(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                    num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768, tie_word_embeddings=True)
    c.architectures = ["Qwen2ForCausalLM"]; c.save_pretrained("/tmp/x-qwen2.5-0.5b")
def llama1b():  # Llama-3.2-1B shape with its 128k window
    from transformers import LlamaConfig
    c = LlamaConfig(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                    num_key_value_heads=8, head_dim=64, vocab_size=128256, max_position_embeddings=131072,
                    tie_word_embeddings=True)
    c.architectures = ["LlamaForCausalLM"]; c.save_pretrained("/tmp/x-llama3.2-1b")
def src():  # a vLLM source checkout: the wheel's Python files without the compiled extensions
    shutil.copytree("/tmp/site/vllm", "/tmp/x-vllm-src/vllm", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    print("source checkout:", sum(1 for _ in pathlib.Path("/tmp/x-vllm-src").rglob("*.py")), "py files")
for f in (zamba2, awq, qwen, llama1b, src):
    make(f)
PY

# 1. Zamba2 with PP 2 over 2 nodes
pair vllm026-2nodes-pp2-zamba2 90 29931 8701 /tmp/x-zamba2 "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --pipeline-parallel-size 2 &
J="$!"
# 2. AWQ, intermediate 1408, TP 2 over 2 nodes
pair vllm026-2nodes-tp2-awq-group128-intermediate-1408 100 29932 8702 /tmp/x-awq-i1408 "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 3. Qwen2.5-0.5B shape, TP 4 over 2 nodes
pair vllm026-2nodes-tp4-qwen2.5-0.5b-14-heads 90 29933 8703 /tmp/x-qwen2.5-0.5b "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 4 &
J="$J $!"
# 4. CUDA_VISIBLE_DEVICES=-1
( export CUDA_VISIBLE_DEVICES=-1
  serve vllm026-cuda-visible-devices-minus-1 90 /tmp/tiny $TINY_ARGS $GMU --port 8704 ) &
J="$J $!"
# 5. started from a source checkout (cwd first on sys.path)
( cd /tmp/x-vllm-src && serve vllm026-source-checkout-no-compiled-extensions 90 /tmp/tiny $TINY_ARGS $GMU --port 8705 ) &
J="$J $!"
# 6. Llama-3.2-1B shape (128k window) with a 1 GiB KV-cache budget
serve vllm026-llama3.2-1b-128k-kv-cache-memory-bytes-1g 120 /tmp/x-llama3.2-1b $TINY_ARGS $GMU --port 8706 &
J="$J $!"
sleep 45; echo "GPU apps at 45 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$X_PART" = 2 ]; then
nvidia-smi --query-gpu=memory.used --format=csv,noheader
# 7. the master port held by another service (dual-stack listener)
python3 -m http.server 29942 --bind :: > /dev/null 2>&1 &
HOLDER=$!
sleep 1; echo "port 29942 held by pid $HOLDER: $(ss -ltnp 2>/dev/null | grep 29942 | tr -s ' ' | cut -c1-120)"
pair vllm026-2nodes-tp2-master-port-taken 80 29942 8712 /tmp/tiny "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$!"
# 8. docker's default 64 MiB /dev/shm on both nodes
printf '#!/bin/sh\nmount -t tmpfs -o size=64m shm /dev/shm && df -h /dev/shm >&2 && exec "$@"\n' > /tmp/x-shm64.sh
chmod +x /tmp/x-shm64.sh
( WRAP0="unshare -m /tmp/x-shm64.sh" WRAP1="unshare -m /tmp/x-shm64.sh"
  pair vllm026-2nodes-tp2-dev-shm-64m 100 29943 8713 /tmp/tiny "$H0" "$H1" 127.0.0.1 127.0.0.1 \
    $GMU --tensor-parallel-size 2 ) &
J="$J $!"
# 9. NCCL_SOCKET_IFNAME an interface without an address
IF9=$(noaddr_if ifb0 ifb1); echo "no-address interface for NCCL: $IF9"
pair vllm026-2nodes-tp2-nccl-socket-ifname-$IF9-no-address 100 29944 8714 /tmp/tiny \
  "$H0 NCCL_SOCKET_IFNAME=$IF9 NCCL_DEBUG=WARN" "$H1 NCCL_SOCKET_IFNAME=$IF9 NCCL_DEBUG=WARN" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 10. node 1 alone: the head node was never started
(
  name=vllm026-2nodes-tp2-head-node-never-started
  echo "== $name: node1 only: $H1 vllm serve /tmp/tiny $TINY_ARGS $GMU --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29945 --headless"
  env $H1 timeout -s INT -k 15 80 $VS /tmp/tiny $TINY_ARGS $GMU --tensor-parallel-size 2 --nnodes 2 --node-rank 1 \
    --master-addr 127.0.0.1 --master-port 29945 --headless > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 11. torch's libnccl.so.2 replaced by a partial copy (interrupted download), own mount namespace
NCCLLIB=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))")
ls -la "$NCCLLIB"
head -c $(( $(stat -c %s "$NCCLLIB") / 2 )) "$NCCLLIB" > /tmp/x-libnccl-partial.so.2; ls -la /tmp/x-libnccl-partial.so.2
printf '#!/bin/sh\nmount --bind /tmp/x-libnccl-partial.so.2 "%s" && exec "$@"\n' "$NCCLLIB" > /tmp/x-nccl-partial.sh
chmod +x /tmp/x-nccl-partial.sh
(
  name=vllm026-torch-libnccl-partial-copy
  echo "== $name: $NCCLLIB replaced by its first half; vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8716"
  timeout -s INT -k 15 80 unshare -m /tmp/x-nccl-partial.sh $VS /tmp/tiny $TINY_ARGS $GMU --port 8716 > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 12. data parallel 2 on one GPU
serve vllm026-data-parallel-size-2-on-1gpu 100 /tmp/tiny $TINY_ARGS $GMU --data-parallel-size 2 --port 8717 &
J="$J $!"
sleep 45; echo "GPU apps at 45 s: $(gpu_apps | tr '\n' ' ')"
wait $J
kill $HOLDER 2>/dev/null
fi

if [ "$X_PART" = 3 ]; then
nvidia-smi --query-gpu=memory.used --format=csv,noheader
# 13. DP 2 over 2 nodes, the worker pointed at another RPC port than the head's
(
  name=vllm026-2nodes-dp2-worker-wrong-rpc-port
  log="$OUT/logs/$name.log"; : > "$log"
  echo "== $name: node1: vllm serve /tmp/tiny $TINY_ARGS $GMU --headless --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13472"
  echo "   node0: vllm serve /tmp/tiny $TINY_ARGS $GMU --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13471 --port 8721"
  timeout -s INT -k 15 90 $VS /tmp/tiny $TINY_ARGS $GMU --headless --data-parallel-size 2 --data-parallel-size-local 1 \
    --data-parallel-start-rank 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13472 >> "$log" 2>&1 &
  p1=$!
  timeout -s INT -k 15 90 $VS /tmp/tiny $TINY_ARGS $GMU --data-parallel-size 2 --data-parallel-size-local 1 \
    --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13471 --port 8721 >> "$log" 2>&1 &
  p0=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
) &
J="$!"
# 14. ulimit -n 32
( ulimit -n 32; echo "ulimit -n: soft $(ulimit -Sn) hard $(ulimit -Hn)"
  serve vllm026-ulimit-n-32 80 /tmp/tiny $TINY_ARGS $GMU --port 8722 ) &
J="$J $!"
# 15. FlashInfer attention backend without flashinfer
serve vllm026-attention-backend-flashinfer-not-installed 90 /tmp/tiny $TINY_ARGS $GMU --attention-backend FLASHINFER --port 8723 &
J="$J $!"
# 16. GLOO_SOCKET_IFNAME an interface without an address
IF16=$(noaddr_if ifb1 ifb0); echo "no-address interface for Gloo: $IF16"
pair vllm026-2nodes-tp2-gloo-socket-ifname-$IF16-no-address 100 29946 8724 /tmp/tiny \
  "$H0 GLOO_SOCKET_IFNAME=$IF16" "$H1 GLOO_SOCKET_IFNAME=$IF16" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 17. healthy but noisy: debug logging, one request, SIGINT
(
  name=vllm026-logging-level-debug-served-ok
  echo "== $name: VLLM_LOGGING_LEVEL=DEBUG vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8725"
  VLLM_LOGGING_LEVEL=DEBUG timeout -s INT -k 15 115 $VS /tmp/tiny $TINY_ARGS $GMU --port 8725 > "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request
for i in range(100):
    try:
        urllib.request.urlopen('http://localhost:8725/health', timeout=2); break
    except Exception:
        time.sleep(1)
req = urllib.request.Request('http://localhost:8725/v1/completions', data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
print('   completion:', urllib.request.urlopen(req, timeout=30).read()[:200])" || true
  kill -INT $S; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
sleep 45; echo "GPU apps at 45 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
cleanup_gpu
