#!/usr/bin/env bash
# Z87 capture run ZS: vLLM 0.26.0 / Ray 2.52.1 / torch 2.11 faults made on purpose on the H200.
# Call (p00..p06 and ray r0 copied to /tmp/stage/ by earlier calls; p07 and r1 carried in this one):
#   timeout -k 10 560 bash .device/Z87/run_zs.sh 2>&1 | tee $OUT/run_zs.out
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
# ---------------------------------------------------------------- install vLLM + Ray
cp .device/stage/parts/p07 /tmp/stage/p07; cp .device/stage/ray/r1 /tmp/stage/r1
ls -la /tmp/stage
cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
W=/tmp/wx/whl/ray-2.52.1-cp312-cp312-manylinux2014_x86_64.whl
cat /tmp/stage/r0 /tmp/stage/r1 > $W
echo "843c0108ad72bb7fc6c23a22e29e6099546a5eaad3ad675c78a146d9080f6ec6  $W" | sha256sum -c || exit 3
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl 2>&1 | tail -n 3
[ -d /tmp/site/vllm ] && [ -d /tmp/site/ray ] || { echo "not installed"; exit 5; }
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
# ---- N1 network: vLLM TP 2 over two nodes (mp backend, NCCL over sockets on eth1); serving fine, then node 1's link goes down
( name=h200-vllm026-2nodes-tp2-serving-node1-link-down; log=$OUT/logs/$name.log; nodepair 1
  C="$TA $KV --tensor-parallel-size 2 --nnodes 2 --master-addr 10.87.1.1 --master-port 29871"
  E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1 (10.87.1.2): \$ $E VLLM_HOST_IP=10.87.1.2 vllm serve $M $C --node-rank 1 --headless"
    echo "# node 0 (10.87.1.1): \$ $E VLLM_HOST_IP=10.87.1.1 vllm serve $M $C --node-rank 0 --port 8871"; } > $log
  on $NB env NCCL_HOSTID=node1 NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 VLLM_HOST_IP=10.87.1.2 timeout -s INT -k 10 260 $VS $M $C --node-rank 1 --headless >> $log 2>&1 &
  p1=$!
  on $NA env NCCL_HOSTID=node0 NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 VLLM_HOST_IP=10.87.1.1 timeout -s INT -k 10 260 $VS $M $C --node-rank 0 --port 8871 >> $log 2>&1 &
  p0=$!
  CL_TO=120 on $NA python3 $D/cl.py 8871 180 ok ok "sh:python3 $D/netns.py down $NB eth1" sleep:2 ok ok > $Z/n1.client 2>&1
  for i in $(seq 40); do kill -0 $p0 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null; wait $p0; r0=$?; wait $p1; r1=$?
  cat $Z/n1.client; fin $name "node0 $r0 node1 $r1"; kill $NA $NB ) & J="$J $!"
# ---- T1 network (torch): 2-node NCCL data-parallel loop over eth1; node 1's link goes down at step ~50
( name=h200-2nodes-torch-nccl-ddp-node1-link-down-mid-run; log=$OUT/logs/$name.log; nodepair 2
  E="MASTER_ADDR=10.87.2.1 MASTER_PORT=29872 WORLD_SIZE=2 NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT=30"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1 (10.87.2.2): \$ $E RANK=1 python3 ddp_steps.py"; echo "# node 0 (10.87.2.1): \$ $E RANK=0 python3 ddp_steps.py"; } > $log
  on $NB env NCCL_HOSTID=node1 MASTER_ADDR=10.87.2.1 MASTER_PORT=29872 WORLD_SIZE=2 RANK=1 NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT=30 timeout -k 10 200 python3 $D/ddp_steps.py >> $log 2>&1 &
  p1=$!
  on $NA env NCCL_HOSTID=node0 MASTER_ADDR=10.87.2.1 MASTER_PORT=29872 WORLD_SIZE=2 RANK=0 NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT=30 timeout -k 10 200 python3 $D/ddp_steps.py >> $log 2>&1 &
  p0=$!
  for i in $(seq 60); do grep -q "rank 0\] step 50" $log && break; sleep 1; done
  python3 $D/netns.py down $NB eth1 > $Z/t1.down 2>&1
  wait $p0; r0=$?; wait $p1; r1=$?; cat $Z/t1.down; fin $name "rank0 $r0 rank1 $r1"; kill $NA $NB ) & J="$J $!"
# ---- S1 healthy: KV cache of 4 MiB (4096 tokens) and 64 concurrent 200-token prompts generating 256 tokens: queueing / preemption, all served
( name=h200-vllm026-kv-cache-4mib-64-concurrent-requests-served-ok; log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ vllm serve $M $TA --kv-cache-memory-bytes 4M --max-num-seqs 64 --port 8872" > $log
  timeout -s INT -k 10 260 $VS $M $TA --kv-cache-memory-bytes 4M --max-num-seqs 64 --port 8872 >> $log 2>&1 &
  p=$!
  CL_TO=200 python3 $D/cl.py 8872 180 ok gen:64:256 ok >> $log 2>&1
  sleep 3; kill -INT $p; wait $p; fin $name $? ) & J="$J $!"
