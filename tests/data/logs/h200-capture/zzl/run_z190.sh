#!/usr/bin/env bash
# Z190 capture run: torch-only faults made on purpose on the one-GPU node (one batch call, < 270 s).
# Plain torch 2.11 (torchrun, c10d and static rendezvous), NCCL and Gloo, on TWO or THREE "nodes": network + UTS +
# mount namespaces. Two nodes share one veth (eth1); three nodes hang off a router namespace (one veth each, routed
# /24s, ip_forward on), built by netz.py (Z188's, plus bridge/port commands that this run does not need).
# Faults of the network between the nodes and of the per-node environment; 2 healthy noisy runs.
# Helpers after Z188/run_z188.sh. Call (from the repo root):
#   cd .device/Z190 && timeout -k 10 300 bash run_z190.sh 2>&1 | tee $OUT/run_z190.out
set -u
set -m
OUT=${OUT:-/tmp/z190-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z190
mkdir -p $L $A $Z
JB=/workspace/train
mkdir -p $JB && cp $D/jobs/*.py $JB/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
unset NCCL_DEBUG OMP_NUM_THREADS PYTORCH_CUDA_ALLOC_CONF CUDA_VISIBLE_DEVICES PYTHONHASHSEED NCCL_SOCKET_IFNAME 2>/dev/null
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -a -v -e '^frame #' -e '^\[rank[0-9]*\]:  ' -e ' NCCL INFO ' -e '^  File ' -e '^    ' "$L/$1.log" | tail -n 4 | cut -c1-200 | sed 's/^/      /'; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
# the libnccl.so.2 that torch really maps (RPATH of libtorch_cuda: the nvidia-nccl wheel)
NCCLSO=$(python3 -c "
import torch
torch.cuda.nccl.version()
print(sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libnccl' in l})[0])" 2>/dev/null)
python3 -c "import torch, numpy; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'numpy', numpy.__version__)"
echo "TR=$TR; NCCLSO=$NCCLSO ($(ls -lL "$NCCLSO" 2>&1 | awk '{print $5}') bytes); nvidia-modprobe: $(command -v nvidia-modprobe)"
# PYTHONHASHSEED: node 0's image pins 0; node 1's another value; take one that orders the aux-head set differently
HEADS=value,reward,mtp,contrastive
ORD0=$(PYTHONHASHSEED=0 python3 -c "print(list({h for h in '$HEADS'.split(',') if h}))")
HS1=42
for s in 42 1234 2024 7 123 1 31337; do
  o=$(PYTHONHASHSEED=$s python3 -c "print(list({h for h in '$HEADS'.split(',') if h}))")
  [ "$o" != "$ORD0" ] && { HS1=$s; break; }; done
echo "aux-head set order: PYTHONHASHSEED=0 $ORD0; PYTHONHASHSEED=$HS1 $(PYTHONHASHSEED=$HS1 python3 -c "print(list({h for h in '$HEADS'.split(',') if h}))")"
mkdir -p /scratch/data/tok /scratch/shared

# ------------------------------------------------------------------ helpers (after Z188/run_z188.sh)
# a "node": network + UTS + mount namespace held by a sleeping process; HOSTS becomes its /etc/hosts; EXTRA: shell
# commands run inside the new mount namespace before it settles (per-node mounts)
mkns() { local h=$1 hosts=$2 extra=${3:-} key=$4 c
  c="hostname $h; mount --bind $hosts /etc/hosts"
  [ -n "$extra" ] && c="$c; $extra"
  unshare -n -u -m sh -c "$c; exec sleep 400" > $A/mkns-$key-$h.txt 2>&1 &
  NODE=$!; disown $NODE; sleep 0.5; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
nsprocs() { local ns d p; ns=$(readlink /proc/$1/ns/net) || return
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$1" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && echo $p; done; }
killns() { local h; for h in "$@"; do kill -9 $(nsprocs $h) 2>/dev/null; kill -9 $h 2>/dev/null; done; }
# waitlog LOG PATTERN TENTHS: wait until PATTERN shows in LOG (0.1 s polls); 1 if it never does
waitlog() { local i; for i in $(seq $3); do grep -aq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
hostsf() { local f=$1; shift; printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > $f
  local i=0 a; for a in "$@"; do printf '%s\tgpu-node-%s\n' $a $i >> $f; i=$((i + 1)); done; }
# two nodes on one veth (eth1 both sides): KEY A0 A1 "EXTRA0" "EXTRA1"; sets N0 N1
nodes2() { local k=$1 a=$2 b=$3 x0=${4:-} x1=${5:-}
  hostsf $Z/hosts-$k $a $b
  mkns gpu-node-0 $Z/hosts-$k "$x0" $k; N0=$NODE; mkns gpu-node-1 $Z/hosts-$k "$x1" $k; N1=$NODE
  python3 $D/netz.py veth $N0 $a eth1 $N1 $b eth1 | sed "s/^/   $k: /"; }
# three nodes, each with one veth to a router namespace (node i: NET.i.10/24 on IF_i, gateway NET.i.1, route to
# NET.0.0/16), ip_forward on in the router: KEY NET "EXTRA0" "EXTRA1" "EXTRA2" IF2 (node 2's interface name, eth1)
nodes3() { local k=$1 net=$2 x0=${3:-} x1=${4:-} x2=${5:-} if2=${6:-eth1} R i ifn
  hostsf $Z/hosts-$k $net.0.10 $net.1.10 $net.2.10
  unshare -n sh -c 'exec sleep 400' > /dev/null 2>&1 & R=$!; disown $R; sleep 0.3
  mkns gpu-node-0 $Z/hosts-$k "$x0" $k; N0=$NODE; mkns gpu-node-1 $Z/hosts-$k "$x1" $k; N1=$NODE
  mkns gpu-node-2 $Z/hosts-$k "$x2" $k; N2=$NODE
  for i in 0 1 2; do eval "n=\$N$i"; ifn=eth1; [ $i = 2 ] && ifn=$if2
    python3 $D/netz.py veth $n $net.$i.10 $ifn $R $net.$i.1 r$i | sed "s/^/   $k: /"
    python3 $D/netz.py route $n $net.0.0/16 $net.$i.1 > /dev/null || echo "   $k: route on node $i FAILED"; done
  nsenter -n -t $R sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward' || echo "   $k: ip_forward FAILED"
  RT=$R; }
# multi NAME LIMIT GRACE SPEC...: one launcher per SPEC "NSPID|LABEL|DELAY|ENV|CMD", all consoles into logs/NAME.log
# (the header shows each launch line; NCCL_HOSTID, which only stands in for distinct machines, is left out of it).
# A node with DELAY > 0 starts DELAY s after the others (counted as running until then). When the first launcher
# ends, the others get GRACE s, then SIGINT (an operator's Ctrl-C), then SIGKILL 15 s later; LIMIT caps the start.
multi() { local name=$1 lim=$2 g=$3; shift 3
  local log=$L/$name.log k=0 N spec ns lab dl e c shown t end_at=-1 alive done1 tl rcs=""
  local -a NS LAB DL EV CM PID
  for spec in "$@"; do IFS='|' read -r ns lab dl e c <<< "$spec"
    NS[k]=$ns; LAB[k]=$lab; DL[k]=$dl; EV[k]=$e; CM[k]=$c; PID[k]=0
    shown=$(echo "$e" | sed -e 's/NCCL_HOSTID=[^ ]*//' -e 's/  */ /g' -e 's/^ //' -e 's/ $//')
    echo "# $lab: \$ ${shown:+$shown }${c//exec /}" >> $log; k=$((k + 1)); done
  N=$k; tl=$((lim + g + 20))
  for ((t = 0; t < lim + g + 5; t++)); do
    for ((k = 0; k < N; k++)); do
      if [ ${PID[k]} = 0 ] && [ $t -ge ${DL[k]} ]; then
        nsenter -n -u -m -t ${NS[k]} env ${EV[k]} timeout -s INT -k 10 $tl sh -c "${CM[k]}" >> $log 2>&1 &
        PID[k]=$!; fi; done
    alive=0; done1=0
    for ((k = 0; k < N; k++)); do
      if [ ${PID[k]} = 0 ] || kill -0 ${PID[k]} 2>/dev/null; then alive=$((alive + 1)); else done1=1; fi; done
    [ $alive = 0 ] && break
    [ $done1 = 1 ] && [ $end_at -lt 0 ] && end_at=$((t + g))
    [ $end_at -ge 0 ] && [ $t -ge $end_at ] && break
    [ $end_at -lt 0 ] && [ $t -ge $lim ] && break
    sleep 1; done
  for ((k = 0; k < N; k++)); do [ ${PID[k]} != 0 ] && kill -INT ${PID[k]} 2>/dev/null; done
  for t in $(seq 15); do alive=0
    for ((k = 0; k < N; k++)); do [ ${PID[k]} != 0 ] && kill -0 ${PID[k]} 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break; sleep 1; done
  for ((k = 0; k < N; k++)); do [ ${PID[k]} != 0 ] && kill -KILL ${PID[k]} 2>/dev/null; done
  for ((k = 0; k < N; k++)); do
    if [ ${PID[k]} = 0 ]; then rcs="$rcs n$k:-"; else wait ${PID[k]}; rcs="$rcs n$k:$?"; fi; done
  fin $name "$rcs"; }
