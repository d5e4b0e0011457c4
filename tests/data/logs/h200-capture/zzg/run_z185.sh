#!/usr/bin/env bash
# Z185 capture run: torch-only faults made on purpose on the one-H200 node (one batch call, < 270 s).
# Plain torch 2.11 (torchrun, env:// per node as srun does), NCCL and Gloo. "Nodes" are network + UTS + mount
# namespaces joined by a veth (netz.py, from h200-capture/zze with a per-side prefix length; the node has no `ip`).
# Call (from the repo root): cd .device/Z185 && timeout -k 10 300 bash run_z185.sh 2>&1 | tee $OUT/run_z185.out
set -u
set -m
OUT=${OUT:-/tmp/z185-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z185
mkdir -p $L $A $Z
JB=/workspace/train
mkdir -p $JB && cp -r $D/jobs/. $JB/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -v -e '^frame #' -e '^\[rank[0-9]*\]:  ' "$L/$1.log" | tail -n 4 | cut -c1-200 | sed 's/^/      /'; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"
NCCL_SYS=$(ls /usr/lib/x86_64-linux-gnu/libnccl.so.2 2>/dev/null || ls /usr/lib/x86_64-linux-gnu/libnccl.so.2.* 2>/dev/null | head -n 1)
echo "TR=$TR; system NCCL: ${NCCL_SYS:-none} -> $(readlink -f "${NCCL_SYS:-/nonexistent}" 2>/dev/null)"
# ------------------------------------------------------------------ helpers (from zzf/run_z184.sh)
# one JOB: NAME LIMIT "ENV" CMD... (host namespace, output to logs/NAME.log; HDR overrides the command line shown)
job() { local name=$1 lim=$2 e=$3; shift 3
  echo "\$ ${HDR:-${e:+$e }$*}" > $L/$name.log
  env $e timeout -s INT -k 10 $lim "$@" >> $L/$name.log 2>&1
  fin $name $?; }
# a "node": network + UTS + mount namespace held by a sleeping process; HOSTS (optional) becomes its /etc/hosts,
# SCR (optional) its /scratch/run (node-local disk)
mkns() { local h=$1 hosts=${2:-} scr=${3:-} c
  c="hostname $h;"
  [ -n "$hosts" ] && c="$c mount --bind $hosts /etc/hosts;"
  [ -n "$scr" ] && c="$c mount --bind $scr /scratch/run;"
  unshare -n -u -m sh -c "$c exec sleep 600" > /dev/null 2>&1 &
  NODE=$!; disown $NODE; sleep 0.3
  echo "   node $h (pid $NODE): gpu-node-0 resolves to '$(on $NODE getent hosts gpu-node-0 | tr -s ' \t' ' ')'"; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
nsprocs() { local ns d p; ns=$(readlink /proc/$1/ns/net) || return
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$1" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && echo $p; done; }
killns() { local h; for h in "$@"; do kill -9 $(nsprocs $h) 2>/dev/null; kill -9 $h 2>/dev/null; done; }
# pair NAME LIMIT GRACE NA NB "ENV0" "ENV1" CMD0 CMD1: one launcher per node, both consoles into logs/NAME.log.
# When one node's launcher ends, the other gets GRACE s, then SIGINT, then SIGKILL.
pair() { local name=$1 lim=$2 g=$3 na=$4 nb=$5 e0=$6 e1=$7 c0=$8 c1=$9 log=$L/$1.log p0 p1 i
  local tl=$(($2 + $3 + 20))
  echo "# node 0 ($(on $na hostname)): \$ $e0 $c0" >> $log
  echo "# node 1 ($(on $nb hostname)): \$ $e1 $c1" >> $log
  on $na env $e0 timeout -s INT -k 10 $tl sh -c "$c0" >> $log 2>&1 & p0=$!
  sleep 1
  on $nb env $e1 timeout -s INT -k 10 $tl sh -c "$c1" >> $log 2>&1 & p1=$!
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; }
hosts2() { printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\tgpu-node-0\n%s\tgpu-node-1\n' "$2" "$3" > $1; }
# two nodes on one veth: NET A0 B0 (B0 may carry /PLEN); sets NA NB
nodes2() { local k=$1 a=$2 b=$3 scr0=${4:-} scr1=${5:-}
  hosts2 $Z/hosts-$k $a ${b%/*}
  mkns gpu-node-0 $Z/hosts-$k $scr0; NA=$NODE; mkns gpu-node-1 $Z/hosts-$k $scr1; NB=$NODE
  python3 $D/netz.py veth $NA $a eth1 $NB $b eth1 | sed 's/^/   /'; }
TRN="$TR --nnodes 2 --nproc_per_node 1 --master_port 29500"
EV="WORLD_SIZE=2 MASTER_PORT=29500 PG_TIMEOUT_S=40 OMP_NUM_THREADS=2"
P=""
# ================================================================== two-"node" jobs
# V visibility: site launcher (env:// per node) exports RANK/WORLD_SIZE but not LOCAL_RANK; the script falls back
#   to the global RANK as device index, so node 1 (one GPU) asks for cuda:1
j_grank() { local NA NB; nodes2 grank 10.91.0.1 10.91.0.2
  pair h200-2nodes-torch-nccl-launcher-without-local-rank-node1-cuda-1 100 55 $NA $NB \
    "$EV MASTER_ADDR=10.91.0.1 RANK=0 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-0" \
    "$EV MASTER_ADDR=10.91.0.1 RANK=1 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train2n.py" "python3 $JB/train2n.py"
  killns $NA $NB; }
# C1 communication: node 1's node-local run config (/scratch/run/config.json) is an older copy (6 layers, not 8)
j_stale() { local NA NB
  mkdir -p /scratch/run $Z/run0 $Z/run1
  cp $JB/configs/mlp-8l.json $Z/run0/config.json; cp $JB/configs/mlp-8l-node1-stale.json $Z/run1/config.json
  nodes2 stale 10.92.0.1 10.92.0.2 $Z/run0 $Z/run1
  local E="MODEL_CONFIG=/scratch/run/config.json NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=40"
  pair h200-2nodes-torchrun-nccl-ddp-node1-stale-run-config-6-of-8-layers 100 20 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.92.0.1 --node_rank 0 $JB/train2n.py" "$TRN --master_addr 10.92.0.1 --node_rank 1 $JB/train2n.py"
  killns $NA $NB; }
# C2 communication: NCCL_SOCKET_IFNAME=lo on both nodes (kept from a single-node test), NCCL_DEBUG=INFO
j_lo() { local NA NB; nodes2 lo 10.93.0.1 10.93.0.2
  local E="NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO PG_TIMEOUT_S=40"
  pair h200-2nodes-torchrun-nccl-socket-ifname-lo-on-both-nodes 90 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.93.0.1 --node_rank 0 $JB/train2n.py" "$TRN --master_addr 10.93.0.1 --node_rank 1 $JB/train2n.py"
  killns $NA $NB; }
# R2 resources: node 1 alone got PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:16 (from a fragmentation tuning note)
j_alloc() { local NA NB; nodes2 alloc 10.94.0.1 10.94.0.2
  pair h200-2nodes-torch-nccl-node1-alloc-conf-max-split-size-mb-16 100 60 $NA $NB \
    "$EV MASTER_ADDR=10.94.0.1 RANK=0 LOCAL_RANK=0 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-0" \
    "$EV MASTER_ADDR=10.94.0.1 RANK=1 LOCAL_RANK=0 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-1 PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:16" \
    "python3 $JB/train2n.py" "python3 $JB/train2n.py"
  killns $NA $NB; }
# E1 versions: node 0's image preloads the system NCCL (libnccl2 2.28.3) over torch's wheel NCCL 2.28.9; node 1 does not
j_ncclv() { if [ -z "$NCCL_SYS" ]; then echo "== no system libnccl, skip j_ncclv"; return; fi
  local NA NB; nodes2 ncclv 10.95.0.1 10.95.0.2
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO PG_TIMEOUT_S=40"
  pair h200-2nodes-torchrun-nccl-node0-ld-preload-system-libnccl-2.28.3 100 25 $NA $NB \
    "LD_PRELOAD=$NCCL_SYS $E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.95.0.1 --node_rank 0 $JB/train2n.py" "$TRN --master_addr 10.95.0.1 --node_rank 1 $JB/train2n.py"
  killns $NA $NB; }
# N1 network: NCCL_COMM_ID pinned to the old head address 10.96.0.21 (the head is now 10.96.0.1), both nodes
j_commid() { local NA NB; nodes2 commid 10.96.0.1 10.96.0.2
  pair h200-2nodes-torch-nccl-comm-id-old-head-address-10.96.0.21 100 25 $NA $NB \
    "$EV MASTER_ADDR=10.96.0.1 RANK=0 LOCAL_RANK=0 NCCL_COMM_ID=10.96.0.21:29611 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-0" \
    "$EV MASTER_ADDR=10.96.0.1 RANK=1 LOCAL_RANK=0 NCCL_COMM_ID=10.96.0.21:29611 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train2n.py" "python3 $JB/train2n.py"
  killns $NA $NB; }
# N2 network: node 1's eth1 was configured 10.97.0.2/32 (netplan prefix typo): no route to the master 10.97.0.1
j_mask() { local NA NB; nodes2 mask 10.97.0.1 10.97.0.2/32
  echo "   node 1 routes:"; python3 $D/netz.py show $NB
  pair h200-2nodes-torch-nccl-node1-eth1-prefix-32-master-unreachable 100 20 $NA $NB \
    "$EV MASTER_ADDR=10.97.0.1 RANK=0 LOCAL_RANK=0 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-0" \
    "$EV MASTER_ADDR=10.97.0.1 RANK=1 LOCAL_RANK=0 NCCL_SOCKET_IFNAME=eth1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train2n.py" "python3 $JB/train2n.py"
  killns $NA $NB; }
# ================================================================== single-host jobs
# P partitioning: torch native TP of a Llama-3.2-3B attention block (24 heads, 8 KV heads) over TP 3, gloo on CPU
j_tp() { job h200-torchrun-gloo-tp3-llama3.2-3b-attention-8-kv-heads 120 "" \
  $TR --nproc_per_node 3 --master_port 29811 $JB/tp_attn.py $JB/configs/llama3.2-3b-config.json; }
# R1 resources: DCP sharded checkpoints (about 50 MB each) every 10 steps onto an 80 MiB volume, 2 gloo ranks
j_dcp() { mkdir -p /mnt/ckpt-vol
  HDR="df -h /mnt/ckpt-vol; CKPT_DIR=/mnt/ckpt-vol/distill-run N_LAYERS=2 STEPS=40 SAVE_EVERY=10 $TR --nproc_per_node 2 --master_port 29812 $JB/dcp_train.py" \
  job h200-torchrun-gloo-dcp-checkpoint-volume-80m-full-second-save 120 "CKPT_DIR=/mnt/ckpt-vol/distill-run N_LAYERS=2 STEPS=40 SAVE_EVERY=10" \
  unshare -m sh -c "mount -t tmpfs -o size=80m ckpt-vol /mnt/ckpt-vol && df -h /mnt/ckpt-vol && exec $TR --nproc_per_node 2 --master_port 29812 $JB/dcp_train.py"; }
# E2 versions: resume state saved by the old stack (torch < 2.6) holds an argparse.Namespace; torch 2.11 loads with
#    weights_only=True by default
j_resume() { local M=/scratch/models/tinylm-sft-base C=/scratch/runs/sft-a/checkpoint-1200/training_state.pt
  python3 $JB/prep_model.py $M $C > $A/prep-resume.txt 2>&1
  job h200-torchrun-nccl-resume-training-state-argparse-namespace-torch-2.11 90 "MODEL_DIR=$M RESUME_FROM=$C" \
    $TR --nproc_per_node 1 --master_port 29813 $JB/finetune.py; }
# O other: model directory cloned without git-lfs: pytorch_model.bin is the 132-byte LFS pointer
j_lfs() { local M=/scratch/models/tinylm-base-clone
  python3 $JB/prep_model.py $M > $A/prep-lfs.txt 2>&1
  printf 'version https://git-lfs.github.com/spec/v1\noid sha256:9d2b6e1f0c4a7e3b58d1f2a6c9e0b4d7a3f8c1e6b2d9a5f0e7c4b1a8d3f6e2c9\nsize 153676763\n' > $M/pytorch_model.bin
  HDR="ls -la $M; MODEL_DIR=$M $TR --nproc_per_node 1 --master_port 29814 $JB/finetune.py" \
  job h200-torchrun-nccl-finetune-model-dir-git-lfs-pointer-pytorch-model-bin 90 "MODEL_DIR=$M" \
    sh -c "ls -la $M && exec $TR --nproc_per_node 1 --master_port 29814 $JB/finetune.py"; }
# H1 healthy: 4 gloo ranks resume from a 2-rank DCP checkpoint (resharding), TORCH_DISTRIBUTED_DEBUG=INFO, c10d INFO
j_ok1() { local C=/scratch/runs/distill-b
  rm -rf $C; env CKPT_DIR=$C N_LAYERS=2 STEPS=20 SAVE_EVERY=20 $TR --nproc_per_node 2 --master_port 29815 $JB/dcp_train.py > $A/ok1-first-run.txt 2>&1
  echo "   ok1 first run rc $? ($(ls $C 2>/dev/null | tr '\n' ' '))"
  job h200-torchrun-gloo-4ranks-dcp-resume-2rank-checkpoint-debug-info-ok 120 \
    "CKPT_DIR=$C N_LAYERS=2 STEPS=40 SAVE_EVERY=10 AMP=1 TORCH_DISTRIBUTED_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO" \
    $TR --nproc_per_node 4 --master_port 29816 $JB/dcp_train.py; }
# H2 healthy: fine-tune with legacy torch.cuda.amp API (FutureWarnings), NCCL_DEBUG=INFO, IB/P2P off
j_ok2() { local M=/scratch/models/tinylm-sft-base2
  python3 $JB/prep_model.py $M > $A/prep-ok2.txt 2>&1
  job h200-torchrun-nccl-finetune-legacy-cuda-amp-nccl-info-ok 120 \
    "MODEL_DIR=$M LEGACY_AMP=1 STEPS=40 NCCL_DEBUG=INFO NCCL_IB_DISABLE=1 NCCL_P2P_DISABLE=1" \
    $TR --nproc_per_node 1 --master_port 29817 $JB/finetune.py; }
# ================================================================== schedule
ts "start"
for f in j_grank j_stale j_lo j_alloc j_ncclv j_commid j_mask; do ts "launch $f"; $f & P="$P $!"; sleep 1; done
for f in j_tp j_dcp j_resume j_lfs j_ok1 j_ok2; do ts "launch $f"; $f & P="$P $!"; sleep 2; done
wait $P
ts "all done"
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
