#!/usr/bin/env bash
# Capture run Z (session 7, collector Z40): a blind batch, real `vllm serve` (vLLM 0.26.0) at TP 1
# or as several "nodes" on the one GPU (node 0 + --headless nodes, one shared log, NCCL_HOSTID per
# node) as in run_p.sh..run_x.sh. The wheel is staged as 52 MiB chunks joined into /tmp/part0
# (part1..4 empty), as in run_q.sh..run_x.sh. Carry: .device/validate/whl. Small servers use
# --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that servers starting together do
# not count each other.
# Z_PART=1 (installs first), in parallel:
#   1. partitioning: a Qwen2.5-7B shape (28 heads, 4 KV heads), TP 3 over 3 "nodes" (--nnodes 3)
#   2. partitioning: a BERT-base encoder (BertModel, an embedding model), PP 2 over 2 nodes
#   3. versions: vLLM installed without one of its dependencies (msgspec absent: a
#      `pip install --no-deps` install into an image that lacks it)
#   4. resources: --kv-cache-memory-bytes 320G (a KV budget sized for a whole node) on one GPU
#   5. resources: a Llama-2-7B shape with --cpu-offload-gb 24 in a container limited to 10 GiB of
#      memory (cgroup v2 memory.max 10G, no swap)
#   6. network: TP 2 over 2 nodes, node 1 in a network namespace of its own (a container started
#      with --network none), --master-addr the head's eth0 address
#   7. communication: TP 2 over 2 nodes, NCCL_TOPO_FILE pointing at `nvidia-smi topo -m` text
#      saved as an .xml file, NCCL_DEBUG=INFO
# Z_PART=2 (same warm machine), in parallel:
#   8. resources: a first server (--gpu-memory-utilization 0.6) whose API server is killed with
#      SIGKILL once healthy, leaving its EngineCore holding the GPU; a new server at the default
#      --gpu-memory-utilization (the set-up of run_w.sh's fault 2, cut there by the time limit)
#   9. versions: TP 2 over 2 nodes, node 1 with LD_PRELOAD of the system libnccl.so.2 (2.28.3),
#      node 0 torch's NCCL 2.28.9
#  10. visibility: TP 2 over 2 nodes, node 1 with CUDA_VISIBLE_DEVICES="" (a job step given no GPU)
#  11. network: --host fd00::99 (an IPv6 address of another machine)
#  12. healthy but noisy: TP 2 over 2 nodes with an Azure-style NCCL environment (NCCL_TOPO_FILE of
#      a file that is not there, NCCL_IB_PCI_RELAXED_ORDERING=1, NCCL_SOCKET_IFNAME=eth0,
#      NCCL_DEBUG=INFO); one request served, SIGINT
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
Z_PART=${Z_PART:-1}
OUT=$(cd "$OUT" && pwd)
if [ "$Z_PART" = 1 ] || [ ! -d /tmp/site/vllm ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

# pair NAME LIMIT MPORT PORT MODEL ENV0 ENV1 ADDR0 ADDR1 ARGS...: node 1's extra args in $N1EXTRA,
# a command put before python3 on node 0/1 in $WRAP0/$WRAP1 (as in run_x.sh)
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
eth0_ip() {
  python3 - <<'PY'
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    print(socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, struct.pack('256s', b'eth0'))[20:24]))
except OSError:
    print('127.0.0.1')
PY
}
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VS="python3 -m vllm.entrypoints.cli.main serve"
export NCCL_NVLS_ENABLE=0

if [ "$Z_PART" = 1 ]; then
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader
IP0=$(eth0_ip); echo "eth0 IPv4: $IP0"
unshare -n true && echo "unshare -n: ok" || echo "unshare -n: FAILED"
python3 - <<'PY'
import traceback
def make(fn):
    try:
        fn(); print("written:", fn.__name__)
    except Exception:
        traceback.print_exc()
def qwen7b():  # Qwen2.5-7B shape: 28 heads, 4 KV heads
    from transformers import Qwen2Config
    c = Qwen2Config(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
                    num_key_value_heads=4, vocab_size=152064, max_position_embeddings=32768)
    c.architectures = ["Qwen2ForCausalLM"]; c.save_pretrained("/tmp/z-qwen2.5-7b")