NE="NCCL_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2 PG_TIMEOUT_S=40"
P=""

# ================================================================== jobs
# C1 communication: three nodes, c10d rendezvous at gpu-node-0:29400; the job env (same on all nodes) pins NCCL to
#   eth1, the cluster network's interface name on the old nodes; node 2 is a newer server whose cluster NIC is named
#   ens5f0 (predictable interface names), so NCCL finds no interface there
j_ifname() { local N0 N1 N2 RT name=h200-3nodes-torchrun-c10d-nccl-node2-nic-ens5f0-socket-ifname-eth1
  nodes3 ifn 10.61 "" "" "" ens5f0
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN OMP_NUM_THREADS=2 PG_TIMEOUT_S=60 STEPS=40"
  local C="exec $TR --nnodes 3 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint gpu-node-0:29400 --rdzv-id pt-ifn-0611 $JB/train.py"
  multi $name 100 30 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C" "$N2|node 2 (gpu-node-2)|0|$E NCCL_HOSTID=gpu-node-2|$C"
  killns $N0 $N1 $N2 $RT; }
# N1 network: three nodes, c10d rendezvous (join_timeout 40 s, read_timeout 30 s); node 2 is a fresh node whose image
#   pull took over a minute, so its launcher starts 75 s after the others; they gave up waiting before it came
j_late() { local N0 N1 N2 RT name=h200-3nodes-torchrun-c10d-node2-launcher-75s-late-join-timeout-40s
  nodes3 late 10.62
  local E="$NE STEPS=40"
  local C='echo "[launcher] $(hostname): $(date -u +%H:%M:%S) starting torchrun"; exec '"$TR --nnodes 3 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.62.0.10:29400 --rdzv-id pt-late-0612 --rdzv-conf join_timeout=40,read_timeout=30 $JB/train.py"
  multi $name 110 90 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C" "$N2|node 2 (gpu-node-2)|75|$E NCCL_HOSTID=gpu-node-2|$C"
  killns $N0 $N1 $N2 $RT; }
