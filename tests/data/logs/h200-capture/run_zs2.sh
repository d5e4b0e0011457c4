#!/usr/bin/env bash
# Z87 capture run ZS2 (second, shorter call): vLLM 0.26.0 / Ray 2.52.1 / torch 2.11 faults made on purpose on the H200.
# Call (p00..p06 copied to /tmp/stage/ by earlier calls; p07 carried in this one):
#   timeout -k 10 560 bash .device/Z87/run_zs2.sh 2>&1 | tee $OUT/run_zs2.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z87
mkdir -p $Z "$OUT/logs" /tmp/stage
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 4 "$OUT/logs/$1.log" | cut -c1-220 | sed 's/^/      /'; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM
cp .device/stage/parts/p07 /tmp/stage/p07
ls -la /tmp/stage
cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl 2>&1 | tail -n 3
[ -d /tmp/site/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
python3 $D/prep.py 2>&1 | tail -n 1
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
VS="python3 -m vllm.entrypoints.cli.main serve"
M=/workspace/models/tiny-llama
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
# two "nodes": network namespaces held by sleepers, wired with a veth (eth1 10.87.N.1 <-> 10.87.N.2)
nodepair() { unshare -n sleep 540 & NA=$!; unshare -n sleep 540 & NB=$!; sleep 0.4
  python3 $D/netns.py veth $NA 10.87.$1.1 $NB 10.87.$1.2; }
on() { local p=$1; shift; nsenter -n -t $p "$@"; }
J=""
two() {  # two N NAME PORT NODE1_EXTRA NODE0_EXTRA CLIENT_ACTIONS... : vLLM TP 2 over two netns nodes
  local n=$1 name=$2 port=$3 e1=$4 e0=$5; shift 5; local log=$OUT/logs/$name.log; nodepair $n
  local C="$TA --tensor-parallel-size 2 --nnodes 2 --master-addr 10.87.$n.1 --master-port 2987$n"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1 (10.87.$n.2): \$ $E VLLM_HOST_IP=10.87.$n.2 vllm serve $M $C $e1 --node-rank 1 --headless"
    echo "# node 0 (10.87.$n.1): \$ $E VLLM_HOST_IP=10.87.$n.1 vllm serve $M $C $e0 --node-rank 0 --port $port"; } > $log
  on $NB env NCCL_HOSTID=node1 NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 VLLM_HOST_IP=10.87.$n.2 timeout -s INT -k 10 220 $VS $M $C $e1 --node-rank 1 --headless >> $log 2>&1 &
  P1=$!
  on $NA env NCCL_HOSTID=node0 NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 VLLM_HOST_IP=10.87.$n.1 timeout -s INT -k 10 220 $VS $M $C $e0 --node-rank 0 --port $port >> $log 2>&1 &
  local p0=$!
  echo $NB > $Z/p1.$n   # node 1 = the network namespace held by $NB
  CL_TO=60 on $NA python3 $D/cl.py $port 170 "$@" > $Z/cl.$n 2>&1
  for i in $(seq 40); do kill -0 $p0 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $P1 2>/dev/null; wait $p0; local r0=$?; wait $P1; local r1=$?
  cat $Z/cl.$n; fin $name "node0 $r0 node1 $r1"; killns $NA $NB; kill $NA $NB; }
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
# X1 other: TP 2 over two nodes, serving; node 1 crashes (every process on node 1 SIGKILLed, spot instance reclaimed)
( two 3 h200-vllm026-2nodes-tp2-serving-node1-processes-sigkilled 8881 "$KV" "$KV" ok ok "sh:python3 $D/killnode.py 3" sleep:3 ok ok ) & J="$J $!"
# X2 resources: TP 2 over two nodes, KV cache sized by hand at 256 KiB per GPU, max model len 2048
( two 4 h200-vllm026-2nodes-tp2-kv-cache-memory-bytes-256k-max-model-len-2048 8882 "--kv-cache-memory-bytes 256K" "--kv-cache-memory-bytes 256K" ok ) & J="$J $!"
sleep 60; ts "running; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
tar -C $OUT -cf $OUT/logs.tar logs && rm -rf $OUT/logs