def bert():  # bert-base-uncased shape, an encoder served as an embedding model
    from transformers import BertConfig
    c = BertConfig(); c.architectures = ["BertModel"]; c.save_pretrained("/tmp/z-bert-base")
for f in (qwen7b, bert):
    make(f)
PY
# vLLM without msgspec: a copy of the install (hard links) with msgspec removed
cp -al /tmp/site /tmp/z-nodeps && rm -rf /tmp/z-nodeps/msgspec /tmp/z-nodeps/msgspec-*.dist-info
PYTHONPATH=/tmp/z-nodeps python3 -c "import msgspec" 2>&1 | tail -1
# `nvidia-smi topo -m` output saved as the NCCL topology file
nvidia-smi topo -m > /tmp/z-nccl-topo.xml; head -c 300 /tmp/z-nccl-topo.xml | cat -A | head -3

# 1. Qwen2.5-7B shape (28 heads), TP 3 over 3 nodes
(
  name=vllm026-3nodes-tp3-qwen2.5-7b-28-heads
  log="$OUT/logs/$name.log"; : > "$log"
  A="/tmp/z-qwen2.5-7b $TINY_ARGS $GMU --tensor-parallel-size 3 --nnodes 3 --master-addr 127.0.0.1 --master-port 29981"
  echo "== $name: node r (r=2,1 headless, then 0): NCCL_HOSTID=node<r> vllm serve $A --node-rank <r> [--headless | --port 8801]"
  env NCCL_HOSTID=node2 timeout -s INT -k 10 60 $VS $A --node-rank 2 --headless >> "$log" 2>&1 &
  q2=$!
  env NCCL_HOSTID=node1 timeout -s INT -k 10 60 $VS $A --node-rank 1 --headless >> "$log" 2>&1 &
  q1=$!
  env NCCL_HOSTID=node0 timeout -s INT -k 10 60 $VS $A --node-rank 0 --port 8801 >> "$log" 2>&1 &
  q0=$!
  wait $q0; r0=$?; wait $q1; r1=$?; wait $q2; r2=$?
  echo "   $name rc node0 $r0 node1 $r1 node2 $r2  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
) &
J="$!"
# 2. BERT (embedding model), PP 2 over 2 nodes
pair vllm026-2nodes-pp2-bert-base-embedding 60 29982 8802 /tmp/z-bert-base "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --pipeline-parallel-size 2 &
J="$J $!"
# 3. msgspec missing
( export PYTHONPATH=/tmp/z-nodeps
  serve vllm026-installed-no-deps-msgspec-missing 60 /tmp/tiny $TINY_ARGS $GMU --port 8803 ) &
J="$J $!"
# 4. a KV-cache budget larger than the GPU
serve vllm026-kv-cache-memory-bytes-320g-on-one-gpu 120 /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.05 \
  --kv-cache-memory-bytes 320G --port 8804 &
J="$J $!"
# 5. CPU weight offload larger than the container's memory limit (cgroup v2, as in run_k.sh)
(
  CG=/sys/fs/cgroup/z40
  mkdir -p $CG; grep -q memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
  echo 10G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  echo "memory cgroup $CG: memory.max $(cat $CG/memory.max)"
  ( echo $BASHPID > $CG/cgroup.procs && serve vllm026-cpu-offload-24g-in-10g-container 120 /tmp/llama7b-128k $TINY_ARGS $GMU \
      --max-model-len 4096 --cpu-offload-gb 24 --port 8805 )
  echo "   cgroup memory.events: $(tr '\n' ' ' < $CG/memory.events)"
  sleep 2; rmdir $CG 2>/dev/null
) &
J="$J $!"
# 6. node 1 without network (own network namespace), master at the head's eth0 address
( WRAP1="unshare -n"
  pair vllm026-2nodes-tp2-node1-network-none 100 29986 8806 /tmp/tiny "$H0" "$H1" "$IP0" "$IP0" \
    $GMU --tensor-parallel-size 2 ) &
J="$J $!"
# 7. NCCL_TOPO_FILE = nvidia-smi topo -m text
pair vllm026-2nodes-tp2-nccl-topo-file-not-xml 110 29987 8807 /tmp/tiny \
  "$H0 NCCL_TOPO_FILE=/tmp/z-nccl-topo.xml NCCL_DEBUG=INFO" "$H1 NCCL_TOPO_FILE=/tmp/z-nccl-topo.xml NCCL_DEBUG=INFO" \
  127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
