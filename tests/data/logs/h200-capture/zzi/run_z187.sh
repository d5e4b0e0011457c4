#!/usr/bin/env bash
# Z187 capture run: torch-only faults made on purpose on the one-GPU node (one batch call, < 270 s).
# Plain torch 2.11 (torchrun), NCCL and Gloo. "Nodes" are network + UTS + mount namespaces joined by a veth
# (netz.py, from h200-capture/zzg; the node has no `ip`). Helpers from zzg/run_z185.sh.
# Call (from the repo root): cd .device/Z187 && timeout -k 10 300 bash run_z187.sh 2>&1 | tee $OUT/run_z187.out
set -u
set -m
OUT=${OUT:-/tmp/z187-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z187
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
TRP=$(command -v torchrun || echo "python3 -m torch.distributed.run")
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"
echo "TR=$TR; setpriv: $(command -v setpriv); video group: $(getent group video)"
# ------------------------------------------------------------------ helpers (from zzg/run_z185.sh)
# one JOB: NAME LIMIT "ENV" CMD... (host namespace, output to logs/NAME.log; HDR overrides the command line shown)
job() { local name=$1 lim=$2 e=$3; shift 3
  echo "\$ ${HDR:-${e:+$e }$*}" > $L/$name.log
  env $e timeout -s INT -k 10 $lim "$@" >> $L/$name.log 2>&1
  fin $name $?; }
# a "node": network + UTS + mount namespace held by a sleeping process; HOSTS (optional) becomes its /etc/hosts,
# SCR (optional) its /scratch/ckpt (node-local disk)
mkns() { local h=$1 hosts=${2:-} scr=${3:-} c
  c="hostname $h;"
  [ -n "$hosts" ] && c="$c mount --bind $hosts /etc/hosts;"
  [ -n "$scr" ] && c="$c mount --bind $scr /scratch/ckpt;"
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
# two nodes on one veth: KEY A0 B0 [SCR0 SCR1]; sets NA NB
nodes2() { local k=$1 a=$2 b=$3 scr0=${4:-} scr1=${5:-}
  hosts2 $Z/hosts-$k $a ${b%/*}
  mkns gpu-node-0 $Z/hosts-$k $scr0; NA=$NODE; mkns gpu-node-1 $Z/hosts-$k $scr1; NB=$NODE
  python3 $D/netz.py veth $NA $a eth1 $NB $b eth1 | sed 's/^/   /'; }
TRN="$TR --nnodes 2 --nproc_per_node 1 --master_port 29500"
NE="NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=40 OMP_NUM_THREADS=2"
P=""
# ================================================================== two-"node" jobs
# V visibility: both nodes run the job as the service user (uid 65534); node 1's driver was installed with
#   NVreg_DeviceFileMode=0660 / NVreg_DeviceFileGID=44 (video), and the service user is not in 'video'
j_devperm() { local NA NB; nodes2 devperm 10.71.0.1 10.71.0.2
  mkdir -p $Z/home-svc && chmod 1777 $Z/home-svc
  local MK="mkdir -p /mnt/z187-dev && mount -t tmpfs -o mode=755 z187-dev /mnt/z187-dev && for d in /dev/nvidiactl /dev/nvidia0; do b=\$(basename \$d); mknod -m 0660 /mnt/z187-dev/\$b c \$((0x\$(stat -c %t \$d))) \$((0x\$(stat -c %T \$d))) && chgrp 44 /mnt/z187-dev/\$b && mount --bind /mnt/z187-dev/\$b \$d; done;"
  local RUN="ls -l /dev/nvidia*; setpriv --reuid=65534 --regid=65534 --clear-groups id; setpriv --reuid=65534 --regid=65534 --clear-groups nvidia-smi -L; exec setpriv --reuid=65534 --regid=65534 --clear-groups"
  pair h200-2nodes-torchrun-nccl-node1-dev-nvidia-0660-group-video-service-user 100 50 $NA $NB \
    "$NE HOME=$Z/home-svc NCCL_HOSTID=gpu-node-0" "$NE HOME=$Z/home-svc NCCL_HOSTID=gpu-node-1" \
    "$RUN $TRN --master_addr 10.71.0.1 --node_rank 0 $JB/train.py" "$MK $RUN $TRN --master_addr 10.71.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# C1 communication: node 1 was built from a cloud HPC image whose job env sets NCCL_TOPO_FILE to the VM family's
#   topology file; on this node the image build left it cut short (NCCL_DEBUG=INFO on both)
j_topo() { local NA NB; nodes2 topo 10.72.0.1 10.72.0.2
  mkdir -p /opt/microsoft
  python3 - > /opt/microsoft/ndv5-topo.xml <<'PY'
s = ['<system version="1">', '  <cpu numaid="0" affinity="0000ffff,ffffffff,00000000,0000ffff,ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">']
for i, (g, n) in enumerate([("0001", "0101"), ("0002", "0102"), ("0003", "0103"), ("0008", "0104")]):
    s += [f'    <pci busid="ffff:ff:0{i + 1}.0" class="0x060400" vendor="0xffff" device="0xffff" subsystem_vendor="0xffff" subsystem_device="0xffff" link_speed="32.0 GT/s PCIe" link_width="16">',
          f'      <pci busid="{g}:00:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16"/>',
          f'      <pci busid="{n}:00:00.0" class="0x020700" vendor="0x15b3" device="0x101e" subsystem_vendor="0x15b3" subsystem_device="0x0023" link_speed="32.0 GT/s PCIe" link_width="16"/>',
          '    </pci>']
print("\n".join(s)[:1900], end="")
PY
  echo "   ndv5-topo.xml: $(wc -c < /opt/microsoft/ndv5-topo.xml) bytes, ends '$(tail -c 60 /opt/microsoft/ndv5-topo.xml)'"
  local E="$NE NCCL_DEBUG=INFO PG_TIMEOUT_S=40"
  pair h200-2nodes-torchrun-nccl-node1-image-topo-file-ndv5-cut-short 100 45 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1 NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml NCCL_IB_PCI_RELAXED_ORDERING=1" \
    "$TRN --master_addr 10.72.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.72.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# C2 communication: node 0 launched with NCCL_PROTO=Simple, node 1 with NCCL_PROTO=LL (per-node env drift), INFO
j_proto() { local NA NB; nodes2 proto 10.73.0.1 10.73.0.2
  local E="$NE NCCL_DEBUG=INFO PG_TIMEOUT_S=30"
  pair h200-2nodes-torchrun-nccl-proto-simple-node0-ll-node1 90 50 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0 NCCL_PROTO=Simple" "$E NCCL_HOSTID=gpu-node-1 NCCL_PROTO=LL" \
    "$TRN --master_addr 10.73.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.73.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# N network: c10d rendezvous; node 1 was started by the requeued allocation and passes its own job id as --rdzv-id
j_rdzv() { local NA NB; nodes2 rdzv 10.74.0.1 10.74.0.2
  local C="$TR --nnodes 2 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.74.0.1:29400 --rdzv-conf join_timeout=60"
  pair h200-2nodes-torchrun-c10d-node1-rdzv-id-of-requeued-job 100 25 $NA $NB \
    "$NE NCCL_HOSTID=gpu-node-0 SLURM_JOB_ID=881204" "$NE NCCL_HOSTID=gpu-node-1 SLURM_JOB_ID=881377" \
    "$C --rdzv-id 881204 $JB/train.py" "$C --rdzv-id 881377 $JB/train.py"
  killns $NA $NB; }
# R1 resources: both nodes use the 100G tuning env (8 socket threads x 8 sockets, 4 channels); node 1's container
#   runtime sets nofile 128
j_fd() { local NA NB; nodes2 fd 10.75.0.1 10.75.0.2
  local E="$NE NCCL_DEBUG=WARN NCCL_SOCKET_NTHREADS=8 NCCL_NSOCKS_PERTHREAD=8 NCCL_MIN_NCHANNELS=4"
  pair h200-2nodes-torchrun-nccl-node1-nofile-128-socket-threads-8x8 100 50 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "ulimit -n; $TRN --master_addr 10.75.0.1 --node_rank 0 $JB/train.py" "ulimit -n 128; ulimit -n; $TRN --master_addr 10.75.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# R2 resources: node 1's container has pids.max 48; 8 DataLoader workers per rank (the 64-core node template)
j_pids() { local NA NB CG=/sys/fs/cgroup/z187_node1_pids
  grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo +pids > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p $CG && echo 48 > $CG/pids.max && echo "   $CG/pids.max = $(cat $CG/pids.max)"
  nodes2 pids 10.76.0.1 10.76.0.2
  pair h200-2nodes-torchrun-nccl-node1-container-pids-limit-48-loader-8-workers 100 50 $NA $NB \
    "$NE NCCL_HOSTID=gpu-node-0 NUM_WORKERS=8 OMP_NUM_THREADS=4" "$NE NCCL_HOSTID=gpu-node-1 NUM_WORKERS=8 OMP_NUM_THREADS=4" \
    "$TRN --master_addr 10.76.0.1 --node_rank 0 $JB/train.py" \
    "echo \$\$ > $CG/cgroup.procs && echo pids.max \$(cat $CG/pids.max) && exec $TRN --master_addr 10.76.0.1 --node_rank 1 $JB/train.py"
  echo "   pids.events: $(cat $CG/pids.events 2>/dev/null | tr '\n' ' ')"
  killns $NA $NB; sleep 1; rmdir $CG 2>/dev/null; }
# P partitioning: TP 2 pre-flight of a Falcon-7B-shaped block (71 heads, multi-query) over two nodes, Gloo on CPU
j_tp() { local NA NB; nodes2 tp 10.77.0.1 10.77.0.2
  local E="GLOO_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=4"
  pair h200-2nodes-torchrun-gloo-tp2-falcon-7b-71-heads 100 20 $NA $NB "$E" "$E" \
    "$TRN --master_addr 10.77.0.1 --node_rank 0 $JB/tp_attn.py $JB/configs/falcon-7b-config.json" \
    "$TRN --master_addr 10.77.0.1 --node_rank 1 $JB/tp_attn.py $JB/configs/falcon-7b-config.json"
  killns $NA $NB; }
# R3 resources: DCP checkpoint every 10 steps to shared storage; node 1's limits.conf sets fsize 16384 (16 MiB)
j_fsize() { local NA NB C=/scratch/shared/distill-c; rm -rf $C; mkdir -p $C
  nodes2 fsize 10.78.0.1 10.78.0.2
  local E="GLOO_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2 CKPT_DIR=$C STEPS=30 SAVE_EVERY=10 N_LAYERS=4"
  pair h200-2nodes-torchrun-gloo-dcp-save-node1-ulimit-f-16m 100 40 $NA $NB "$E" "$E" \
    "ulimit -f; $TRN --master_addr 10.78.0.1 --node_rank 0 $JB/dcp_train.py" \
    "ulimit -f 16384; ulimit -f; $TRN --master_addr 10.78.0.1 --node_rank 1 $JB/dcp_train.py"
  ls -la $C/* > $A/fsize-ckpt-ls.txt 2>&1
  killns $NA $NB; }
# O other: checkpoints went to node-local /scratch/ckpt on each node (not the shared volume); resume on both nodes
j_local() { local NA NB; rm -rf $Z/scr0 $Z/scr1; mkdir -p $Z/scr0 $Z/scr1 /scratch/ckpt
  nodes2 local 10.79.0.1 10.79.0.2 $Z/scr0 $Z/scr1
  local E="GLOO_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2 CKPT_DIR=/scratch/ckpt/distill-d N_LAYERS=2"
  # first job (its console kept in aux/): 20 steps, checkpoint at step 20
  local L0=$L; L=$A
  pair local-first-run 60 20 $NA $NB "$E STEPS=20 SAVE_EVERY=20" "$E STEPS=20 SAVE_EVERY=20" \
    "$TRN --master_addr 10.79.0.1 --node_rank 0 $JB/dcp_train.py" "$TRN --master_addr 10.79.0.1 --node_rank 1 $JB/dcp_train.py"
  L=$L0
  echo "   node0 scratch: $(ls -a $Z/scr0/distill-d/step-20 2>&1 | tr '\n' ' ')  node1 scratch: $(ls -a $Z/scr1/distill-d/step-20 2>&1 | tr '\n' ' ')"
  { echo "\$ ls -la /scratch/ckpt/distill-d/step-20   # node 0"; ls -la $Z/scr0/distill-d/step-20
    echo "\$ ls -la /scratch/ckpt/distill-d/step-20   # node 1"; ls -la $Z/scr1/distill-d/step-20; } > $L/h200-2nodes-torchrun-gloo-dcp-resume-checkpoint-on-node-local-scratch.log 2>&1
  pair h200-2nodes-torchrun-gloo-dcp-resume-checkpoint-on-node-local-scratch 70 30 $NA $NB \
    "$E STEPS=40 SAVE_EVERY=20 RESUME_FROM=/scratch/ckpt/distill-d/step-20" "$E STEPS=40 SAVE_EVERY=20 RESUME_FROM=/scratch/ckpt/distill-d/step-20" \
    "$TRN --master_addr 10.79.0.1 --node_rank 0 $JB/dcp_train.py" "$TRN --master_addr 10.79.0.1 --node_rank 1 $JB/dcp_train.py"
  killns $NA $NB; }
# H1 healthy: two nodes, NCCL INFO, deprecated env and AMP API, IB settings without IB, DETAIL debug, loader workers
j_ok1() { local NA NB; nodes2 ok1 10.80.0.1 10.80.0.2
  local E="NCCL_SOCKET_IFNAME=eth1,eth0 PG_TIMEOUT_S=120 OMP_NUM_THREADS=2 NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5_0:1,mlx5_3:1 NCCL_ASYNC_ERROR_HANDLING=1 TORCH_DISTRIBUTED_DEBUG=DETAIL LEGACY_AMP=1 NUM_WORKERS=2 STEPS=60"
  pair h200-2nodes-torchrun-nccl-info-legacy-amp-deprecated-env-detail-ok 120 40 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$TRN --master_addr 10.80.0.1 --node_rank 0 $JB/train.py" "$TRN --master_addr 10.80.0.1 --node_rank 1 $JB/train.py"
  killns $NA $NB; }
# ================================================================== single-host jobs
# E versions: CPU distillation pool, torch.compile; the image's env keeps CXX=g++-14 from its build stage (not installed)
j_cxx() { rm -rf $Z/inductor-cache
  job h200-torchrun-gloo-compile-cxx-g++-14-from-build-stage 120 "CXX=g++-14 TORCHINDUCTOR_CACHE_DIR=$Z/inductor-cache" \
    $TR --nproc_per_node 2 --master_port 29871 $JB/compile_train.py; }
# H2 healthy: 3 Gloo ranks over a memory-mapped token file with malformed records (skipped with warnings)
j_ok2() { local F=/scratch/data/tok-v2.bin; mkdir -p /scratch/data
  python3 -c "
import numpy as np
a = np.random.default_rng(0).integers(0, 4096, size=(2000, 129), dtype=np.int32); a[:, 0] = 128; a[::97, 0] = -1
a.tofile('$F')"
  job h200-torchrun-gloo-3ranks-memmap-readonly-malformed-records-skipped-ok 120 "DATA_FILE=$F" \
    $TR --nproc_per_node 3 --master_port 29872 $JB/memmap_train.py; }
# ================================================================== schedule
ts "start"
for f in j_devperm j_topo j_proto j_rdzv j_fd j_pids j_tp j_fsize j_local j_ok1; do ts "launch $f"; $f & P="$P $!"; sleep 1; done
for f in j_cxx j_ok2; do ts "launch $f"; $f & P="$P $!"; sleep 2; done
wait $P
ts "all done"
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