# P partitioning: elastic launch --nnodes 2:4 (c10d, default 30 s last call); the TP job config says TP_SIZE=auto (every rank the launcher
#   gives it); the 4th node was out for repair, so 3 nodes joined and the Llama-3-8B-shaped model (32 heads, 8 KV heads,
#   dim 4096) is split over TP 3
j_tp3() { local N0 N1 N2 RT name=h200-3nodes-torchrun-elastic-2-4-got-3-tp-auto-llama3-8b-32-heads
  nodes3 tp3 10.63
  local E="NCCL_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2 TP_SIZE=auto N_LAYERS=2 STEPS=20"
  local C="exec $TR --nnodes 2:4 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.63.0.10:29400 --rdzv-id cpt-llama3-0613 $JB/tp_train.py"
  multi $name 100 20 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C" "$N2|node 2 (gpu-node-2)|0|$E NCCL_HOSTID=gpu-node-2|$C"
  killns $N0 $N1 $N2 $RT; }
# R resources: node 0, the rendezvous host, runs a telemetry agent that listens on 0.0.0.0:29400 (torchrun's default
#   c10d port) and drops every connection that is not its own protocol; node 0's agent cannot host the store there
#   (it falls back to being a client, silently) and both agents talk to the telemetry agent
j_port() { local N0 N1 name=h200-2nodes-torchrun-c10d-node0-telemetry-agent-listens-on-29400
  nodes2 port 10.64.0.1 10.64.0.2
  cat > $Z/gpu-telemetry-agent.py <<'PY'
# stand-in for the node's telemetry agent: listens on 0.0.0.0:29400, closes connections that do not speak its protocol
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 29400)); s.listen(64)
while True:
    c, a = s.accept()
    try:
        c.settimeout(2); c.recv(24)
    except OSError:
        pass
    c.close()
