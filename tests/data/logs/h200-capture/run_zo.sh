#!/usr/bin/env bash
# Z73 capture run ZO: torch 2.11 / NCCL 2.28.9 only (no vLLM), faults made on purpose, all jobs in parallel.
#   timeout -k 10 330 bash .device/Z73/run_zo.sh 2>&1 | tee $OUT/run_zo.out
set -u
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
W=/workspace/job              # the "user's" job directory (paths that show in tracebacks)
Z=/tmp/z73                    # harness scratch
mkdir -p $W $Z "$OUT/logs"
cp -r $D/job/. $W/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 4 "$OUT/logs/$1.log" | cut -c1-220 | sed 's/^/      /'; }
job() {  # job NAME LIMIT SHOWN CMD...   (one process tree, whole output to logs/NAME.log)
  local name=$1 limit=$2 shown=$3; shift 3
  echo "== $name: $shown  [t+$((SECONDS - T0))s]"
  echo "\$ $shown" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" "$@" >> "$OUT/logs/$name.log" 2>&1
  fin $name $?
}
HOLDERS=""
# node NAME N: a "node" = network + UTS + mount namespace (own host name, /etc/hosts naming both nodes of 10.77.N.0/24),
# held by a sleeping process; prints its pid
node() {
  printf '127.0.0.1 localhost\n10.77.%s.1 gpu-node-0\n10.77.%s.2 gpu-node-1\n' $2 $2 > $Z/hosts-$2
  unshare -n -u -m sh -c "echo $1 > /proc/sys/kernel/hostname && mount --bind $Z/hosts-$2 /etc/hosts && exec sleep 420" > /dev/null 2>&1 &
  echo $!
}
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }   # run in a node
killns() {  # kill every process in the network namespaces of the holders given
  local h ns d p
  for h in "$@"; do
    ns=$(readlink /proc/$h/ns/net) || continue
    for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
      [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done
  done
}
# twonode NAME LIMIT PID0 PID1 "ENV0" "ENV1" ARGS: torchrun --nnodes 2 on two nodes, master = node 0 (10.77.N.1)
twonode() {
  local name=$1 limit=$2 p0=$3 p1=$4 e0=$5 e1=$6 a=$7 log=$OUT/logs/$1.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "gpu-node-0: \$ $e0 torchrun --nnodes 2 --node_rank 0 $a"; echo "gpu-node-1: \$ $e1 torchrun --nnodes 2 --node_rank 1 $a"; } > $log
  ( set -o pipefail; on $p0 env $e0 timeout -s INT -k 10 $limit torchrun --nnodes 2 --node_rank 0 $a 2>&1 | sed -u 's/^/gpu-node-0: /' >> $log ) &
  local j0=$!; sleep 1
  ( set -o pipefail; on $p1 env $e1 timeout -s INT -k 10 $limit torchrun --nnodes 2 --node_rank 1 $a 2>&1 | sed -u 's/^/gpu-node-1: /' >> $log ) &
  local j1=$!
  wait $j0; local r0=$?; wait $j1; local r1=$?
  fin $name "node0 $r0 node1 $r1"
}

nvidia-smi -L
python3 -c "import torch, triton; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'triton', triton.__version__)"
ts "start; GPU apps: $(gpu_apps)"
J=""

# ---- 1 versions: a fused-norm extension built with the pre-C++11 libstdc++ ABI (a prebuilt wheel for another torch build)
( TORCH_DIR=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
  PYI=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
  SUF=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
  SO=$W/site/fused_layer_norm_cuda$SUF
  if g++ -O1 -shared -fPIC -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -I$TORCH_DIR/include -I$PYI $D/ext.cpp \
       -L$TORCH_DIR/lib -lc10 -Wl,-rpath,$TORCH_DIR/lib -o $SO > $Z/ext-build.out 2>&1; then
    echo "   ext: built from ext.cpp with -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0"
  elif g++ -O1 -shared -fPIC -std=c++20 -D_GLIBCXX_USE_CXX11_ABI=0 -I$TORCH_DIR/include -I$PYI $D/ext.cpp \
       -L$TORCH_DIR/lib -lc10 -Wl,-rpath,$TORCH_DIR/lib -o $SO >> $Z/ext-build.out 2>&1; then
    echo "   ext: built from ext.cpp with -std=c++20 -D_GLIBCXX_USE_CXX11_ABI=0"
  else
    echo "   ext: ext.cpp failed ($(grep -m1 error $Z/ext-build.out | cut -c1-200)); FALLBACK ext_fallback.c"
    gcc -shared -fPIC -I$PYI $D/ext_fallback.c -L$TORCH_DIR/lib -lc10 -Wl,-rpath,$TORCH_DIR/lib -o $SO
  fi
  nm -D --undefined-only $SO | grep -i c10 | head -3
  job h200-torchrun-nccl-fused-norm-ext-pre-cxx11-abi 120 \
    "NCCL_DEBUG=INFO PYTHONPATH=$W/site torchrun --nproc_per_node 2 --master_port 29731 $W/train.py --fused-norm" \
    env HOSTID_PER_RANK=1 NCCL_DEBUG=INFO PYTHONPATH=$W/site torchrun --nproc_per_node 2 --master_port 29731 $W/train.py --fused-norm
) &
J="$J $!"

# ---- 2 partitioning: torch tensor parallel (parallelize_module) of 32-head Llama-7B-shaped blocks over TP 3
( job h200-torchrun-nccl-tp3-parallelize-module-32-heads 150 \
    "torchrun --nproc_per_node 3 --master_port 29732 $W/tp.py --n-heads 32 --dim 4096" \
    env HOSTID_PER_RANK=1 torchrun --nproc_per_node 3 --master_port 29732 $W/tp.py --n-heads 32 --dim 4096
) &
J="$J $!"

