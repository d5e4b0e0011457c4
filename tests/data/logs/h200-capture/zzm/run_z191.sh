#!/usr/bin/env bash
# Z191 capture run: serving-style and data-pipeline faults made on purpose on the one-GPU node (one call, < 270 s).
# Plain torch 2.11 (torchrun), NCCL + Gloo. "tinyserve" (jobs/serve.py) is a small tensor-parallel model server: 2-3
# ranks, rank 0 runs a unix/TCP socket front-end and broadcasts each request (Gloo CPU control group, or NCCL), every
# rank holds a Megatron-style shard and all-reduces per layer; jobs/client.py drives it. jobs/data_train.py is a DDP
# trainer over memory-mapped token shards with DataLoader workers and checkpoints. Single-node jobs put 2-3 ranks on the
# one GPU (each rank its own NCCL "host" through NCCL_HOSTID, set by the HOSTID_PER_RANK harness line of the scripts);
# two-node jobs use network + UTS + mount namespaces joined by a veth (netz.py, from Z190).
# Call (from the repo root): cd .device/Z191 && timeout -k 10 300 bash run_z191.sh 2>&1 | tee $OUT/run_z191.out
set -u
set -m
OUT=${OUT:-/tmp/z191-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z191
mkdir -p $L $A $Z
JB=/workspace/tinyserve; OPT=/workspace/opt
mkdir -p $JB $OPT /models /scratch/shared /scratch/data/tok /mnt/datasets/tok-v3 /workspace/staging
cp $D/jobs/*.py $JB/ && cp -r $D/jobs/tinyserve-0.3 $D/jobs/tinyserve-0.5 $OPT/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
unset OMP_NUM_THREADS NCCL_DEBUG PYTORCH_CUDA_ALLOC_CONF CUDA_VISIBLE_DEVICES NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME 2>/dev/null
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -a -v -e '^frame #' -e '^\[rank[0-9]*\]:  ' -e ' NCCL INFO ' -e '^  File ' -e '^    ' -e '^-*$' "$L/$1.log" | tail -n 4 | cut -c1-200 | sed 's/^/      /'; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,uuid --format=csv,noheader
GPU_UUID=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')
python3 -c "import torch, numpy; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'numpy', numpy.__version__)"
echo "TR=$TR; GPU_UUID=$GPU_UUID; cgroup controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>&1); subtree: $(cat /sys/fs/cgroup/cgroup.subtree_control 2>&1)"

# ------------------------------------------------------------------ set-up: models, data, checkpoints (in parallel)
ts "set-up"
MK="python3 $JB/mkmodel.py"
( $MK /models/tinyllama-chat tinyllama-chat pt 2 ) > $A/mk-chat.txt 2>&1 &
( $MK /models/tinyllama-32k tinyllama-32k pt 2 ) > $A/mk-32k.txt 2>&1 &
( $MK /models/tinyllama-tp3 tinyllama-tp3 pt 3 ) > $A/mk-tp3.txt 2>&1 &
( $MK /models/starcoder2-15b starcoder2-15b none ) > $A/mk-sc2.txt 2>&1 &
( $MK /models/policy-rl tinyllama-chat pt 2 0 && $MK /workspace/staging/policy-step-000400 tinyllama-chat pt 2 400 ) > $A/mk-policy.txt 2>&1 &
( $MK $Z/mc-n0/tinyllama-chat tinyllama-chat npmm 2 && mkdir -p $Z/mc-n1 && cp -a $Z/mc-n0/tinyllama-chat $Z/mc-n1/ \
  && python3 -c "
import os
f = '$Z/mc-n1/tinyllama-chat/tp2/rank01/layers.2.mlp.gate_up_proj.bin'
n = os.path.getsize(f); os.truncate(f, int(n * 0.37)); print('node 1 copy:', f, n, '->', os.path.getsize(f), 'bytes')" ) > $A/mk-npmm.txt 2>&1 &
( $MK /models/tinyllama-chat-full tinyllama-chat none && PYTHONPATH=$OPT/tinyserve-0.5${PYTHONPATH:+:$PYTHONPATH} python3 -c "
import json, torch, tinyserve
from tinyserve.model import TinyLlamaForCausalLM
cfg = json.load(open('/models/tinyllama-chat-full/config.json'))
torch.save(TinyLlamaForCausalLM(cfg).to(torch.bfloat16), '/models/tinyllama-chat-full/model.pt')
print('exported /models/tinyllama-chat-full/model.pt with tinyserve', tinyserve.__version__)" ) > $A/mk-full.txt 2>&1 &
( python3 -c "
import numpy as np
for i in range(4):
    a = np.random.default_rng(i).integers(0, 8192, size=(2048, 257), dtype=np.int32)
    a.tofile(f'/mnt/datasets/tok-v3/train-{i:05d}-of-00004.bin'); a.tofile(f'/scratch/shared/tok-{i}.tmp')
print('4 shards x 2048 records of 257 tokens')" && cp -p /mnt/datasets/tok-v3/* /scratch/data/tok/ \
  && mkdir -p /scratch/shared/tok && for i in 0 1 2 3; do mv /scratch/shared/tok-$i.tmp /scratch/shared/tok/train-0000$i-of-00004.bin; done \
  && python3 $JB/mk_old_ckpt.py /scratch/shared/ckpt/lm-h2 1200 ) > $A/mk-data.txt 2>&1 &
wait
for f in $A/mk-*.txt; do echo "   $(basename $f): $(tail -1 $f)"; done
# the socket file the crashed previous server instance left behind (bound, never unlinked)
mkdir -p /run/tinyserve-chat && rm -f /run/tinyserve-chat/server.sock
python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.bind('/run/tinyserve-chat/server.sock'); s.listen(8)"
echo "   stale socket: $(ls -l /run/tinyserve-chat/server.sock)"

# ------------------------------------------------------------------ helpers (after Z189/run_z189.sh, Z190/run_z190.sh)
# job NAME LIMIT DIR "ENV" "SHOWN" CMD...: CMD in DIR with ENV; the log starts with "$ SHOWN", then the whole console
job() { local name=$1 lim=$2 dir=$3 e=$4 shown=$5; shift 5
  echo "\$ $shown" > $L/$name.log
  ( cd $dir && env $e timeout -s INT -k 10 $lim "$@" ) >> $L/$name.log 2>&1
  fin $name $?; }
# waitlog LOG PATTERN TENTHS: wait until PATTERN shows in LOG (0.1 s polls); 1 if it never does
waitlog() { local i; for i in $(seq $3); do grep -aq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# a "node": network + UTS + mount namespace held by a sleeping process; EXTRA: commands run in its mount namespace
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
hostsf() { local f=$1; shift; printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > $f
  local i=0 a; for a in "$@"; do printf '%s\tgpu-node-%s\n' $a $i >> $f; i=$((i + 1)); done; }
# two nodes on one veth (eth1 both sides): KEY A0 A1 "EXTRA0" "EXTRA1"; sets N0 N1
nodes2() { local k=$1 a=$2 b=$3 x0=${4:-} x1=${5:-}
  hostsf $Z/hosts-$k $a $b
  mkns gpu-node-0 $Z/hosts-$k "$x0" $k; N0=$NODE; mkns gpu-node-1 $Z/hosts-$k "$x1" $k; N1=$NODE
  python3 $D/netz.py veth $N0 $a eth1 $N1 $b eth1 | sed "s/^/   $k: /"; }
# multi NAME LIMIT GRACE SPEC...: one launcher per SPEC "NSPID|LABEL|DELAY|ENV|CMD[|FILE]", consoles into logs/NAME.log,
# or into FILE for a node whose console the operator did not capture (the header shows each launch line; NCCL_HOSTID,
# which only stands in for distinct machines, is left out). When the first launcher ends the others get GRACE s, then
# SIGINT (an operator's Ctrl-C), then SIGKILL 15 s later; LIMIT caps the start.
multi() { local name=$1 lim=$2 g=$3; shift 3
  local log=$L/$name.log k=0 N spec ns lab dl e c f shown t end_at=-1 alive done1 tl rcs=""
  local -a NS LAB DL EV CM OF PID
  for spec in "$@"; do IFS='|' read -r ns lab dl e c f <<< "$spec"
    NS[k]=$ns; LAB[k]=$lab; DL[k]=$dl; EV[k]=$e; CM[k]=$c; OF[k]=${f:-$log}; PID[k]=0
    shown=$(echo "$e" | sed -e 's/NCCL_HOSTID=[^ ]*//' -e 's/  */ /g' -e 's/^ //' -e 's/ $//')
    echo "# $lab: \$ ${shown:+$shown }${c//exec /}" >> ${OF[k]}; k=$((k + 1)); done
  N=$k; tl=$((lim + g + 20))
  for ((t = 0; t < lim + g + 5; t++)); do
    for ((k = 0; k < N; k++)); do
      if [ ${PID[k]} = 0 ] && [ $t -ge ${DL[k]} ]; then
        nsenter -n -u -m -t ${NS[k]} env ${EV[k]} timeout -s INT -k 10 $tl sh -c "${CM[k]}" >> ${OF[k]} 2>&1 &
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
# client TAG ARGS...: the load generator (its console goes to aux/client-TAG.txt)
client() { local tag=$1; shift; python3 $JB/client.py "$@" > $A/client-$tag.txt 2>&1; }
SRV="$JB/serve.py"
E2="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=2"
P=""

# ================================================================== jobs
# V visibility: TP 2 server over two nodes; the pods pin their GPU by UUID from a per-host allocation file; node 1's
#   pod spec was copied from the host it ran on before, so its CUDA_VISIBLE_DEVICES names a GPU this host does not have
j_uuid() { local N0 N1 name=h200-2nodes-torchrun-tp2-server-node1-cuda-visible-devices-uuid-of-previous-host
  nodes2 uuid 10.91.0.1 10.91.0.2
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.91.0.1 --master_port 29500"
  local S="$SRV --model /models/tinyllama-chat --listen tcp:0.0.0.0:8100 --pg-timeout 60"
  local V0=""; [ -n "$GPU_UUID" ] && V0="CUDA_VISIBLE_DEVICES=$GPU_UUID"
  multi $name 110 75 "$N0|node 0 (gpu-node-0)|0|$E2 $V0 NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 CUDA_VISIBLE_DEVICES=GPU-5b1d3a8e-7c2f-4e91-9a0d-3f6e2b8c4d17 NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $S"
  killns $N0 $N1; }
# C1 communication: TP 2 server over two nodes (control and data over NCCL, PG timeout 30 s); after request 15 the
#   rank-1 worker on node 1 is SIGKILLed (as by that node's OOM killer); the log is node 0's console only (the leader
#   pod's log the operator pulled); node 1's console is aux/node1-console-killed.txt
j_killed() { local N0 N1 name=h200-2nodes-torchrun-nccl-tp2-server-node1-worker-killed-mid-serving-node0-console F1=$A/node1-console-killed.txt
  nodes2 kil 10.92.0.1 10.92.0.2
  local E="$E2 NCCL_DEBUG=WARN"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.92.0.1 --master_port 29500"
  local S="$SRV --model /models/tinyllama-chat --listen tcp:0.0.0.0:8100 --control nccl --pg-timeout 30"
  ( sleep 3; on $N0 python3 $JB/client.py --connect tcp:10.92.0.1:8100 --n 400 --rate 4 --max-tokens 8 --wait-ready 120 > $A/client-killed.txt 2>&1 ) &
  local CL=$!
  ( if waitlog $L/$name.log "req-0015 200" 1300; then local pid=$(grep -a -m1 -o 'rank 1/2 pid [0-9]*' $F1 | awk '{print $NF}')
      [ -n "$pid" ] && kill -9 $pid && echo "   $name: kill -9 $pid (rank 1, node 1) [t+$((SECONDS - T0))s]"
    else echo "   $name: req-0015 never came"; fi ) &
  local W=$!
  multi $name 130 55 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $S|$F1"
  kill $W $CL 2>/dev/null; killns $N0 $N1; }
# P partitioning: a StarCoder2-15B-shaped server (48 heads, 4 KV heads) at TP 3 (a 4-GPU node with one GPU drained);
#   the QKV layer splits or replicates KV heads (vLLM's rule): 4 KV heads over 3 ranks; eager NCCL init, NCCL INFO
j_kv() { local name=h200-torchrun-nccl-tp3-server-starcoder2-15b-4-kv-heads
  local E="HOSTID_PER_RANK=1 NCCL_DEBUG=INFO OMP_NUM_THREADS=2"
  local C="$TR --nproc-per-node 3 --master-port 29711 $SRV --model /models/starcoder2-15b --listen unix:/run/tinyserve-sc2/server.sock --control nccl"
  job $name 90 $JB "$E" "NCCL_DEBUG=INFO OMP_NUM_THREADS=2 $C" $C; }
# R1 resources: TP 2 server with a 1.5 GiB per-rank GPU budget, prefix cache on with --prefix-cache-max-entries 0
#   (meant as "off", read as "unlimited"); eval traffic asks for prompt logprobs, which rank 0 keeps in the cache
#   entry ([~520 x 32000] fp32 a request): rank 0's memory grows until the budget is gone
j_oom() { local name=h200-torchrun-nccl-tp2-server-prefix-cache-max-entries-0-unbounded-gpu-budget-1.5g
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2"
  local C="$TR --nproc-per-node 2 --master-port 29712 $SRV --model /models/tinyllama-32k --listen unix:/run/tinyserve-eval/server.sock --gpu-memory-gb 1.5 --prefix-cache --prefix-cache-max-entries 0"
  job $name 120 $JB "$E" "OMP_NUM_THREADS=2 $C" $C & local jp=$!
  client oom --connect unix:/run/tinyserve-eval/server.sock --n 150 --rate 10 --prompt-len 512 --max-tokens 1 --prompt-logprobs --vocab 32000 --wait-ready 100 &
  local cp=$!; wait $jp; kill $cp 2>/dev/null; }
# R2 resources: the previous server instance crashed and left its unix socket file; the new one binds the same path
j_stale() { local name=h200-torchrun-tp2-server-stale-unix-socket-file-from-crashed-instance
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2"
  local C="$TR --nproc-per-node 2 --master-port 29713 $SRV --model /models/tinyllama-chat --listen unix:/run/tinyserve-chat/server.sock"
  job $name 90 $JB "$E" "OMP_NUM_THREADS=2 $C" $C; }
# R3 resources: TP 2 server (socketserver thread per connection) in a cgroup-v2 "container" whose pids.max is set, once
#   the server is ready, to pids.current + 2 (the rest of the pod's task budget in use); clients come in bursts of 16
j_pids() { local name=h200-torchrun-tp2-server-thread-per-connection-container-pids-max-bursts CG=/sys/fs/cgroup/z191_tinyserve
  grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null || { echo "   SKIP $name: no cgroup-v2 pids controller"; return; }
  grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo +pids > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p $CG && [ -f $CG/pids.max ] && echo max > $CG/pids.max || { echo "   SKIP $name: no pids cgroup"; return; }
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2"
  local C="$TR --nproc-per-node 2 --master-port 29714 $SRV --model /models/tinyllama-chat --listen unix:/run/tinyserve-pids/server.sock"
  job $name 120 $JB "$E" "OMP_NUM_THREADS=2 $C" sh -c "echo \$\$ > $CG/cgroup.procs && exec $C" & local jp=$!
  if waitlog $L/$name.log 'ready: ' 1000; then sleep 0.5; local c=$(cat $CG/pids.current)
    echo $((c + 2)) > $CG/pids.max; echo "   $name: pids.current $c -> pids.max $(cat $CG/pids.max) [t+$((SECONDS - T0))s]"
    client pids --connect unix:/run/tinyserve-pids/server.sock --burst 16 --bursts 3 --burst-gap 2 --n 6 --rate 2 --max-tokens 4 --shutdown --wait-ready 30
  else echo "   $name: never ready"; fi
  wait $jp
  { echo "pids.max $(cat $CG/pids.max) pids.peak $(cat $CG/pids.peak 2>/dev/null)"; cat $CG/pids.events; } > $A/pids-cgroup.txt 2>&1
  echo "   $name: $(tr '\n' ' ' < $A/pids-cgroup.txt)"
  sleep 1; rmdir $CG 2>/dev/null; }
# O1 other: DDP trainer, 2 DataLoader workers per rank memory-mapping the node-local token shards; the pod's entrypoint
#   also starts the data-sync sidecar, which copies changed upstream shards over the local files in place (rsync
#   --inplace style); at step 20 upstream train-00002 is re-published smaller (512 of 2048 records)
j_sigbus() { local name=h200-torchrun-nccl-2ranks-dataloader-memmap-shard-rewritten-in-place-by-sync-sidecar
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2"
  local C="python3 $JB/data_sync.py /mnt/datasets/tok-v3 /scratch/data/tok 1 & exec $TR --nproc-per-node 2 --master-port 29715 $JB/data_train.py --data /scratch/data/tok --steps 600 --workers 2 --batch 16 --print-every 5 --step-sleep 0.1"
  job $name 120 $JB "$E" "OMP_NUM_THREADS=2 sh -c '$C'" sh -c "$C" & local jp=$!
  if waitlog $L/$name.log '] step 20/' 900; then
    python3 -c "
import numpy as np, os
p = '/mnt/datasets/tok-v3/train-00002-of-00004.bin'
np.random.default_rng(12).integers(0, 8192, size=(512, 257), dtype=np.int32).tofile(p + '.part'); os.replace(p + '.part', p)"
    echo "   $name: upstream train-00002 re-published (512 records) [t+$((SECONDS - T0))s]"
  else echo "   $name: step 20 never came"; fi
  wait $jp; }
# O2 other: TP 2 policy server with --reload-watch 2 (hot reload when the weight files change); the RL trainer's
#   publisher streams the new shards over the served files in place at 4 MiB/s after request 10
j_reload() { local name=h200-torchrun-tp2-server-hot-reload-reads-shard-while-publisher-writes-it
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2"
  local C="$TR --nproc-per-node 2 --master-port 29716 $SRV --model /models/policy-rl --listen unix:/run/tinyserve-policy/server.sock --reload-watch 2"
  job $name 120 $JB "$E" "OMP_NUM_THREADS=2 $C" $C & local jp=$!
  client reload --connect unix:/run/tinyserve-policy/server.sock --n 400 --rate 5 --max-tokens 4 --wait-ready 100 &
  local cp=$!
  if waitlog $L/$name.log 'req-0010 200' 1000; then
    python3 $JB/publish_weights.py /workspace/staging/policy-step-000400 /models/policy-rl 4 > $A/publisher.txt 2>&1 &
    echo "   $name: publisher started [t+$((SECONDS - T0))s]"
  else echo "   $name: req-0010 never came"; fi
  wait $jp; kill $cp 2>/dev/null; }
# O3 other: TP 2 server over two nodes reading memory-mapped float16 weights from each node's local model cache; the
#   rsync that filled node 1's cache was interrupted: rank01/layers.2.mlp.gate_up_proj.bin is 37 % of its size
j_npmm() { local N0 N1 name=h200-2nodes-torchrun-tp2-server-node1-model-cache-memmap-weight-copy-short
  mkdir -p /models/tinyllama-chat-npmm
  nodes2 npm 10.94.0.1 10.94.0.2 "mount --bind $Z/mc-n0/tinyllama-chat /models/tinyllama-chat-npmm" \
    "mount --bind $Z/mc-n1/tinyllama-chat /models/tinyllama-chat-npmm"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.94.0.1 --master_port 29500"
  local S="$SRV --model /models/tinyllama-chat-npmm --load-format npmm --listen tcp:0.0.0.0:8100 --pg-timeout 60"
  multi $name 100 40 "$N0|node 0 (gpu-node-0)|0|$E2 NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $S"
  killns $N0 $N1; }
# E versions: the model was exported as a whole pickled module (torch.save(model)) by the training repo with tinyserve
#   0.5 (RMSNorm moved into tinyserve.layers); the serving image still has tinyserve 0.3
j_pickle() { local name=h200-torchrun-tp2-server-pickled-model-from-tinyserve-0.5-image-has-0.3
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2 PYTHONPATH=$OPT/tinyserve-0.3${PYTHONPATH:+:$PYTHONPATH}"
  local C="$TR --nproc-per-node 2 --master-port 29717 $SRV --model /models/tinyllama-chat-full --load-format module --listen unix:/run/tinyserve-full/server.sock"
  job $name 90 $JB "$E" "PYTHONPATH=$OPT/tinyserve-0.3 OMP_NUM_THREADS=2 $C" $C; }
# N network: TP 2 server over two nodes (NCCL INFO); the deployment env pins TINYSERVE_HOST (the front-end's bind address) to the
#   address the leader had on the host it ran on before (10.93.0.17); node 0 is 10.93.0.1 now
j_bind() { local N0 N1 name=h200-2nodes-torchrun-tp2-server-frontend-host-env-address-of-previous-node
  nodes2 bnd 10.93.0.1 10.93.0.2
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.93.0.1 --master_port 29500"
  local S='--model /models/tinyllama-chat --listen tcp:$TINYSERVE_HOST:8100'
  multi $name 100 40 "$N0|node 0 (gpu-node-0)|0|$E2 NCCL_DEBUG=INFO TINYSERVE_HOST=10.93.0.17 NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $SRV $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 NCCL_DEBUG=INFO TINYSERVE_HOST=10.93.0.17 NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $SRV $S"
  killns $N0 $N1; }
# C2 communication: TP 3 server whose request metadata goes over the Gloo CPU group with --pg-timeout 30; the
#   workers wait in that broadcast between requests; traffic stops for 45 s after request 6
j_idle() { local name=h200-torchrun-gloo-nccl-tp3-server-idle-45s-pg-timeout-30s-workers-wait-in-broadcast
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2"
  local C="$TR --nproc-per-node 3 --master-port 29718 $SRV --model /models/tinyllama-tp3 --listen unix:/run/tinyserve-tp3/server.sock --pg-timeout 30"
  job $name 120 $JB "$E" "OMP_NUM_THREADS=2 $C" $C & local jp=$!
  client idle --connect unix:/run/tinyserve-tp3/server.sock --n 12 --rate 2 --max-tokens 4 --pause-after 6 --pause 45 --shutdown --wait-ready 100 &
  local cp=$!; wait $jp; kill $cp 2>/dev/null; }
# H1 healthy: TP 3 server (NCCL + Gloo control), 30 requests among them a malformed JSON line, a 3000-token prompt
#   (max_model_len 2048), sampling fields it ignores, a client that hangs up; tracebacks logged, serving goes on; admin
#   shutdown, exit 0
j_ok1() { local name=h200-torchrun-tp3-server-bad-requests-tracebacks-logged-keeps-serving-ok
  local E="HOSTID_PER_RANK=1"
  local C="$TR --nproc-per-node 3 --master-port 29719 $SRV --model /models/tinyllama-tp3 --listen unix:/run/tinyserve-ok/server.sock"
  job $name 120 $JB "$E" "$C" $C & local jp=$!
  client ok1 --connect unix:/run/tinyserve-ok/server.sock --n 30 --rate 5 --max-tokens 8 --mix bad --shutdown --wait-ready 100 &
  local cp=$!; wait $jp; kill $cp 2>/dev/null; }
# H2 healthy: two nodes, DDP trainer (cpu:gloo,cuda:nccl, lazy NCCL init), NCCL_DEBUG=INFO, 3 memmap DataLoader
#   workers per rank (non-writable array warning), warm-up scheduler stepped first (its warning), resume from the
#   previous run's checkpoint with strict=False (missing/unexpected keys warned, optimizer not restored), checkpoints
j_ok2() { local N0 N1 name=h200-2nodes-torchrun-gloo-nccl-info-memmap-loader-resume-strict-false-warnings-ok
  nodes2 ok2 10.95.0.1 10.95.0.2
  local E="$E2 NCCL_DEBUG=INFO"
  local C="exec $TR --nnodes 2 --nproc_per_node 1 --master_addr 10.95.0.1 --master_port 29500"
  local S="$JB/data_train.py --data /scratch/shared/tok --steps 1300 --workers 3 --batch 16 --print-every 10 --ckpt-dir /scratch/shared/ckpt/lm-h2 --resume --save-every 50"
  multi $name 130 40 "$N0|node 0 (gpu-node-0)|0|$E NCCL_HOSTID=gpu-node-0|$C --node_rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E NCCL_HOSTID=gpu-node-1|$C --node_rank 1 $S"
  killns $N0 $N1; }

# ================================================================== schedule
ts "start"
for f in ${Z191_JOBS:-j_killed j_idle j_uuid j_ok2 j_sigbus j_reload j_oom j_pids j_ok1 j_npmm j_bind j_kv j_stale j_pickle}; do
  ts "launch $f"; $f & P="$P $!"; sleep 1; done
wait $P
ts "all done"
for f in $A/mkns-*.txt $A/publisher.txt; do [ -s $f ] && { echo "--- $(basename $f)"; head -20 $f; }; done
for f in $A/client-*.txt; do echo "--- $(basename $f): $(wc -l < $f) lines"; tail -3 $f | cut -c1-160; done
find $A -type f -empty -delete
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