PY
  on $N0 python3 $Z/gpu-telemetry-agent.py > $A/telemetry-agent.txt 2>&1 &
  sleep 1; echo "   port: node 0 listeners: $(on $N0 cat /proc/net/tcp | awk 'NR > 1 && $4 == "0A" {print $2}' | tr '\n' ' ')"
  local E="$NE STEPS=40"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.64.0.1:29400 --rdzv-id pt-0614 $JB/train.py"
  multi $name 120 20 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C"
  killns $N0 $N1; }
# E versions: node 1 crashed while pulling the training image; after its reboot the layer's last-written files are
#   zero-length (ext4 delayed allocation), among them torch's libnccl.so.2 (an empty file bound over it inside node 1's
#   mount namespace); static rendezvous
j_nccl0() { local N0 N1 name=h200-2nodes-torchrun-node1-image-libnccl-so-2-zero-length
  [ -n "$NCCLSO" ] || { echo "   SKIP $name: libnccl not found"; return; }
  : > $Z/libnccl.so.2.empty
  nodes2 nccl0 10.65.0.1 10.65.0.2 "" "mount --bind $Z/libnccl.so.2.empty $NCCLSO && ls -l $NCCLSO"
  local E="$NE STEPS=40"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.65.0.1 --master_port 29500 --rdzv-conf timeout=60"
  multi $name 110 25 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $JB/train.py" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $JB/train.py"
  killns $N0 $N1; }
# V visibility: a 3-pod job (static rendezvous, pod i = node rank i), hostNetwork pods that get the GPU through
#   NVIDIA_VISIBLE_DEVICES=all instead of a device-plugin request; pods 1 and 2 were scheduled onto the same host
#   (gpu-node-1: one network/UTS namespace for both), so both use its GPU 0
j_dup() { local N0 N1 name=h200-3pods-torchrun-nccl-pods-1-and-2-scheduled-on-same-host-gpu-0
  nodes2 dup 10.66.0.1 10.66.0.2
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO OMP_NUM_THREADS=2 PG_TIMEOUT_S=40 NVIDIA_VISIBLE_DEVICES=all STEPS=40"
  local C="exec $TR --nnodes 3 --nproc_per_node 1 --master_addr 10.66.0.1 --master_port 29500"
  multi $name 90 25 "$N0|pod trainer-0 (on gpu-node-0)|0|$E|$C --node_rank 0 $JB/train.py" \
    "$N1|pod trainer-1 (on gpu-node-1)|0|$E|$C --node_rank 1 $JB/train.py" \
    "$N1|pod trainer-2 (on gpu-node-1)|0|$E|$C --node_rank 2 $JB/train.py"
  killns $N0 $N1; }
