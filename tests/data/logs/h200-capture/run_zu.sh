#!/usr/bin/env bash
# Z91 capture run ZU: torch 2.11 / NCCL 2.28.9 only (no vLLM), faults made on purpose, jobs in parallel.
#   timeout -k 10 420 bash .device/Z91/run_zu.sh 2>&1 | tee $OUT/run_zu.out
set -u
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
W=/workspace/job              # the "user's" job directory (paths that show in tracebacks)
Z=/tmp/z91                    # harness scratch
mkdir -p $W $Z "$OUT/logs" /workspace/ckpt $Z/piddir-a
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
  (cd $W && timeout -s INT -k 10 "$limit" "$@") >> "$OUT/logs/$name.log" 2>&1
  fin $name $?
}
HOLDERS=""
node() {  # node NAME N: network + UTS + mount namespace (own host name, /etc/hosts naming both nodes of 10.77.N.0/24)
  printf '127.0.0.1 localhost\n10.77.%s.1 gpu-node-0\n10.77.%s.2 gpu-node-1\n' $2 $2 > $Z/hosts-$2
  unshare -n -u -m sh -c "echo $1 > /proc/sys/kernel/hostname && mount --bind $Z/hosts-$2 /etc/hosts && exec sleep 440" > /dev/null 2>&1 &
  echo $!
}
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
killns() {
  local h ns d p
  for h in "$@"; do
    ns=$(readlink /proc/$h/ns/net) || continue
    for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
      [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done
  done
}
# twonode NAME LIMIT PID0 PID1 SHOWN0 SHOWN1 CMD0 CMD1: one command per node (sh -c, in $W), both into one log
twonode() {
  local name=$1 limit=$2 p0=$3 p1=$4 s0=$5 s1=$6 c0=$7 c1=$8 log=$OUT/logs/$1.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "gpu-node-0: \$ $s0"; echo "gpu-node-1: \$ $s1"; } > $log
  ( set -o pipefail; on $p0 timeout -s INT -k 10 $limit sh -c "cd $W && $c0" 2>&1 | sed -u 's/^/gpu-node-0: /' >> $log ) &
  local j0=$!; sleep 1
  ( set -o pipefail; on $p1 timeout -s INT -k 10 $limit sh -c "cd $W && $c1" 2>&1 | sed -u 's/^/gpu-node-1: /' >> $log ) &
  local j1=$!
  wait $j0; local r0=$?; wait $j1; local r1=$?
  fin $name "node0 $r0 node1 $r1"
}
waitfor() {  # waitfor FILE PATTERN MAXS
  local i=0; while [ $i -lt $3 ]; do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 1; i=$((i + 1)); done; return 1
}

nvidia-smi -L
python3 -c "import torch, triton; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'triton', triton.__version__)"
cat /sys/fs/cgroup/cgroup.controllers; cat /sys/fs/cgroup/cgroup.subtree_control
for c in cpu pids memory; do grep -qw $c /sys/fs/cgroup/cgroup.subtree_control || echo +$c > /sys/fs/cgroup/cgroup.subtree_control; done
echo "   subtree_control now: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
ts "start; GPU apps: $(gpu_apps)"
J=""
TR="torchrun --nnodes 2 --nproc_per_node 1"