# ---- Ray: head without GPUs + worker node with the GPU (same host, two raylets); worker node's processes in a memory cgroup
( R="--num-cpus 4 --object-store-memory 1000000000 --disable-usage-stats"
  PH="--dashboard-agent-listen-port 52365 --dashboard-agent-grpc-port 52370 --metrics-export-port 52371 --runtime-env-agent-port 52372"
  PW="--dashboard-agent-listen-port 52366 --dashboard-agent-grpc-port 52373 --metrics-export-port 52374 --runtime-env-agent-port 52375"
  CG=/sys/fs/cgroup/z87_rayw; mkdir -p $CG
  RE="RAY_ADDRESS=127.0.0.1:6387 VLLM_HOST_IP=127.0.0.1"
  ray start --head --node-ip-address 127.0.0.1 --port 6387 --num-gpus 0 --include-dashboard false $R $PH > $Z/rayhead.out 2>&1
  bash -c "echo \$\$ > $CG/cgroup.procs && exec ray start --address 127.0.0.1:6387 --node-ip-address 127.0.0.1 --num-gpus 1 $R $PW" > $Z/raywork.out 2>&1
  ts "ray up"; tail -n 3 $Z/rayhead.out $Z/raywork.out
  RAY_ADDRESS=127.0.0.1:6387 timeout 30 ray status > $Z/raystatus.out 2>&1
  hdr() { { echo "# node 0 (head): \$ ray start --head --node-ip-address 127.0.0.1 --port 6387 --num-gpus 0 --include-dashboard false $R $PH"; cat $Z/rayhead.out
            echo "# node 1 (GPU worker): \$ ray start --address 127.0.0.1:6387 --node-ip-address 127.0.0.1 --num-gpus 1 $R $PW"; cat $Z/raywork.out
            echo "# node 0: \$ ray status"; cat $Z/raystatus.out; } > $OUT/logs/$1.log; }
  # R1 partitioning: TP 2 on Ray for a 15-head model
  ( name=h200-vllm026-ray-dp2-backend-ray-cluster-1-gpu; sleep 1; hdr $name; echo "== $name  [t+$((SECONDS - T0))s]"
    echo "# node 0: \$ $RE vllm serve $M $TA $KV --data-parallel-size 2 --data-parallel-backend ray --port 8876" >> $OUT/logs/$name.log
    env RAY_ADDRESS=127.0.0.1:6387 VLLM_HOST_IP=127.0.0.1 timeout -s INT -k 10 80 $VS $M $TA $KV --data-parallel-size 2 --data-parallel-backend ray --port 8876 >> $OUT/logs/$name.log 2>&1
    fin $name $? ) &
  R4=$!
  name=h200-vllm026-ray-2nodes-tp2-smollm-360m-15-heads; hdr $name; echo "== $name  [t+$((SECONDS - T0))s]"
  echo "# node 0: \$ $RE vllm serve /workspace/models/smollm-360m-like-15-heads $TA $KV --distributed-executor-backend ray --tensor-parallel-size 2 --port 8873" >> $OUT/logs/$name.log
  env RAY_ADDRESS=127.0.0.1:6387 VLLM_HOST_IP=127.0.0.1 timeout -s INT -k 10 90 $VS /workspace/models/smollm-360m-like-15-heads $TA $KV --distributed-executor-backend ray --tensor-parallel-size 2 --port 8873 >> $OUT/logs/$name.log 2>&1
  fin $name $?
  wait $R4
  # R2 healthy: TP 1 on Ray, engine on the GPU-less head, worker actor on the GPU node; two requests, SIGINT
  name=h200-vllm026-ray-head-no-gpu-worker-node-gpu-tp1-served-ok; hdr $name; echo "== $name  [t+$((SECONDS - T0))s]"
  echo "# node 0: \$ $RE vllm serve $M $TA $KV --distributed-executor-backend ray --port 8874" >> $OUT/logs/$name.log
  env RAY_ADDRESS=127.0.0.1:6387 VLLM_HOST_IP=127.0.0.1 timeout -s INT -k 10 150 $VS $M $TA $KV --distributed-executor-backend ray --port 8874 >> $OUT/logs/$name.log 2>&1 &
  p=$!; python3 $D/cl.py 8874 130 ok ok > $Z/r2.client 2>&1; sleep 2; kill -INT $p; wait $p; fin $name $?; cat $Z/r2.client
  ts "after R2: GPU apps: $(gpu_apps)"
  # R3 resources: TP 1 on Ray, serving; the GPU worker node's memory limit drops to 400M (other pods on the host): OOM killer
  name=h200-vllm026-ray-serving-worker-node-memory-max-400m-oom; hdr $name; echo "== $name  [t+$((SECONDS - T0))s]"
  echo "# node 0: \$ $RE vllm serve $M $TA $KV --distributed-executor-backend ray --port 8875" >> $OUT/logs/$name.log
  env RAY_ADDRESS=127.0.0.1:6387 VLLM_HOST_IP=127.0.0.1 timeout -s INT -k 10 170 $VS $M $TA $KV --distributed-executor-backend ray --port 8875 >> $OUT/logs/$name.log 2>&1 &
  p=$!; CL_TO=30 python3 $D/cl.py 8875 130 ok ok "sh:echo 400M > $CG/memory.max" sleep:10 ok ok > $Z/r3.client 2>&1
  echo "   worker cgroup memory.events: $(tr '\n' ' ' < $CG/memory.events)"
  for i in $(seq 30); do kill -0 $p 2>/dev/null || break; sleep 1; done
  kill -INT $p 2>/dev/null; wait $p; fin $name $?; cat $Z/r3.client
  echo max > $CG/memory.max
  RAY_ADDRESS=127.0.0.1:6387 timeout 20 ray status > $Z/raystatus.out 2>&1; tail -n 12 $Z/raystatus.out
  ray stop --force > /dev/null 2>&1; for p in $(cat $CG/cgroup.procs 2>/dev/null); do kill -9 $p; done; sleep 1; rmdir $CG
) & J="$J $!"
sleep 60; ts "running; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
tar -C $OUT -cf $OUT/logs.tar logs && rm -rf $OUT/logs