# O1 other: resume with --max-restarts 2 (c10d); the previous attempt was killed while rank 0 wrote step-000600.pt
#   straight to its final name on shared storage, after it had already updated "latest"; every restart resumes from it
j_ckpt() { local N0 N1 name=h200-2nodes-torchrun-c10d-max-restarts-2-resume-latest-checkpoint-truncated CK=/scratch/shared/ckpt/pt-0617
  rm -rf $CK; mkdir -p $CK
  python3 -c "
import os, torch
g = torch.Generator().manual_seed(0)
for step, frac in ((400, 1.0), (600, 0.58)):
    sd = {'model': {f'blocks.{i}.weight': torch.randn(2048, 512, generator=g) for i in range(1, 32, 4)},
          'opt': {'state': {}, 'param_groups': []}, 'step': step}
    p = '$CK/step-%06d.pt' % step
    torch.save(sd, p); os.truncate(p, int(os.path.getsize(p) * frac))
open('$CK/latest', 'w').write('step-000600.pt\n')" 2>&1 | tail -2
  ls -l $CK > $A/ckpt-ls.txt 2>&1
  nodes2 ckpt 10.67.0.1 10.67.0.2
  local E="$NE NCCL_DEBUG=WARN STEPS=800 CKPT_DIR=$CK RESUME=1 SAVE_EVERY=200"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.67.0.1:29400 --rdzv-id pt-0617 --max-restarts 2 --rdzv-conf join_timeout=60 $JB/train.py"
  multi $name 150 30 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C"
  killns $N0 $N1; }
# C2 communication: multi-task fine-tune with auxiliary heads built from a set (AUX_HEADS); node 0's image pins
#   PYTHONHASHSEED=0, node 1's image another value, so the set iterates in another order there and DDP gets the
#   parameters in a different order on the two ranks
j_hash() { local N0 N1 name=h200-2nodes-torchrun-nccl-ddp-node1-pythonhashseed-differs-aux-heads-set-order
  nodes2 hash 10.68.0.1 10.68.0.2
  local E="$NE AUX_HEADS=$HEADS STEPS=40"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.68.0.1 --master_port 29500"
  multi $name 90 30 "$N0|node 0 (gpu-node-0)|0|$E PYTHONHASHSEED=0 NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $JB/train.py" \
    "$N1|node 1 (gpu-node-1)|0|$E PYTHONHASHSEED=$HS1 NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $JB/train.py"
  killns $N0 $N1; }
# O2 other: pre-tokenised shards staged per node to /scratch/data/tok; node 1's shard was re-tokenised with the newer
#   50k tokenizer (ids up to 50303) while the model still has the 32000-entry embedding
j_oob() { local N0 N1 name=h200-2nodes-torchrun-nccl-node1-token-shard-from-50k-tokenizer-vocab-32000
  mkdir -p $Z/tok-n0 $Z/tok-n1
  python3 -c "
import numpy as np
np.random.default_rng(0).integers(0, 32000, size=(4096, 257), dtype=np.int32).tofile('$Z/tok-n0/train-00000-of-00002.bin')
np.random.default_rng(1).integers(0, 50304, size=(4096, 257), dtype=np.int32).tofile('$Z/tok-n1/train-00001-of-00002.bin')"
  nodes2 oob 10.69.0.1 10.69.0.2 "mount --bind $Z/tok-n0 /scratch/data/tok" "mount --bind $Z/tok-n1 /scratch/data/tok"
  local E="NCCL_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2 NCCL_DEBUG=INFO PG_TIMEOUT_S=30 DATA=memmap SEQ=256 VOCAB=32000 BATCH=16 STEPS=40 N_LAYERS=4"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.69.0.1 --master_port 29500"
  multi $name 100 50 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $JB/train.py" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $JB/train.py"
  killns $N0 $N1; }
# C3 communication: three nodes, c10d, --nnodes 3 --max-restarts 1; after step 40 node 2 is lost as in a host crash
#   (its link down first, so no FIN/RST reaches the others, then every process in it SIGKILLed); nodes 0 and 1 hit the
#   30 s collective timeout, restart, and wait for a third node that never comes back (join_timeout 40 s)
j_lost() { local N0 N1 N2 RT name=h200-3nodes-torchrun-c10d-max-restarts-1-node2-lost-mid-run
  nodes3 lost 10.70
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET OMP_NUM_THREADS=2 PG_TIMEOUT_S=30 STEPS=400 STEP_SLEEP=0.25 PRINT_EVERY=20"
  local C="exec $TR --nnodes 3 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.70.0.10:29400 --rdzv-id pt-0620 --max-restarts 1 --rdzv-conf join_timeout=40 $JB/train.py"
  ( if waitlog $L/$name.log "rank0] train: step 40/" 1500; then
      python3 $D/netz.py down $N2 eth1 > /dev/null; killns $N2; echo "   $name: node 2 lost (eth1 down, SIGKILL) [t+$((SECONDS - T0))s]"
    else echo "   $name: step 40 never showed"; fi ) & local W=$!
  multi $name 170 100 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C" "$N2|node 2 (gpu-node-2)|0|$E NCCL_HOSTID=gpu-node-2|$C"
  kill $W 2>/dev/null; killns $N0 $N1 $N2 $RT; }