# ---- 3 communication: two nodes, node 0 NCCL_ALGO=Ring, node 1 NCCL_ALGO=Tree (per-node env drift), 20 s PG timeout
N3A=$(node gpu-node-0 31); N3B=$(node gpu-node-1 31); HOLDERS="$HOLDERS $N3A $N3B"; sleep 0.3
python3 $D/netns.py veth $N3A 10.77.31.1 $N3B 10.77.31.2
( twonode h200-2nodes-torchrun-nccl-algo-ring-node0-tree-node1 170 $N3A $N3B \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 NCCL_ALGO=Ring" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 NCCL_ALGO=Tree" \
    "--nproc_per_node 1 --master_addr 10.77.31.1 --master_port 29500 $W/train.py --steps 6 --pg-timeout 20"
) &
J="$J $!"

# ---- 4 resources: node 1's ephemeral port range narrowed to 2 ports (net.ipv4.ip_local_port_range = 40000 40001)
N4A=$(node gpu-node-0 41); N4B=$(node gpu-node-1 41); HOLDERS="$HOLDERS $N4A $N4B"; sleep 0.3
python3 $D/netns.py veth $N4A 10.77.41.1 $N4B 10.77.41.2
on $N4B sh -c 'echo "40000 40001" > /proc/sys/net/ipv4/ip_local_port_range; echo "   node1 ip_local_port_range: $(cat /proc/sys/net/ipv4/ip_local_port_range)"'
( twonode h200-2nodes-torchrun-nccl-node1-ephemeral-port-range-2-ports 150 $N4A $N4B \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" \
    "--nproc_per_node 1 --master_addr 10.77.41.1 --master_port 29500 $W/train.py --steps 6 --pg-timeout 20"
) &
J="$J $!"

# ---- 5 network: both hosts MTU 9000 (jumbo), the switch port of node 1 at MTU 1500: big frames silently dropped
N5A=$(node gpu-node-0 51); N5B=$(node gpu-node-1 51); N5S=$(node tor-switch 51); HOLDERS="$HOLDERS $N5A $N5B $N5S"; sleep 0.3
python3 $D/netns.py switch $N5S $N5A 10.77.51.1 $N5B 10.77.51.2 9000 1500
( twonode h200-2nodes-torchrun-nccl-jumbo-mtu-9000-switch-port-1500 170 $N5A $N5B \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" \
    "--nproc_per_node 1 --master_addr 10.77.51.1 --master_port 29500 $W/train.py --steps 6 --pg-timeout 20"
) &
J="$J $!"

# ---- 6 visibility: the job's cgroup loses access to the NVIDIA device nodes mid-run (device rules rewritten, as by a
#      systemd daemon-reload under a container); the script's nvidia-smi health check, then an elastic restart
UVM=$(awk '$2 == "nvidia-uvm" {print $1}' /proc/devices)
CG=/sys/fs/cgroup/z73_pod; mkdir -p $CG
( name=h200-torchrun-nccl-gpu-device-access-revoked-mid-run; log=$OUT/logs/$name.log
  ( while ! grep -q "step 4 " $log 2>/dev/null; do sleep 0.3; [ $SECONDS -gt $((T0 + 150)) ] && exit; done
    python3 $D/devdeny.py $CG 195${UVM:+,$UVM} | sed "s/^/   [t+$((SECONDS - T0))s] /" ) &
  job $name 150 \
    "NCCL_DEBUG=WARN torchrun --nproc_per_node 2 --max-restarts 1 --master_port 29733 $W/train.py --steps 40 --step-sleep 0.5 --health-check-every 3" \
    bash -c "echo \$\$ > $CG/cgroup.procs && exec env HOSTID_PER_RANK=1 NCCL_DEBUG=WARN torchrun --nproc_per_node 2 --max-restarts 1 --master_port 29733 $W/train.py --steps 40 --step-sleep 0.5 --health-check-every 3"
  wait
) &
J="$J $!"

# ---- 7 other: a Triton unpack kernel reads int64 records at a per-rank byte offset (rank 1: 8001, misaligned)
( job h200-torchrun-nccl-triton-unpack-int64-misaligned-rank1 150 \
    "torchrun --nproc_per_node 2 --master_port 29734 $W/train.py --packed-shards --steps 6 --pg-timeout 20" \
    env HOSTID_PER_RANK=1 torchrun --nproc_per_node 2 --master_port 29734 $W/train.py --packed-shards --steps 6 --pg-timeout 20
) &
J="$J $!"

# ---- 8 healthy: DDP with an OOM-catching micro-batch probe (CUDA OOM messages printed, then trains), NCCL INFO
( job h200-torchrun-nccl-ddp-micro-batch-probe-oom-backoff-ok 170 \
    "NCCL_DEBUG=INFO torchrun --nproc_per_node 2 --master_port 29735 $W/autobatch.py --mem-fraction 0.3" \
    env HOSTID_PER_RANK=1 NCCL_DEBUG=INFO torchrun --nproc_per_node 2 --master_port 29735 $W/autobatch.py --mem-fraction 0.3
) &
J="$J $!"

sleep 20; ts "running; GPU apps: $(gpu_apps)"
wait $J
ts "all jobs done; GPU apps: $(gpu_apps)"
killns $HOLDERS
for h in $HOLDERS; do kill $h 2>/dev/null; done
for p in $(cat $CG/cgroup.procs 2>/dev/null); do kill -9 $p 2>/dev/null; done
sleep 0.5; rmdir $CG 2>/dev/null && echo "   cgroup $CG removed"
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zo-logs.tar" logs && rm -r "$OUT/logs"
ts "end"
true