# ---- A resources: 4 ranks, rank 2 CPU-throttled (cgroup cpu.max 1 ms per 1 s, a pod's CPU limit) after step 3
CGA=/sys/fs/cgroup/z91_rank2; mkdir -p $CGA
echo "1000 1000000" > $CGA/cpu.max; echo "   $CGA cpu.max: $(cat $CGA/cpu.max 2>&1)"
( job h200-torchrun-nccl-4ranks-rank2-cpu-max-1ms-per-s-pg-timeout-20s 200 \
    "torchrun --nproc_per_node 4 --master_port 29911 train.py --steps 60 --step-sleep 1 --pg-timeout 20" \
    env HOSTID_PER_RANK=1 Z91_PIDDIR=$Z/piddir-a torchrun --nproc_per_node 4 --master_port 29911 train.py --steps 60 --step-sleep 1 --pg-timeout 20
) &
J="$J $!"
( LA=$OUT/logs/h200-torchrun-nccl-4ranks-rank2-cpu-max-1ms-per-s-pg-timeout-20s.log
  if waitfor $LA "step 3 loss" 150; then
    P=$(cat $Z/piddir-a/rank2.pid)
    if [ -f $CGA/cpu.max ] && echo $P > $CGA/cgroup.procs; then
      ts "A: rank 2 (pid $P) moved into $CGA (cpu.max $(cat $CGA/cpu.max))"
      sleep 30; ts "A: $CGA cpu.stat: $(tr '\n' ' ' < $CGA/cpu.stat)"
    else  # no cpu controller: duty-cycle the rank instead (runs 20 ms of every 4 s)
      ts "A: no cpu.max; duty-cycling rank 2 (pid $P) with SIGSTOP/SIGCONT"
      while kill -0 $P 2>/dev/null; do kill -STOP $P; sleep 4; kill -CONT $P 2>/dev/null; sleep 0.02; done
    fi
  else ts "A: step 3 never seen"; fi ) &

# ---- B resources: two nodes, node 1's /dev/shm a 64 KiB tmpfs (container default left tiny), NCCL INFO
NBA=$(node gpu-node-0 91); NBB=$(node gpu-node-1 91); HOLDERS="$HOLDERS $NBA $NBB"; sleep 0.3
python3 $D/netns.py veth $NBA 10.77.91.1 $NBB 10.77.91.2
on $NBB mount -t tmpfs -o size=64k tmpfs /dev/shm && on $NBB df -h /dev/shm | sed 's/^/   node1: /'
EB="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1"
AB="--master_addr 10.77.91.1 --master_port 29500 train.py --steps 10 --pg-timeout 30"
( twonode h200-2nodes-torchrun-nccl-node1-dev-shm-64k 150 $NBA $NBB \
    "$EB $TR --node_rank 0 $AB" "$EB $TR --node_rank 1 $AB" \
    "exec env $EB $TR --node_rank 0 $AB" "exec env $EB $TR --node_rank 1 $AB"
) &
J="$J $!"; sleep 2

# ---- C resources: two nodes, node 1's shell has ulimit -v 12 GiB (limits.conf "as" on that node)
NCA=$(node gpu-node-0 92); NCB=$(node gpu-node-1 92); HOLDERS="$HOLDERS $NCA $NCB"; sleep 0.3
python3 $D/netns.py veth $NCA 10.77.92.1 $NCB 10.77.92.2
EC="NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=eth1"
AC="--master_addr 10.77.92.1 --master_port 29500 train.py --steps 10 --pg-timeout 30"
( twonode h200-2nodes-torchrun-nccl-node1-ulimit-v-12g 150 $NCA $NCB \
    "$EC $TR --node_rank 0 $AC" "ulimit -v 12582912; $EC $TR --node_rank 1 $AC" \
    "exec env $EC $TR --node_rank 0 $AC" "ulimit -v 12582912; ulimit -a | grep -i virtual; exec env $EC $TR --node_rank 1 $AC"
) &
J="$J $!"; sleep 2

# ---- D network: two nodes, c10d rendezvous hosted by node 0's torchrun agent; the agent is SIGKILLed at step 5
NDA=$(node gpu-node-0 93); NDB=$(node gpu-node-1 93); HOLDERS="$HOLDERS $NDA $NDB"; sleep 0.3
python3 $D/netns.py veth $NDA 10.77.93.1 $NDB 10.77.93.2
ED="NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=eth1"
AD="--rdzv_backend c10d --rdzv_endpoint 10.77.93.1:29400 --rdzv_id ft-run-17 train.py --steps 80 --step-sleep 1 --pg-timeout 30"
LD=$OUT/logs/h200-2nodes-torchrun-c10d-rdzv-host-agent-killed-mid-run.log
( twonode h200-2nodes-torchrun-c10d-rdzv-host-agent-killed-mid-run 170 $NDA $NDB \
    "$ED $TR $AD" "$ED $TR $AD" "exec env $ED $TR $AD" "exec env $ED $TR $AD"
) &
J="$J $!"
( if waitfor $LD "step 5 loss" 140; then ts "D: killing node 0's torchrun agent"; python3 $D/killagent.py $NDA; else ts "D: step 5 never seen"; fi ) &
sleep 2