J="$J $!"
sleep 50; echo "GPU apps at 50 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$Z_PART" = 2 ]; then
nvidia-smi --query-gpu=memory.used --format=csv,noheader
SYSNCCL=$(ldconfig -p | awk '/libnccl\.so\.2 /{print $NF; exit}')
echo "system libnccl: $SYSNCCL -> $(readlink -f "$SYSNCCL")"
# 8. an orphaned EngineCore holds the GPU; a new server at the default utilization
(
  name=vllm026-orphan-enginecore-after-api-server-kill-9
  echo "== $name: first: vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.6 --port 8812; kill -9 of its API server; then vllm serve /tmp/tiny $TINY_ARGS --port 8822"
  $VS /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.6 --port 8812 > /tmp/z-first-server.log 2>&1 &
  S=$!
  python3 -c "
import time, urllib.request
for i in range(100):
    try:
        urllib.request.urlopen('http://localhost:8812/health', timeout=2); print('   first server healthy after', i, 's'); break
    except Exception:
        time.sleep(1)"
  KIDS=$(python3 -c "import psutil; print(' '.join(str(c.pid) for c in psutil.Process($S).children(recursive=True)))")
  echo "   first server pid $S, children: $KIDS"
  kill -9 $S; wait $S 2>/dev/null; sleep 2
  echo "   GPU apps after kill -9: $(gpu_apps | tr '\n' ' ')"
  {
    echo "$ nvidia-smi"
    nvidia-smi
    echo "$ vllm serve /tmp/tiny $TINY_ARGS --port 8822"
    timeout -s INT -k 10 75 $VS /tmp/tiny $TINY_ARGS --port 8822
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
  echo "   first server log tail:"; tail -n 2 /tmp/z-first-server.log | cut -c1-200
  for k in $KIDS; do kill -9 $k 2>/dev/null; done
) &
J="$!"
# 9. node 1 preloads the system NCCL
pair vllm026-2nodes-tp2-node1-ld-preload-system-nccl 110 29989 8809 /tmp/tiny "$H0" "$H1 LD_PRELOAD=$SYSNCCL" \
  127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
J="$J $!"
# 10. node 1 given no GPU
pair vllm026-2nodes-tp2-node1-cuda-visible-devices-empty 80 29990 8810 /tmp/tiny "$H0" "$H1 CUDA_VISIBLE_DEVICES=" \
  127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
J="$J $!"
# 11. --host an IPv6 address of another machine
serve vllm026-host-ipv6-not-on-this-node 60 /tmp/tiny $TINY_ARGS $GMU --host fd00::99 --port 8811 &
J="$J $!"
# 12. healthy but noisy: an Azure-style NCCL environment, one request
(
  name=vllm026-2nodes-tp2-azure-nccl-env-served-ok
  log="$OUT/logs/$name.log"; : > "$log"
  AZ="NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml NCCL_IB_PCI_RELAXED_ORDERING=1 NCCL_SOCKET_IFNAME=eth0 NCCL_DEBUG=INFO"
  A="/tmp/tiny $TINY_ARGS $GMU --tensor-parallel-size 2 --nnodes 2 --master-addr 127.0.0.1 --master-port 29992"
  echo "== $name: node1: $H1 $AZ vllm serve $A --node-rank 1 --headless; node0: $H0 $AZ vllm serve $A --node-rank 0 --port 8813"
  env $H1 $AZ timeout -s INT -k 15 150 $VS $A --node-rank 1 --headless >> "$log" 2>&1 &
  p1=$!
  env $H0 $AZ timeout -s INT -k 15 150 $VS $A --node-rank 0 --port 8813 >> "$log" 2>&1 &
  p0=$!
  python3 -c "
import json, time, urllib.request
for i in range(130):
    try:
        urllib.request.urlopen('http://localhost:8813/health', timeout=2); break
    except Exception:
        time.sleep(1)
req = urllib.request.Request('http://localhost:8813/v1/completions', data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
print('   completion:', urllib.request.urlopen(req, timeout=30).read()[:200])" || true
  kill -INT $p0; sleep 2; kill -INT $p1
  wait $p0; r0=$?; wait $p1; r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
) &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
cleanup_gpu
