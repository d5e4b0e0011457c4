#!/usr/bin/env bash
# Z188 capture run: torch-only faults made on purpose on the one-GPU node (one batch call, < 270 s).
# Plain torch 2.11 (torchrun), NCCL and Gloo. "Nodes" are network + UTS + mount namespaces joined by a veth
# (netz.py, from h200-capture/zzg; the node has no `ip`). Helpers after zzi/run_z187.sh.
# Call (from the repo root): cd .device/Z188 && timeout -k 10 300 bash run_z188.sh 2>&1 | tee $OUT/run_z188.out
set -u
set -m
OUT=${OUT:-/tmp/z188-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z188
mkdir -p $L $A $Z
JB=/workspace/train
mkdir -p $JB && cp -r $D/jobs/. $JB/ && chmod +x $JB/*.sh
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -a -v -e '^frame #' -e '^\[rank[0-9]*\]:  ' "$L/$1.log" | tail -n 4 | cut -c1-200 | sed 's/^/      /'; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch, numpy; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'numpy', numpy.__version__)"
python3 -c "import h5py; print('image h5py', h5py.__version__)" 2>&1 | tail -1
echo "TR=$TR; taskset: $(command -v taskset); /etc/nccl.conf: $(ls -l /etc/nccl.conf 2>&1)"
[ -s /etc/nccl.conf ] && sed 's/^/   host nccl.conf: /' /etc/nccl.conf
# host-side mount targets for the per-node bind mounts (empty; each "node" binds its own content over them)
MADE_CONF=0; [ -e /etc/nccl.conf ] || { : > /etc/nccl.conf; MADE_CONF=1; }
MADE_ETCTRAIN=0; [ -d /etc/train ] || { mkdir -p /etc/train; MADE_ETCTRAIN=1; }
mkdir -p /opt/data-deps /scratch/eval /scratch/data/tok /scratch/shared
# ------------------------------------------------------------------ helpers (after zzi/run_z187.sh)
# one JOB: NAME LIMIT "ENV" CMD... (host namespace, output to logs/NAME.log)
job() { local name=$1 lim=$2 e=$3; shift 3
  echo "\$ ${e:+$e }$*" > $L/$name.log
  env $e timeout -s INT -k 10 $lim "$@" >> $L/$name.log 2>&1
  fin $name $?; }
# a "node": network + UTS + mount namespace held by a sleeping process; HOSTS becomes its /etc/hosts; EXTRA: shell
# commands run inside the new mount namespace before it settles (per-node mounts: conf files, tmpfs, read-only root)
mkns() { local h=$1 hosts=$2 extra=${3:-} key=$4 c
  c="hostname $h; mount --bind $hosts /etc/hosts"
  [ -n "$extra" ] && c="$c; $extra"
  unshare -n -u -m sh -c "$c; exec sleep 600" > $A/mkns-$key-$h.txt 2>&1 &
  NODE=$!; disown $NODE; sleep 0.5
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
# two nodes on one veth: KEY A0 B0 "EXTRA0" "EXTRA1"; sets NA NB
nodes2() { local k=$1 a=$2 b=$3 x0=${4:-} x1=${5:-}
  hosts2 $Z/hosts-$k $a $b
  mkns gpu-node-0 $Z/hosts-$k "$x0" $k; NA=$NODE; mkns gpu-node-1 $Z/hosts-$k "$x1" $k; NB=$NODE
  python3 $D/netz.py veth $NA $a eth1 $NB $b eth1 | sed 's/^/   /'; }
TRN="$TR --nnodes 2 --nproc_per_node 1 --master_port 29500"
NE="NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=40 OMP_NUM_THREADS=2"
P=""
# ================================================================== jobs
# C1 communication: node 1 was imaged from an InfiniBand cluster's template whose /etc/nccl.conf sets NCCL_NET=IB and
#   IB HCAs; this cluster has no InfiniBand; the job env (NCCL_SOCKET_IFNAME=eth1, INFO) is the same on both nodes
j_conf() { local NA NB
  printf '%s\n' 'NCCL_NET=IB' 'NCCL_IB_HCA=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1' 'NCCL_IB_GID_INDEX=3' 'NCCL_IB_TIMEOUT=22' \
    'NCCL_CROSS_NIC=1' > $Z/nccl-ib.conf
  nodes2 conf 10.81.0.1 10.81.0.2 "" "mount --bind $Z/nccl-ib.conf /etc/nccl.conf"
  local E="$NE NCCL_DEBUG=INFO"
  pair h200-2nodes-torchrun-nccl-node1-image-etc-nccl-conf-net-ib 100 30 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.81.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.81.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# C2 communication: DDP bucket size from the per-node job config; node 1 still has DDP_BUCKET_CAP_MB=100 from a tuning
#   experiment, node 0 the default 25 (a 270 MB model, so the gradient buckets differ in size and count)
j_bucket() { local NA NB; nodes2 bucket 10.82.0.1 10.82.0.2
  local E="$NE NCCL_DEBUG=WARN PG_TIMEOUT_S=30 D_MODEL=1024 D_FF=4096 N_LAYERS=8 BATCH=64 STEPS=30"
  pair h200-2nodes-torchrun-nccl-ddp-node1-bucket-cap-mb-100-node0-25 100 45 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0 DDP_BUCKET_CAP_MB=25" "$E NCCL_HOSTID=gpu-node-1 DDP_BUCKET_CAP_MB=100" \
    "$TRN --master_addr 10.82.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.82.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# C3 communication: both nodes source /etc/train/nccl.env; node 1's copy was edited on a Windows laptop (CRLF line
#   endings), so NCCL_SOCKET_IFNAME is "eth1\r" there (and OMP_NUM_THREADS "4\r")
j_crlf() { local NA NB
  mkdir -p $Z/etc-train-crlf-n0 $Z/etc-train-crlf-n1
  printf '%s\n' '# cluster NCCL settings (ops/nccl.env)' 'NCCL_SOCKET_IFNAME=eth1' 'NCCL_IB_DISABLE=1' 'OMP_NUM_THREADS=4' '' \
    'PG_TIMEOUT_S=40' > $Z/etc-train-crlf-n0/nccl.env
  printf '%s\r\n' '# cluster NCCL settings (ops/nccl.env)' 'NCCL_SOCKET_IFNAME=eth1' 'NCCL_IB_DISABLE=1' 'OMP_NUM_THREADS=4' '' \
    'PG_TIMEOUT_S=40' > $Z/etc-train-crlf-n1/nccl.env
  nodes2 crlf 10.83.0.1 10.83.0.2 "mount --bind $Z/etc-train-crlf-n0 /etc/train" "mount --bind $Z/etc-train-crlf-n1 /etc/train"
  local C='set -a; . /etc/train/nccl.env; set +a; echo "[launcher] $(hostname): sourced /etc/train/nccl.env"; exec'
  pair h200-2nodes-torchrun-nccl-node1-env-file-crlf-socket-ifname 100 30 $NA $NB \
    "NCCL_DEBUG=INFO NCCL_HOSTID=gpu-node-0" "NCCL_DEBUG=INFO NCCL_HOSTID=gpu-node-1" \
    "$C $TRN --master_addr 10.83.0.1 --node_rank 0 $JB/train.py" "$C $TRN --master_addr 10.83.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# V visibility: each node starts the job with its env file, docker --env-file style (values verbatim); node 1's file was
#   written as CUDA_VISIBLE_DEVICES="0" (shell quoting), so the quotes are part of the value
j_cvdq() { local NA NB
  mkdir -p $Z/etc-train-cvd-n0 $Z/etc-train-cvd-n1
  printf '%s\n' 'CUDA_VISIBLE_DEVICES=0' 'NCCL_SOCKET_IFNAME=eth1' 'PG_TIMEOUT_S=40' > $Z/etc-train-cvd-n0/job.env
  printf '%s\n' 'CUDA_VISIBLE_DEVICES="0"' 'NCCL_SOCKET_IFNAME=eth1' 'PG_TIMEOUT_S=40' > $Z/etc-train-cvd-n1/job.env
  nodes2 cvdq 10.84.0.1 10.84.0.2 "mount --bind $Z/etc-train-cvd-n0 /etc/train" "mount --bind $Z/etc-train-cvd-n1 /etc/train"
  pair h200-2nodes-torchrun-nccl-node1-env-file-cuda-visible-devices-quoted 100 30 $NA $NB \
    "OMP_NUM_THREADS=2 NCCL_HOSTID=gpu-node-0" "OMP_NUM_THREADS=2 NCCL_HOSTID=gpu-node-1" \
    "$JB/launch_envfile.sh /etc/train/job.env $TRN --master_addr 10.84.0.1 --node_rank 0 $JB/train.py" \
    "$JB/launch_envfile.sh /etc/train/job.env $TRN --master_addr 10.84.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# P partitioning: a TP 2 fine-tune (Megatron-style column/row-parallel linears, Gloo on CPU) resumes from the
#   pre-training run's per-rank shards, which were saved at tensor-model-parallel size 4 (mp_rank_00..03)
j_tpck() { local NA NB CK=/scratch/shared/ckpt/llama-1b-pt
  rm -rf $CK; python3 $JB/mk_tp_ckpt.py $CK 4 > $A/mk-tp-ckpt.txt 2>&1; echo "   $(tail -1 $A/mk-tp-ckpt.txt)"
  nodes2 tpck 10.85.0.1 10.85.0.2
  local E="GLOO_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=4"
  pair h200-2nodes-torchrun-gloo-tp2-resume-megatron-checkpoint-saved-at-tp4 90 20 $NA $NB "$E" "$E" \
    "$TRN --master_addr 10.85.0.1 --node_rank 0 $JB/tp_resume.py $CK" "$TRN --master_addr 10.85.0.1 --node_rank 1 $JB/tp_resume.py $CK"
  killns $NA $NB; }
# R1 resources: node 1's /dev/shm (320 MiB, the container's --shm-size) still holds ~196 MiB of segments leaked by
#   earlier killed jobs (nccl-*, torch_*); 2 DataLoader workers per rank hand over 96 MiB image batches
j_shm() { local NA NB
  local X1="mount -t tmpfs -o size=320m z188-shm /dev/shm && for s in Ab3kZq x9QmT2 P0fWc7 h4LsYe; do head -c 33554432 /dev/urandom > /dev/shm/nccl-\$s; done && head -c 33554432 /dev/urandom > /dev/shm/torch_48211_2847199412_0 && head -c 33554432 /dev/urandom > /dev/shm/torch_48211_2847199412_1; ls -la /dev/shm"
  nodes2 shm 10.86.0.1 10.86.0.2 "" "$X1"
  local E="$NE DATA=images IMG=512 BATCH=32 NUM_WORKERS=2 STEPS=30 D_MODEL=256 D_FF=1024 N_LAYERS=2"
  pair h200-2nodes-torchrun-nccl-node1-dev-shm-leaked-segments-dataloader-workers 100 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$JB/prolog.sh; exec $TRN --master_addr 10.86.0.1 --node_rank 0 $JB/train.py" "$JB/prolog.sh; exec $TRN --master_addr 10.86.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# R2 resources: node 1 runs with a read-only root filesystem (a pod with readOnlyRootFilesystem: true and no emptyDir
#   for /tmp); /dev/shm stays writable
j_ro() { local NA NB
  local X1='for m in $(awk "{print \$5}" /proc/self/mountinfo); do case $m in /proc*|/sys*|/dev*) ;; *) mount -o remount,bind,ro $m 2>/dev/null;; esac; done; touch /tmp/.rw-test 2>&1; grep -c " ro," /proc/self/mounts'
  nodes2 ro 10.87.0.1 10.87.0.2 "" "$X1"
  pair h200-2nodes-torchrun-nccl-node1-read-only-root-filesystem-no-tmp 100 65 $NA $NB \
    "$NE NCCL_HOSTID=gpu-node-0" "$NE NCCL_HOSTID=gpu-node-1" \
    "cd $JB && exec $TRN --master_addr 10.87.0.1 --node_rank 0 --rdzv-conf timeout=45 train.py" \
    "cd $JB && exec $TRN --master_addr 10.87.0.1 --node_rank 1 --rdzv-conf timeout=45 train.py"
  killns $NA $NB; }
# R3 resources: each rank writes its eval predictions to node-local /scratch/eval at step 15; node 1's 48 MiB scratch
#   volume is still full of an earlier run's predictions (46 MiB)
j_evalfull() { local NA NB
  local X0="mount -t tmpfs -o size=48m z188-scratch /scratch/eval"
  local X1="$X0 && mkdir -p /scratch/eval/run-1203 && head -c 48234496 /dev/urandom > /scratch/eval/run-1203/preds-step004000-rank001.npy; df -h /scratch/eval"
  nodes2 evalfull 10.88.0.1 10.88.0.2 "$X0" "$X1"
  local E="$NE EVAL_AT=15 EVAL_BATCHES=16 STEPS=40 EVAL_DIR=/scratch/eval"
  pair h200-2nodes-torchrun-nccl-node1-scratch-volume-full-eval-preds 100 45 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.88.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.88.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# O other: each node stages its token shards onto node-local /scratch/data/tok; node 1's copy of its shard
#   train-00001-of-00002.bin was cut short by an interrupted copy (2,631,683 of 4,210,688 bytes)
j_shard() { local NA NB
  mkdir -p $Z/tok-n0 $Z/tok-n1
  python3 -c "
import numpy as np
for r in range(2):
    a = np.random.default_rng(r).integers(0, 8192, size=(4096, 257), dtype=np.int32)
    a.tofile('$Z/tok-n0/train-%05d-of-00002.bin' % r); a.tofile('$Z/tok-n1/train-%05d-of-00002.bin' % r)
open('$Z/tok-n1/train-00001-of-00002.bin', 'r+b').truncate(2631683)"
  ls -l $Z/tok-n0 $Z/tok-n1 > $A/shard-ls.txt 2>&1
  nodes2 shard 10.89.0.1 10.89.0.2 "mount --bind $Z/tok-n0 /scratch/data/tok" "mount --bind $Z/tok-n1 /scratch/data/tok"
  local E="$NE NCCL_DEBUG=WARN DATA=memmap SEQ=256 VOCAB=8192 BATCH=16 STEPS=30 D_MODEL=512 D_FF=2048 N_LAYERS=4"
  pair h200-2nodes-torchrun-nccl-node1-token-shard-copy-truncated 100 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.89.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.89.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# E versions: the data loader reads HDF5 through h5py from /opt/data-deps (PYTHONPATH); node 1's image still has the
#   old pinned h5py 3.10.0 (built against NumPy 1.x), node 0's was rebuilt with h5py 3.14.0; NumPy is 2.x on both
j_h5() { local NA NB
  rm -rf $Z/deps-new $Z/deps-old; mkdir -p $Z/deps-new $Z/deps-old
  python3 -m zipfile -e $D/wheels/h5py-3.14.0-cp312-*.whl $Z/deps-new && python3 -m zipfile -e $D/wheels/h5py-3.10.0-cp312-*.whl $Z/deps-old
  chmod -R a+rX $Z/deps-new $Z/deps-old
  PYTHONPATH=$Z/deps-new python3 -c "
import numpy as np, h5py
a = np.random.default_rng(0).integers(0, 8192, size=(8192, 129), dtype=np.int32)
with h5py.File('/scratch/data/tok-train.h5', 'w') as f: f['tokens'] = a
print('   wrote /scratch/data/tok-train.h5 with h5py', h5py.__version__)" 2>&1 | tail -3
  nodes2 h5 10.90.0.1 10.90.0.2 "mount --bind $Z/deps-new /opt/data-deps" "mount --bind $Z/deps-old /opt/data-deps"
  local E="$NE PYTHONPATH=/opt/data-deps DATA=h5 DATA_FILE=/scratch/data/tok-train.h5 SEQ=128 VOCAB=8192 BATCH=16 STEPS=30 N_LAYERS=4"
  local C='echo "[launcher] $(hostname): PYTHONPATH=$PYTHONPATH: $(ls /opt/data-deps | grep dist-info)"; exec'
  pair h200-2nodes-torchrun-nccl-node1-pythonpath-h5py-3.10-built-for-numpy-1 100 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$C $TRN --master_addr 10.90.0.1 --node_rank 0 $JB/train.py" "$C $TRN --master_addr 10.90.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# N network: c10d rendezvous; node 1 was started with the single-node launch script, which passes
#   --rdzv-endpoint localhost:29400 (node 0: 10.91.0.1:29400), so node 1 hosts a rendezvous store of its own
j_rdzv() { local NA NB; nodes2 rdzv 10.91.0.1 10.91.0.2
  local C="$TR --nnodes 2 --nproc_per_node 1 --rdzv-backend c10d --rdzv-id llm-pt-0412 --rdzv-conf join_timeout=60"
  pair h200-2nodes-torchrun-c10d-node1-rdzv-endpoint-localhost-from-single-node-script 110 25 $NA $NB \
    "$NE NCCL_HOSTID=gpu-node-0" "$NE NCCL_HOSTID=gpu-node-1" \
    "$C --rdzv-endpoint 10.91.0.1:29400 $JB/train.py" "$C --rdzv-endpoint localhost:29400 $JB/train.py"
  killns $NA $NB; }
# H1 healthy: two nodes, NCCL INFO, lazy NCCL init (no device_id) + barrier, an auxiliary loss whose target broadcasts,
#   3 loader workers on a 2-CPU cpuset (warnings only)
j_okA() { local NA NB TS0="" TS1=""; nodes2 oka 10.92.0.1 10.92.0.2
  local CPUS=$(python3 -c "import os; c = sorted(os.sched_getaffinity(0)); print(*c[-4:] if len(c) >= 8 else [])")
  set -- $CPUS
  [ $# = 4 ] && command -v taskset > /dev/null && { TS0="taskset -c $1,$2"; TS1="taskset -c $3,$4"; }
  echo "   okA cpusets: '$TS0' '$TS1'"
  local E="NCCL_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2 NCCL_DEBUG=INFO PG_TIMEOUT_S=120 EAGER_INIT=0 AUX_LOSS=1 NUM_WORKERS=3 STEPS=60"
  pair h200-2nodes-torchrun-nccl-info-lazy-init-barrier-loader-cpuset-warnings-ok 120 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TS0 $TRN --master_addr 10.92.0.1 --node_rank 0 $JB/train.py" "$TS1 $TRN --master_addr 10.92.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# H2 healthy: both nodes carry a correct /etc/nccl.conf (sockets on eth1), NCCL INFO with ENV; the shard manifest on
#   shared storage appears a few seconds late (the loader retries), rank 0 checkpoints every 30 steps
j_okB() { local NA NB M=/scratch/shared/ds-okb
  printf '%s\n' 'NCCL_SOCKET_IFNAME=eth1' 'NCCL_IB_DISABLE=1' 'NCCL_NET=Socket' 'NCCL_SOCKET_NTHREADS=2' 'NCCL_NSOCKS_PERTHREAD=2' > $Z/nccl-sock.conf
  rm -rf $M /scratch/shared/ckpt-okb; mkdir -p $M
  nodes2 okb 10.93.0.1 10.93.0.2 "mount --bind $Z/nccl-sock.conf /etc/nccl.conf" "mount --bind $Z/nccl-sock.conf /etc/nccl.conf"
  ( sleep 18; printf 'shard-00000 32768\nshard-00001 32768\n' > $M/.manifest.tmp && mv $M/.manifest.tmp $M/manifest.txt ) &
  local E="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET PG_TIMEOUT_S=120 OMP_NUM_THREADS=2 DATA_MANIFEST=$M/manifest.txt STEPS=60 SAVE_EVERY=30 CKPT_DIR=/scratch/shared/ckpt-okb"
  pair h200-2nodes-torchrun-nccl-etc-nccl-conf-sockets-late-manifest-retry-ok 120 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.93.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.93.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# ================================================================== schedule
ts "start"
for f in j_conf j_bucket j_crlf j_cvdq j_tpck j_shm j_ro j_evalfull j_shard j_h5 j_rdzv j_okA j_okB; do
  ts "launch $f"; $f & P="$P $!"; sleep 1; done
wait $P
ts "all done"
for f in $A/mkns-*.txt; do [ -s $f ] && { echo "--- $(basename $f)"; head -20 $f; }; done
find $A -type f -empty -delete
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
[ $MADE_CONF = 1 ] && rm -f /etc/nccl.conf
[ $MADE_ETCTRAIN = 1 ] && rmdir /etc/train 2>/dev/null
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
