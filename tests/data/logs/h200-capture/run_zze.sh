#!/usr/bin/env bash
# Z181 capture run ZZE: NCCL / torch.distributed / node faults made on purpose on the H200 (one batch call).
# Plain torch 2.11 (torchrun, env:// as srun does), Gloo and NCCL; nccl-tests 2.19.6 built here from source;
# pynvml. "Nodes" are network + UTS namespaces joined by a veth (made from Python: netz.py, no `ip` tool here).
# Call: timeout -k 10 490 bash .device/Z181/run_zze.sh 2>&1 | tee $OUT/run_zze.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
mkdir -p /workspace/jobs && cp $D/jobs/*.py /workspace/jobs/
JB=/workspace/jobs
Z=/tmp/z181
L=$Z/out/logs
mkdir -p $L $Z/out/build $Z/ck
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
pack() { tar -C $Z/out -cf $OUT/logs.tar.part logs build 2>/dev/null && mv $OUT/logs.tar.part $OUT/logs.tar; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"; grep -v '^frame #' "$L/$1.log" | tail -n 5 | cut -c1-220 | sed 's/^/      /'; pack; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch, torch.cuda.nccl as n; print('torch', torch.__version__, 'nccl', n.version())"
echo "nproc $(nproc); TR=$TR; ulimit -f $(ulimit -f) -d $(ulimit -d) -n $(ulimit -n)"
# ------------------------------------------------------------------ nccl-tests builds (background)
NH=$(python3 -c "import nvidia.nccl, os; print(nvidia.nccl.__path__[0])")
[ -n "$NH" ] && { [ -e $NH/lib/libnccl.so ] || ln -s libnccl.so.2 $NH/lib/libnccl.so; }
build_nt() {  # TAG GENCODE
  local t=$1 gc=$2
  mkdir -p $Z/nt-$t && tar -C $Z/nt-$t -xf $D/nccl-tests.tar
  ( cd $Z/nt-$t/nccl-tests/src && timeout 200 make -j6 NCCL_HOME=$NH CUDA_HOME=/usr/local/cuda NVCC_GENCODE="$gc" \
      BUILDDIR=$Z/nt-$t/build $Z/nt-$t/build/all_reduce_perf ) > $Z/out/build/nt-$t.build.log 2>&1
  echo "build nt-$t rc $? [t+$((SECONDS - T0))s]" >> $Z/out/build/nt-$t.build.log
}
build_nt sm90 "-gencode=arch=compute_90,code=sm_90" & BP90=$!
build_nt sm80 "-gencode=arch=compute_80,code=sm_80" & BP80=$!
# ------------------------------------------------------------------ helpers
mkns() { unshare -n -u sh -c "hostname $1 && exec sleep 900" > /dev/null 2>&1 & NODE=$!; disown $NODE; sleep 0.3; }
on() { local p=$1; shift; nsenter -n -u -t $p "$@"; }
# one JOB: NAME LIMIT "ENV" CMD... (runs in the host namespace, output to logs/NAME.log)
job() { local name=$1 lim=$2 e=$3; shift 3
  echo "\$ ${HDR:-${e:+$e }$*}" > $L/$name.log
  env $e timeout -s INT -k 10 $lim "$@" >> $L/$name.log 2>&1
  fin $name $?; }
# pair NAME LIMIT GRACE NA NB "ENV0" "ENV1" CMD0 CMD1: one process per node, both appending to one log;
# when one ends, the other gets GRACE s, then SIGINT, then SIGKILL
pair() { local name=$1 lim=$2 g=$3 na=$4 nb=$5 e0=$6 e1=$7 c0=$8 c1=$9 log=$L/$1.log p0 p1 i
  { echo "# node 0 ($(on $na hostname)): \$ $e0 $c0"; echo "# node 1 ($(on $nb hostname)): \$ $e1 $c1"; } >> $log
  on $na env $e0 timeout -s INT -k 10 $((lim + g + 20)) sh -c "$c0" >> $log 2>&1 & p0=$!
  sleep 1
  on $nb env $e1 timeout -s INT -k 10 $((lim + g + 20)) sh -c "$c1" >> $log 2>&1 & p1=$!
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; }
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; kill -9 $h 2>/dev/null; done; }
P=""
# ================================================================== single-host jobs
# A communication: eval loop where rank 1 has no validation batch and skips the all_reduce (DETAIL debug on)
j_a() { job h200-torchrun-gloo-debug-detail-rank1-skips-val-all-reduce 90 \
  "TORCH_DISTRIBUTED_DEBUG=DETAIL GLOO_SOCKET_IFNAME=lo" $TR --nproc_per_node 2 --master_port 29612 $JB/eval_sync.py; }
# B communication: all_gather of per-rank predictions of unequal length (513 vs 512), gloo
j_b() { job h200-torchrun-gloo-all-gather-uneven-eval-shards-513-512 90 \
  "GLOO_SOCKET_IFNAME=lo" $TR --nproc_per_node 2 --master_port 29613 $JB/gather_preds.py; }
# C other: NaN loss on rank 1 (token-mean over a batch with no response tokens) with TORCH_NCCL_NAN_CHECK=1
j_c() { job h200-torchrun-nccl-nan-check-rank1-empty-response-batch 120 \
  "TORCH_NCCL_NAN_CHECK=1 NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=WARN" $TR --nproc_per_node 2 --master_port 29611 $JB/sft_nan.py; }
# O2 healthy: DDP find_unused_parameters=True with no unused parameter, TORCH_DISTRIBUTED_DEBUG=INFO
j_o2() { job h200-torchrun-gloo-ddp-find-unused-parameters-true-none-unused-ok 90 \
  "TORCH_DISTRIBUTED_DEBUG=INFO GLOO_SOCKET_IFNAME=lo" $TR --nproc_per_node 2 --master_port 29614 $JB/ddp_unused.py; }
# O1 healthy: job pinned to one CPU (taskset, as a batch system's cpuset) with an 8-worker DataLoader, NCCL_DEBUG=INFO
j_o1() { job h200-torchrun-nccl-taskset-1-cpu-dataloader-8-workers-ok 150 \
  "NCCL_DEBUG=INFO" taskset -c 5 $TR --nproc_per_node 1 --master_port 29615 $JB/dl_train.py; }
# J resources: file-size limit (ulimit -f 262144 = 256 MiB) inherited by the job; ~400 MB checkpoint
j_f() { HDR="ulimit -f 262144; CKPT_DIR=$Z/ck $TR --nproc_per_node 1 --master_port 29616 $JB/ckpt_train.py" job h200-torchrun-nccl-ulimit-f-256m-checkpoint-save 120 \
  "CKPT_DIR=$Z/ck" bash -c "ulimit -f 262144; exec $TR --nproc_per_node 1 --master_port 29616 $JB/ckpt_train.py"; }
# D resources: data-segment limit (ulimit -d 8 GiB) while preloading a 12 GiB corpus into host memory
j_d() { HDR="ulimit -d 8388608; python3 $JB/preload.py" job h200-torch-ulimit-d-8g-preload-12g-corpus 90 "" bash -c "ulimit -d 8388608; exec python3 $JB/preload.py"; }
# L visibility: a health probe configured for an 8-GPU node (HEALTH_GPUS default 0..7) on this 1-GPU node
j_l() { job h200-pynvml-health-probe-8-gpu-list-on-1-gpu-node 60 "" python3 $JB/gpu_health.py; }
# ================================================================== two-"node" jobs
# F communication: NCCL_BUFFSIZE 8 MiB on node 0 (tuned env), default 4 MiB on node 1
j_buf() { local A=10.82.0.1 B=10.82.0.2 NA NB
  mkns gpu-node-0; NA=$NODE; mkns gpu-node-1; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1 > /dev/null
  local C="$TR --nnodes 2 --nproc_per_node 1 --master_addr $A --master_port 29500"
  pair h200-2nodes-torchrun-nccl-buffsize-8m-node0-default-node1 100 25 $NA $NB \
    "NCCL_HOSTID=gpu-node-0 NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO NCCL_BUFFSIZE=8388608 PG_TIMEOUT_S=30" \
    "NCCL_HOSTID=gpu-node-1 NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO PG_TIMEOUT_S=30" \
    "$C --node_rank 0 $JB/train2n.py" "$C --node_rank 1 $JB/train2n.py"
  killns $NA $NB; }
# G communication: IPv6-only cluster network, env file from an IPv4 cluster (NCCL_SOCKET_FAMILY=AF_INET)
j_v6() { local NA NB
  mkns gpu-node-0; NA=$NODE; mkns gpu-node-1; NB=$NODE
  python3 $D/netz.py veth0 $NA eth1 $NB eth1 > /dev/null
  python3 $D/netz.py addr6 $NA eth1 fd00:83::1 64 > /dev/null; python3 $D/netz.py addr6 $NB eth1 fd00:83::2 64 > /dev/null
  echo "   v6 node0:"; python3 $D/netz.py show6 $NA; python3 $D/netz.py show $NA
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_SOCKET_FAMILY=AF_INET NCCL_DEBUG=WARN MASTER_ADDR=fd00:83::1 MASTER_PORT=29500 WORLD_SIZE=2 LOCAL_RANK=0 PG_TIMEOUT_S=20"
  pair h200-2nodes-torch-nccl-ipv6-only-net-socket-family-af-inet 90 30 $NA $NB \
    "$E RANK=0 NCCL_HOSTID=gpu-node-0" "$E RANK=1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train2n.py" "python3 $JB/train2n.py"
  killns $NA $NB; }
# R network: node 1 keeps a static route 10.84.0.0/27 via 10.84.0.30 (old storage range, gateway gone) covering the master
j_rt() { local A=10.84.0.1 B=10.84.0.2 NA NB
  mkns gpu-node-0; NA=$NODE; mkns gpu-node-1; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1 > /dev/null
  python3 $D/netz.py route $NB 10.84.0.0/27 10.84.0.30 > /dev/null
  echo "   routes node1:"; python3 $D/netz.py show $NB
  local E="NCCL_SOCKET_IFNAME=eth1 MASTER_ADDR=$A MASTER_PORT=29500 WORLD_SIZE=2 LOCAL_RANK=0 PG_TIMEOUT_S=30"
  pair h200-2nodes-torch-nccl-node1-stale-static-route-covers-master 90 30 $NA $NB \
    "$E RANK=0 NCCL_HOSTID=gpu-node-0" "$E RANK=1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train2n.py" "python3 $JB/train2n.py"
  killns $NA $NB; }
# ================================================================== nccl-tests
j_nt() { wait $BP90 $BP80 2>/dev/null
  ts "builds done"; tail -n 3 $Z/out/build/nt-*.build.log
  local B90=$Z/nt-sm90/build/all_reduce_perf B80=$Z/nt-sm80/build/all_reduce_perf
  if [ -x $B90 ]; then
    job h200-nccl-tests-all-reduce-perf-g-8-on-1-gpu-node 60 "LD_LIBRARY_PATH=$NH/lib" $B90 -b 8 -e 1G -f 2 -g 8
  else echo "no sm90 build"; fi
  if [ -x $B80 ]; then
    job h200-nccl-tests-built-sm80-only-on-h200 60 "LD_LIBRARY_PATH=$NH/lib" $B80 -b 8 -e 128M -f 2 -g 1
  else echo "no sm80 build"; fi
  if [ -x $B90 ]; then   # control: the sm_90 build, 1 GPU (not a corpus log)
    LD_LIBRARY_PATH=$NH/lib timeout 60 $B90 -b 8 -e 8M -f 4 -g 1 > $Z/out/build/nt-sm90-control.txt 2>&1; echo "   control rc $?"; tail -n 4 $Z/out/build/nt-sm90-control.txt
  fi; }
# ================================================================== schedule
ts "start"
for f in j_l j_a j_b j_o2 j_d j_f; do ts "launch $f"; $f & P="$P $!"; sleep 1; done
for f in j_c j_buf j_v6 j_rt j_o1; do ts "launch $f"; $f & P="$P $!"; sleep 2; done
wait $P
ts "first wave done"
j_nt
ts "all done"
pack
ls -la $L
