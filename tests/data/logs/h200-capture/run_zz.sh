#!/usr/bin/env bash
# Z138 capture run ZZ: multi-process / multi-"node" start-up faults made on purpose on the H200 (one batch call).
# vLLM 0.26.0 (mp backend --nnodes/--headless, vllm.LLM offline DP, data parallel on Ray 2.52.1) and plain torch 2.11.
# "Nodes" are network + UTS + mount namespaces (own hostname, /etc/hosts, /tmp/ray) joined by a veth (eth1,
# 10.138.N.1 <-> 10.138.N.2), sharing the one GPU (NCCL_HOSTID per node; the "# node" command lines leave it out).
# Staging (earlier calls): the vLLM tar as 40 MB pieces q00..q07 (.device/Z137s/, re-split by Z137: a 46 MB pNN piece
# no longer fits one call) and the Ray wheel as s0, s1 (.device/Z138s/) copied to /tmp/stage/; q08 is carried in this call.
# Call: timeout -k 10 560 bash .device/Z138/run_zz.sh 2>&1 | tee $OUT/run_zz.out
# Second call (machine cold again, Ray not staged): JOBS="b1 b2" NORAY=1 LATEST=60 timeout -k 10 300 bash .device/Z138/run_zz.sh
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z138
L=$Z/out/logs   # logs live here; logs.tar in $OUT is refreshed after every job
mkdir -p $Z $Z/act $L /tmp/stage /tmp/ray /workspace/models
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-300}   # no job is started after t+LATEST s
LIMIT=${LIMIT:-5}       # vLLM server processes at once (a two-node job counts 2)
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
pack() { tar -C $Z/out -cf $OUT/logs.tar.part logs 2>/dev/null && mv $OUT/logs.tar.part $OUT/logs.tar; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"; grep -v '^frame #' "$L/$1.log" | tail -n 6 | cut -c1-230 | sed 's/^/      /'; pack; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM + Ray
if [ ! -d $SITE/vllm ]; then
  cp .device/Z137s/q08 /tmp/stage/q08
  ls -la /tmp/stage
  cat /tmp/stage/q0[0-8] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  W=/tmp/wx/whl/ray-2.52.1-cp312-cp312-manylinux2014_x86_64.whl
  if [ -z "${NORAY:-}" ]; then   # NORAY=1 (second call): Ray not staged
    cat /tmp/stage/s0 /tmp/stage/s1 > $W
    echo "843c0108ad72bb7fc6c23a22e29e6099546a5eaad3ad675c78a146d9080f6ec6  $W" | sha256sum -c || exit 3
  fi
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] && { [ -n "${NORAY:-}" ] || [ -d $SITE/ray ]; } || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
M=/workspace/models/tiny-llama
BIG=/workspace/models/llama-3-8b-16l-pt
python3 $D/prep.py tiny
BIGP=""; case "${JOBS:-v1}" in *v1*) python3 $D/prep.py bigpt $BIG > $Z/bigpt.out 2>&1 & BIGP=$! ;; esac
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
cleanup() { killns "$@"; kill -9 "$@" 2>/dev/null; }
# mknode KEY HOSTNAME HOSTS_LINES [EXTRA_MOUNT_CMDS]: a "node" = sleeper in new net+uts+mount namespaces with its own
# hostname, /etc/hosts and /tmp/ray; sets NODE
mknode() { local k=$1 hn=$2 lines=$3 extra=${4:-}
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%b' "$lines" > $Z/hosts-$k
  mkdir -p $Z/ray-$k
  unshare -n -u -m sh -c "hostname $hn && mount --bind $Z/hosts-$k /etc/hosts && mount --bind $Z/ray-$k /tmp/ray $extra && exec sleep 590" > $Z/mknode-$k.err 2>&1 &
  NODE=$!; sleep 0.5; }