# ---- E resources: 2-rank NCCL job in a "container" cgroup with pids.max 24 and 36
for N in 24 36; do
  CGE=/sys/fs/cgroup/z91_pids$N; mkdir -p $CGE; echo $N > $CGE/pids.max
  ( job h200-torchrun-nccl-container-pids-max-$N 120 \
      "torchrun --nproc_per_node 2 --master_port 2992${N:0:1} train.py --steps 10 --pg-timeout 30   # container pids limit $N" \
      $D/incg.sh $CGE env HOSTID_PER_RANK=1 NCCL_DEBUG=WARN torchrun --nproc_per_node 2 --master_port 2992${N:0:1} train.py --steps 10 --pg-timeout 30
    echo "   pids$N: pids.events $(cat $CGE/pids.events 2>/dev/null | tr '\n' ' ') peak $(cat $CGE/pids.peak 2>/dev/null)"
  ) &
  J="$J $!"
done
sleep 2

# ---- G versions: 2-rank DDP whose MLP uses a Triton fused GELU written for Triton 2.0 (tl.libdevice)
( job h200-torchrun-nccl-triton-fused-gelu-tl-libdevice 150 \
    "torchrun --nproc_per_node 2 --master_port 29931 train.py --fused-gelu --steps 10 --pg-timeout 30" \
    env HOSTID_PER_RANK=1 torchrun --nproc_per_node 2 --master_port 29931 train.py --fused-gelu --steps 10 --pg-timeout 30
) &
J="$J $!"; sleep 2

# ---- H partitioning: ZeRO-1 style reduce-scatter of a 1011010-element flat gradient over 3 ranks
( job h200-torchrun-nccl-zero1-flat-grad-1011010-over-3-ranks 120 \
    "torchrun --nproc_per_node 3 --master_port 29941 zero_rs.py --steps 6 --pg-timeout 30" \
    env HOSTID_PER_RANK=1 torchrun --nproc_per_node 3 --master_port 29941 zero_rs.py --steps 6 --pg-timeout 30
) &
J="$J $!"; sleep 2

# ---- I healthy: two nodes, NCCL INFO + c10d INFO logging, last rank writes a slow checkpoint (12 s) others wait
NIA=$(node gpu-node-0 94); NIB=$(node gpu-node-1 94); HOLDERS="$HOLDERS $NIA $NIB"; sleep 0.3
python3 $D/netns.py veth $NIA 10.77.94.1 $NIB 10.77.94.2
EI="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 TORCH_CPP_LOG_LEVEL=INFO TORCH_NCCL_DUMP_ON_TIMEOUT=1"
AI="--master_addr 10.77.94.1 --master_port 29500 train.py --steps 12 --ckpt-every 6 --pg-timeout 60"
( twonode h200-2nodes-torchrun-nccl-info-slow-checkpoint-barrier-ok 200 $NIA $NIB \
    "$EI $TR --node_rank 0 $AI" "$EI $TR --node_rank 1 $AI" \
    "exec env $EI $TR --node_rank 0 $AI" "exec env $EI $TR --node_rank 1 $AI"
) &
J="$J $!"

sleep 30; ts "running; GPU apps: $(gpu_apps)"
wait $J
ts "all jobs done; GPU apps: $(gpu_apps)"
echo "   $CGA cpu.stat: $(tr '\n' ' ' < $CGA/cpu.stat 2>/dev/null)"
killns $HOLDERS
for h in $HOLDERS; do kill $h 2>/dev/null; done
for cg in $CGA /sys/fs/cgroup/z91_pids24 /sys/fs/cgroup/z91_pids36; do for p in $(cat $cg/cgroup.procs 2>/dev/null); do kill -9 $p 2>/dev/null; done; done
sleep 1; for cg in $CGA /sys/fs/cgroup/z91_pids24 /sys/fs/cgroup/z91_pids36; do rmdir $cg 2>/dev/null && echo "   cgroup $cg removed"; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zu-logs.tar" logs && rm -r "$OUT/logs"
ts "end"
true