# H1 healthy: three nodes, c10d (default join timeout); node 2's launcher starts 20 s late (slow image pull) and joins
#   in time; NCCL INFO, lazy NCCL init (no device_id) + barrier, rank 0 checkpoints every 30 steps
j_ok3() { local N0 N1 N2 RT name=h200-3nodes-torchrun-c10d-nccl-info-node2-joins-20s-late-lazy-init-ok
  nodes3 ok3 10.71
  rm -rf /scratch/shared/ckpt/ok3
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO OMP_NUM_THREADS=2 PG_TIMEOUT_S=120 EAGER_INIT=0 STEPS=60 SAVE_EVERY=30 CKPT_DIR=/scratch/shared/ckpt/ok3"
  local C='echo "[launcher] $(hostname): $(date -u +%H:%M:%S) starting torchrun"; exec '"$TR --nnodes 3 --nproc_per_node 1 --rdzv-backend c10d --rdzv-endpoint 10.71.0.10:29400 --rdzv-id pt-0621 $JB/train.py"
  multi $name 150 40 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C" "$N2|node 2 (gpu-node-2)|20|$E NCCL_HOSTID=gpu-node-2|$C"
  killns $N0 $N1 $N2 $RT; }
# H2 healthy: two nodes x 2 processes, Gloo on CPU (a CPU-partition fine-tune of a small model), static rendezvous,
#   OMP_NUM_THREADS unset (torchrun's warning), 3 loader workers per rank on a 2-CPU cpuset (DataLoader's warning),
#   TORCH_DISTRIBUTED_DEBUG=INFO (DDP's logging), GLOO_SOCKET_IFNAME=eth1
j_okcpu() { local N0 N1 TS0="" TS1="" name=h200-2nodes-torchrun-gloo-cpu-2x2-omp-unset-loader-workers-ddp-debug-info-ok
  nodes2 okcpu 10.72.0.1 10.72.0.2
  local CPUS=$(python3 -c "import os; c = sorted(os.sched_getaffinity(0)); print(*c[-4:] if len(c) >= 8 else [])")
  set -- $CPUS
  [ $# = 4 ] && command -v taskset > /dev/null && { TS0="taskset -c $1,$2 "; TS1="taskset -c $3,$4 "; }
  local E="GLOO_SOCKET_IFNAME=eth1 TORCH_DISTRIBUTED_DEBUG=INFO TRAIN_DEVICE=cpu NUM_WORKERS=3 D_MODEL=256 D_FF=1024 N_LAYERS=4 BATCH=32 STEPS=40"
  local C="$TR --nnodes 2 --nproc_per_node 2 --master_addr 10.72.0.1 --master_port 29500"
  multi $name 150 40 "$N0|node 0 (gpu-node-0)|0|$E|exec $TS0$C --node_rank 0 $JB/train.py" \
    "$N1|node 1 (gpu-node-1)|0|$E|exec $TS1$C --node_rank 1 $JB/train.py"
  killns $N0 $N1; }

# ================================================================== schedule
ts "start"
for f in ${Z190_JOBS:-j_lost j_late j_ckpt j_port j_ok3 j_okcpu j_ifname j_tp3 j_nccl0 j_dup j_hash j_oob}; do
  ts "launch $f"; $f & P="$P $!"; sleep 1; done
wait $P
ts "all done"
for f in $A/mkns-*.txt $A/telemetry-agent.txt $A/ckpt-ls.txt; do [ -s $f ] && { echo "--- $(basename $f)"; head -20 $f; }; done
find $A -type f -empty -delete
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