# nodepair N [EXTRA]: gpu-node-0 (10.138.N.1) and gpu-node-1 (10.138.N.2) on eth1; sets NA NB A B
nodepair() { local n=$1 extra=${2:-}; A=10.138.$n.1; B=10.138.$n.2
  local h="$A\tgpu-node-0\n$B\tgpu-node-1\n"
  mknode ${n}a gpu-node-0 "$h" "$extra"; NA=$NODE
  mknode ${n}b gpu-node-1 "$h" "$extra"; NB=$NODE
  python3 $D/netq.py veth $NA $A eth1 $NB $B eth1; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
# pairwait P0 P1 LIMIT GRACE: wait until one node's process ends (or LIMIT s), give the other GRACE s, then SIGINT, SIGKILL
pairwait() { local p0=$1 p1=$2 lim=$3 g=${4:-25} i
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null; }
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() {  # launch WEIGHT NAME FUNC
  local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"
}
# vstart NODEPID NODE_ENV ARGS LOG [MODEL]: start vllm serve in a node, in the background; sets VP
vstart() { local p=$1 e=$2 a=$3 log=$4 m=${5:-$M}
  nsenter -n -u -m -t $p env $e timeout -s INT -k 10 400 $VS $m $a >> $log 2>&1 & VP=$!; }
hdr() { echo "# node $1 ($(on $2 hostname), $3): \$ $4" >> $5; }
TP2="$TA $KV --tensor-parallel-size 2 --nnodes 2 --master-port 29501"

# ================================================================ vLLM
# ---- V2 communication: TP 2 over two nodes; node 1's env file adds --kv-cache-dtype fp8 (an fp8-KV rollout started on
#      one node only), node 0 runs the default (bf16) KV cache
j_v2() { local name=h200-vllm026-2nodes-tp2-node1-kv-cache-dtype-fp8-node0-auto log=$L/h200-vllm026-2nodes-tp2-node1-kv-cache-dtype-fp8-node0-auto.log
  nodepair 2 > $Z/pair.2 2>&1; cat $Z/pair.2; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local a1="$TP2 --master-addr $A --node-rank 1 --headless --kv-cache-dtype fp8" a0="$TP2 --master-addr $A --node-rank 0 --port 8201"
  hdr 1 $NB $B "$E VLLM_HOST_IP=$B vllm serve $M $a1" $log; hdr 0 $NA $A "$E VLLM_HOST_IP=$A vllm serve $M $a0" $log
  vstart $NB "NCCL_HOSTID=node1 $E VLLM_HOST_IP=$B" "$a1" $log; local p1=$VP; sleep 3
  vstart $NA "NCCL_HOSTID=node0 $E VLLM_HOST_IP=$A" "$a0" $log; local p0=$VP
  pairwait $p0 $p1 150 20; wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }
# ---- V4 healthy: TP 2 over two nodes; the headless node 1 is started 30 s before the head (its TCPStore client retries
#      "Connection refused" until the head is up); then two requests served; SIGINT to the head, then node 1
j_v4() { local name=h200-vllm026-2nodes-tp2-headless-started-30s-before-head-retries-served-ok log=$L/h200-vllm026-2nodes-tp2-headless-started-30s-before-head-retries-served-ok.log
  nodepair 4 > $Z/pair.4 2>&1; cat $Z/pair.4; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local a1="$TP2 --master-addr $A --node-rank 1 --headless" a0="$TP2 --master-addr $A --node-rank 0 --port 8204"
  hdr 1 $NB $B "$E VLLM_HOST_IP=$B vllm serve $M $a1" $log
  vstart $NB "NCCL_HOSTID=node1 $E VLLM_HOST_IP=$B" "$a1" $log; local p1=$VP; sleep 30
  hdr 0 $NA $A "$E VLLM_HOST_IP=$A vllm serve $M $a0" $log
  vstart $NA "NCCL_HOSTID=node0 $E VLLM_HOST_IP=$A" "$a0" $log; local p0=$VP
  on $NA env ZC_TO=60 python3 $D/zc.py 8204 160 ok ok >> $log 2>&1
  sleep 2; kill -INT $p0 2>/dev/null; sleep 8; kill -INT $p1 2>/dev/null
  pairwait $p0 $p1 40 20; wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }
# ---- V6 partitioning: TP 2 over two nodes; node 1 launched with --node-rank 2 (nodes numbered 1..N in the inventory),
#      60 s distributed timeout on both
j_v6() { local name=h200-vllm026-2nodes-tp2-node1-node-rank-2-of-nnodes-2 log=$L/h200-vllm026-2nodes-tp2-node1-node-rank-2-of-nnodes-2.log
  nodepair 6 > $Z/pair.6 2>&1; cat $Z/pair.6; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local a0="$TP2 --master-addr $A --node-rank 0 --port 8206 --distributed-timeout-seconds 60" a1="$TP2 --master-addr $A --node-rank 2 --headless --distributed-timeout-seconds 60"
  hdr 0 $NA $A "$E VLLM_HOST_IP=$A vllm serve $M $a0" $log; hdr 1 $NB $B "$E VLLM_HOST_IP=$B vllm serve $M $a1" $log
  vstart $NA "NCCL_HOSTID=node0 $E VLLM_HOST_IP=$A" "$a0" $log; local p0=$VP; sleep 3
  vstart $NB "NCCL_HOSTID=node1 $E VLLM_HOST_IP=$B" "$a1" $log; local p1=$VP
  # node 1 fails at once; wait for the head itself (up to 150 s)
  local i; for i in $(seq 150); do kill -0 $p0 2>/dev/null || break; sleep 1; done
  pairwait $p0 $p1 1 5; wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }
# ---- V1 resources: TP 2 over two nodes with a real PyTorch checkpoint (one 7.5 GB pytorch_model.bin, Llama shape);
#      node 1's vLLM runs in a memory cgroup with memory.max 5G, no swap (a container limit sized for dummy tests):
#      torch.load of the whole .bin is killed by the OOM killer during weight loading
j_v1() { local name=h200-vllm026-2nodes-tp2-node1-memory-max-5g-pytorch-bin-load-oom-killed log=$L/h200-vllm026-2nodes-tp2-node1-memory-max-5g-pytorch-bin-load-oom-killed.log
  wait_big; nodepair 1 > $Z/pair.1 2>&1; cat $Z/pair.1; echo "== $name  [t+$((SECONDS - T0))s]"
  local CG=/sys/fs/cgroup/z138_node1; mkdir -p $CG; echo 5G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local B1="--skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08 $KV --tensor-parallel-size 2 --nnodes 2 --master-port 29501"
  local a1="$B1 --master-addr $A --node-rank 1 --headless" a0="$B1 --master-addr $A --node-rank 0 --port 8201"
  hdr 1 $NB "$B, container memory limit 5G" "$E VLLM_HOST_IP=$B vllm serve $BIG $a1" $log
  hdr 0 $NA $A "$E VLLM_HOST_IP=$A vllm serve $BIG $a0" $log
  sh -c "echo \$\$ > $CG/cgroup.procs && exec nsenter -n -u -m -t $NB env NCCL_HOSTID=node1 $E VLLM_HOST_IP=$B timeout -s INT -k 10 400 $VS $BIG $a1" >> $log 2>&1 &
  local p1=$!; sleep 3
  vstart $NA "NCCL_HOSTID=node0 $E VLLM_HOST_IP=$A" "$a0" $log $BIG; local p0=$VP
  pairwait $p0 $p1 180 60; wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   node 1 cgroup: memory.events: $(tr '\n' ' ' < $CG/memory.events)  memory.peak: $(cat $CG/memory.peak 2>/dev/null)"
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB
  for p in $(cat $CG/cgroup.procs 2>/dev/null); do kill -9 $p; done; sleep 1; rmdir $CG 2>/dev/null; }
wait_big() { local i; for i in $(seq 120); do kill -0 $BIGP 2>/dev/null || break; sleep 1; done; cat $Z/bigpt.out; }
# ---- V3 network: Ray 2.52 cluster of two 1-GPU nodes; the worker node's `ray start` ran in a shell with
#      CUDA_VISIBLE_DEVICES= (a CPU-node template), so Ray registered no GPU there; vllm serve DP 2 (1 per node) on Ray
j_v3() { local name=h200-vllm026-ray-dp2-worker-node-ray-start-cuda-visible-devices-empty log=$L/h200-vllm026-ray-dp2-worker-node-ray-start-cuda-visible-devices-empty.log
  nodepair 3 > $Z/pair.3 2>&1; cat $Z/pair.3; echo "== $name  [t+$((SECONDS - T0))s]"
  local R="--num-cpus 4 --object-store-memory 500000000 --disable-usage-stats"
  hdr 0 $NA $A "ray start --head --node-ip-address $A --port 6379 --num-gpus 1 --include-dashboard false $R" $log
  on $NA env NCCL_HOSTID=node0 timeout 90 ray start --head --node-ip-address $A --port 6379 --num-gpus 1 --include-dashboard false $R >> $log 2>&1
  hdr 1 $NB $B "CUDA_VISIBLE_DEVICES= ray start --address $A:6379 --node-ip-address $B $R" $log
  on $NB env NCCL_HOSTID=node1 CUDA_VISIBLE_DEVICES= timeout 90 ray start --address $A:6379 --node-ip-address $B $R >> $log 2>&1
  echo "# node 0: \$ ray status" >> $log
  on $NA env RAY_ADDRESS=$A:6379 timeout 40 ray status >> $log 2>&1
  ts "$name: ray up"
  local a="$TA $KV --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-backend ray --port 8203"
  echo "# node 0: \$ VLLM_HOST_IP=$A RAY_ADDRESS=$A:6379 vllm serve $M $a" >> $log
  on $NA env NCCL_HOSTID=node0 VLLM_HOST_IP=$A RAY_ADDRESS=$A:6379 timeout -s INT -k 10 150 $VS $M $a >> $log 2>&1
  fin $name $?; cleanup $NA $NB; }
# ---- V5 partitioning: offline data parallel (vllm.LLM, one process per DP rank, as vLLM's data_parallel.py example)
#      on a dense Llama, two nodes, VLLM_DP_SIZE=2
j_v5() { local name=h200-vllm026-offline-dp2-llm-dense-llama-two-nodes log=$L/h200-vllm026-offline-dp2-llm-dense-llama-two-nodes.log
  nodepair 5 > $Z/pair.5 2>&1; cat $Z/pair.5; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="VLLM_DP_SIZE=2 VLLM_DP_MASTER_IP=$A VLLM_DP_MASTER_PORT=13345 VLLM_DP_RANK_LOCAL=0"
  hdr 0 $NA $A "$E VLLM_DP_RANK=0 python3 odp.py" $log; hdr 1 $NB $B "$E VLLM_DP_RANK=1 python3 odp.py" $log
  on $NA env NCCL_HOSTID=node0 $E VLLM_DP_RANK=0 timeout -k 5 90 python3 $D/odp.py >> $log 2>&1 & local p0=$!
  on $NB env NCCL_HOSTID=node1 $E VLLM_DP_RANK=1 timeout -k 5 90 python3 $D/odp.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }

# ================================================================ plain torch 2.11
# ---- T1 communication: srun-style launch (python3 per node, env from the job script); node 1's env still says
#      WORLD_SIZE=3 (from the 3-node version of the job), node 0 WORLD_SIZE=2; NCCL over eth1, NCCL_DEBUG=WARN
j_t1() { local name=h200-2nodes-torch-nccl-node1-world-size-3-node0-world-size-2 log=$L/h200-2nodes-torch-nccl-node1-world-size-3-node0-world-size-2.log
  nodepair 7 > $Z/pair.7 2>&1; cat $Z/pair.7; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="MASTER_ADDR=$A MASTER_PORT=29510 NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN DJ_BACKEND=nccl DJ_TIMEOUT=30"
  hdr 0 $NA $A "$E RANK=0 WORLD_SIZE=2 python3 dj.py" $log; hdr 1 $NB $B "$E RANK=1 WORLD_SIZE=3 python3 dj.py" $log
  on $NA env NCCL_HOSTID=node0 $E RANK=0 WORLD_SIZE=2 timeout -k 5 75 python3 $D/dj.py >> $log 2>&1 & local p0=$!
  on $NB env NCCL_HOSTID=node1 $E RANK=1 WORLD_SIZE=3 timeout -k 5 75 python3 $D/dj.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }
# ---- T2 network: gloo job with init_method file:///mnt/scratch/dist-init/job-4711, but /mnt/scratch is node-local
#      scratch (a private tmpfs on each node), not the shared filesystem; 30 s timeout
j_t2() { local name=h200-2nodes-torch-gloo-file-init-method-on-node-local-scratch log=$L/h200-2nodes-torch-gloo-file-init-method-on-node-local-scratch.log
  nodepair 8 "&& mount -t tmpfs -o size=64m scratch /mnt && mkdir -p /mnt/scratch/dist-init" > $Z/pair.8 2>&1; cat $Z/pair.8
  echo "== $name  [t+$((SECONDS - T0))s]"
  local E="DJ_BACKEND=gloo DJ_INIT=file:///mnt/scratch/dist-init/job-4711 DJ_TIMEOUT=30 WORLD_SIZE=2"
  hdr 0 $NA $A "$E RANK=0 python3 dj.py" $log; hdr 1 $NB $B "$E RANK=1 python3 dj.py" $log
  on $NA env $E RANK=0 timeout -k 5 75 python3 $D/dj.py >> $log 2>&1 & local p0=$!
  on $NB env $E RANK=1 timeout -k 5 75 python3 $D/dj.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   node 0 /mnt/scratch/dist-init: $(on $NA ls -la /mnt/scratch/dist-init | tr '\n' ' ')"
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }
# ---- T3 network: two Kubernetes pods without torchrun (env:// from the pod spec: MASTER_ADDR, RANK, WORLD_SIZE);
#      MASTER_PORT is not in the pod spec, and a Service named "master" in the namespace makes Kubernetes inject
#      MASTER_PORT=tcp://10.96.14.7:29500 (with MASTER_SERVICE_HOST etc.)
j_t3() { local name=h200-2pods-torch-nccl-k8s-service-master-injects-master-port-uri log=$L/h200-2pods-torch-nccl-k8s-service-master-injects-master-port-uri.log
  nodepair 9 > $Z/pair.9 2>&1; cat $Z/pair.9; echo "== $name  [t+$((SECONDS - T0))s]"
  local K="MASTER_SERVICE_HOST=10.96.14.7 MASTER_SERVICE_PORT=29500 MASTER_PORT=tcp://10.96.14.7:29500 MASTER_PORT_29500_TCP=tcp://10.96.14.7:29500 MASTER_PORT_29500_TCP_PROTO=tcp MASTER_PORT_29500_TCP_PORT=29500 MASTER_PORT_29500_TCP_ADDR=10.96.14.7"
  local E="MASTER_ADDR=$A WORLD_SIZE=2 NCCL_SOCKET_IFNAME=eth1 DJ_BACKEND=nccl"
  local r
  for r in 0 1; do local p; [ $r = 0 ] && p=$NA || p=$NB
    echo "# pod trainer-$r ($(on $p hostname)): \$ env | grep -E '^(MASTER|RANK|WORLD)' | sort" >> $log
    on $p env $K $E RANK=$r sh -c "env | grep -E '^(MASTER|RANK|WORLD)' | sort" >> $log
    echo "# pod trainer-$r: \$ python3 dj.py" >> $log; done
  on $NA env NCCL_HOSTID=node0 $K $E RANK=0 timeout -k 5 60 python3 $D/dj.py >> $log 2>&1 & local p0=$!
  on $NB env NCCL_HOSTID=node1 $K $E RANK=1 timeout -k 5 60 python3 $D/dj.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }
j_torch() { j_t3; j_t2; j_t1; }

# ================================================================ second call (JOBS="b1 b2" NORAY=1)
# ---- B1 versions: TP 2 over two nodes; node 1's service environment (an old training image profile) puts a vendored
#      typing_extensions 4.4.0 in /opt/app/vendor first on PYTHONPATH; node 0 is clean. 60 s distributed timeout.
j_b1() { local name=h200-vllm026-2nodes-tp2-node1-pythonpath-vendor-typing-extensions-4.4 log=$L/h200-vllm026-2nodes-tp2-node1-pythonpath-vendor-typing-extensions-4.4.log
  nodepair 11 > $Z/pair.11 2>&1; cat $Z/pair.11; echo "== $name  [t+$((SECONDS - T0))s]"
  on $NB sh -c "mkdir -p /opt/app && mount -t tmpfs -o size=64m vendor /opt/app && python3 -m pip install -q --no-index --no-deps --target /opt/app/vendor $D/typing_extensions-4.4.0-py3-none-any.whl" 2>&1 | tail -n 2
  on $NB ls /opt/app/vendor
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local a0="$TP2 --master-addr $A --node-rank 0 --port 8211 --distributed-timeout-seconds 60" a1="$TP2 --master-addr $A --node-rank 1 --headless --distributed-timeout-seconds 60"
  hdr 0 $NA $A "$E VLLM_HOST_IP=$A vllm serve $M $a0" $log
  hdr 1 $NB $B "PYTHONPATH=/opt/app/vendor:$SITE $E VLLM_HOST_IP=$B vllm serve $M $a1" $log
  vstart $NA "NCCL_HOSTID=node0 $E VLLM_HOST_IP=$A" "$a0" $log; local p0=$VP; sleep 3
  vstart $NB "NCCL_HOSTID=node1 PYTHONPATH=/opt/app/vendor:$SITE $E VLLM_HOST_IP=$B" "$a1" $log; local p1=$VP
  local i; for i in $(seq 150); do kill -0 $p0 2>/dev/null || break; sleep 1; done
  pairwait $p0 $p1 1 5; wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }
# ---- B2 visibility (torch): torchrun c10d over two nodes of one GPU each; node 1's launch line was copied from a
#      2-GPU node (--nproc-per-node 2); the script binds cuda:LOCAL_RANK
j_b2() { local name=h200-2nodes-torchrun-c10d-node1-nproc-per-node-2-on-1-gpu-node log=$L/h200-2nodes-torchrun-c10d-node1-nproc-per-node-2-on-1-gpu-node.log
  nodepair 12 > $Z/pair.12 2>&1; cat $Z/pair.12; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN DJ_BACKEND=nccl DJ_LOCAL=1 DJ_TIMEOUT=30"
  local C="--nnodes 2 --rdzv-backend c10d --rdzv-endpoint $A:29400 --rdzv-id llm-ft-0412"
  hdr 0 $NA $A "$E torchrun $C --nproc-per-node 1 dj.py" $log; hdr 1 $NB $B "$E torchrun $C --nproc-per-node 2 dj.py" $log
  on $NA env NCCL_HOSTID=node0 $E timeout -k 5 90 python3 -m torch.distributed.run $C --nproc-per-node 1 $D/dj.py >> $log 2>&1 & local p0=$!
  sleep 2
  on $NB env NCCL_HOSTID=node1 $E timeout -k 5 90 python3 -m torch.distributed.run $C --nproc-per-node 2 $D/dj.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }

# ================================================================ schedule
JOBS=${JOBS:-"v2 v4 v3 torch v5 v6 v1"}
for j in $JOBS; do
  case $j in
    v2|v4|v6|v1) launch 2 $j j_$j ;;
    v3|v5) launch 1 $j j_$j ;;
    torch|b2) launch 0 $j j_$j ;;
    b1) launch 2 $j j_$j ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack; ls -la $L
