#!/usr/bin/env bash
# Z184 capture run: torch-only faults made on purpose on the one-H200 node (one batch call, < 270 s).
# Plain torch 2.11 (torchrun, mp.spawn, env:// per node as srun does), NCCL and Gloo. "Nodes" are network + UTS +
# mount namespaces joined by a veth (../zze/netz.py; the node has no `ip` tool).
# Call (from the repo root): timeout -k 10 300 bash tests/data/logs/h200-capture/zzf/run_z184.sh 2>&1 | tee $OUT/run_z184.out
set -u
set -m
OUT=${OUT:-/tmp/z184-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z184
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
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'cudnn(compiled)', torch._C._cudnn.getCompileVersion())"
CUDNN_SYS=$(ls /usr/lib/x86_64-linux-gnu/libcudnn.so.9 2>/dev/null || ls /usr/lib/x86_64-linux-gnu/libcudnn.so.9.* 2>/dev/null | head -n 1)
echo "TR=$TR; system cuDNN: ${CUDNN_SYS:-none} -> $(readlink -f "${CUDNN_SYS:-/nonexistent}" 2>/dev/null); LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
# ------------------------------------------------------------------ helpers
# one JOB: NAME LIMIT "ENV" CMD... (host namespace, output to logs/NAME.log; HDR overrides the command line shown)
job() { local name=$1 lim=$2 e=$3; shift 3
  echo "\$ ${HDR:-${e:+$e }$*}" > $L/$name.log
  env $e timeout -s INT -k 10 $lim "$@" >> $L/$name.log 2>&1
  fin $name $?; }
# a "node": network + UTS + mount namespace held by a sleeping process; HOSTS (optional) becomes its /etc/hosts
mkns() { local h=$1 hosts=${2:-}
  if [ -n "$hosts" ]; then
    unshare -n -u -m sh -c "hostname $h; mount --bind $hosts /etc/hosts; exec sleep 600" > /dev/null 2>&1 &
  else
    unshare -n -u -m sh -c "hostname $h; exec sleep 600" > /dev/null 2>&1 &
  fi
  NODE=$!; disown $NODE; sleep 0.3
  echo "   node $h (pid $NODE): gpu-node-0 resolves to '$(on $NODE getent hosts gpu-node-0 | tr -s ' \t' ' ')'"; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
nsprocs() { local ns d p; ns=$(readlink /proc/$1/ns/net) || return
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$1" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && echo $p; done; }
killns() { local h; for h in "$@"; do kill -9 $(nsprocs $h) 2>/dev/null; kill -9 $h 2>/dev/null; done; }
# pair NAME LIMIT GRACE NA NB "ENV0" "ENV1" CMD0 CMD1: one process per node. Node 1's console goes to LOG1 when set
# (else into the same log); DELAY0 > 0 starts node 1 first and node 0 DELAY0 s later. When one node's process
# ends, the other gets GRACE s, then SIGINT, then SIGKILL.
pair() { local name=$1 lim=$2 g=$3 na=$4 nb=$5 e0=$6 e1=$7 c0=$8 c1=$9 log=$L/$1.log p0 p1 i
  local log1=${LOG1:-$L/$1.log} d0=${DELAY0:-0} tl=$(($2 + $3 + 20))
  echo "# node 0 ($(on $na hostname)): \$ $e0 $c0" >> $log
  echo "# node 1 ($(on $nb hostname)): \$ $e1 $c1" >> $log1
  if [ "$d0" -gt 0 ]; then
    on $nb env $e1 timeout -s INT -k 10 $tl sh -c "$c1" >> $log1 2>&1 & p1=$!
    sleep $d0
    on $na env $e0 timeout -s INT -k 10 $tl sh -c "$c0" >> $log 2>&1 & p0=$!
  else
    on $na env $e0 timeout -s INT -k 10 $tl sh -c "$c0" >> $log 2>&1 & p0=$!
    sleep 1
    on $nb env $e1 timeout -s INT -k 10 $tl sh -c "$c1" >> $log1 2>&1 & p1=$!
  fi
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; }
hosts2() { printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\tgpu-node-0\n%s\tgpu-node-1\n' "$2" "$3" > $1; }
P=""
# ================================================================== single-host jobs
# V1 visibility: mp.spawn with world_size 4 from a run config made on a 4-GPU box, one GPU here
j_spawn() { job h200-mp-spawn-nccl-config-world-size-4-on-1-gpu 90 "" \
  python3 $JB/spawn_train.py $JB/configs/ddp_4gpu.yaml; }
# V2 visibility: CUDA_VISIBLE_DEVICES=1 (scheduler's GPU index; only GPU 0 exists), script falls back to CPU, NCCL PG
j_cvd() { job h200-torchrun-nccl-cuda-visible-devices-1-auto-device-cpu-fallback 90 "CUDA_VISIBLE_DEVICES=1" \
  $TR --nproc_per_node 2 --master_port 29722 $JB/train_auto_device.py; }
# P partitioning: torch native TP, Phi-3-mini MLP (fused gate_up_proj 2x8192) over TP 3, gloo on CPU
j_tp() { job h200-torchrun-gloo-tp3-phi3-mini-fused-gate-up-proj 120 "" \
  $TR --nproc_per_node 3 --master_port 29726 $JB/tp_mlp.py $JB/configs/phi3-mini-config.json; }
# R resources: checkpoint volume with few inodes (tmpfs nr_inodes=37, 8 GiB free), a checkpoint dir of 4 files every 10 steps
j_inode() { mkdir -p /mnt/ckpt
  HDR="df -h /mnt/ckpt; OUTPUT_DIR=/mnt/ckpt/sft-run SAVE_EVERY=10 $TR --nproc_per_node 1 --master_port 29723 $JB/sft_ckpt.py" \
  job h200-torchrun-nccl-checkpoint-volume-out-of-inodes 120 "OUTPUT_DIR=/mnt/ckpt/sft-run SAVE_EVERY=10 STEPS=150" \
  unshare -m sh -c "mount -t tmpfs -o size=8g,nr_inodes=37 ckpt-vol /mnt/ckpt && df -h /mnt/ckpt && exec $TR --nproc_per_node 1 --master_port 29723 $JB/sft_ckpt.py"; }
# E versions: the image's system cuDNN 9.14 preloaded (LD_PRELOAD) under torch built against cuDNN 9.19
j_cudnn() { if [ -z "$CUDNN_SYS" ]; then echo "== no system cuDNN, skip j_cudnn"; return; fi
  job h200-torch-lstm-ld-preload-system-cudnn-9.14 60 "LD_PRELOAD=$CUDNN_SYS" python3 $JB/lstm_train.py; }
# O1 other: node-local model cache whose pytorch_model.bin is 0 bytes (staging copy interrupted)
j_empty() { local M=/scratch/model-cache/llama-style-160m
  mkdir -p $M && cp $JB/configs/llama-style-160m-config.json $M/config.json
  printf '{"bos_token_id": 1, "eos_token_id": 2, "max_length": 2048}\n' > $M/generation_config.json
  printf '{"model_max_length": 2048, "tokenizer_class": "LlamaTokenizer"}\n' > $M/tokenizer_config.json
  : > $M/pytorch_model.bin
  job h200-torchrun-nccl-finetune-pytorch-model-bin-0-bytes 90 "MODEL_DIR=$M" \
    $TR --nproc_per_node 1 --master_port 29724 $JB/finetune_load.py; }
# O2 other: rollout sampling with temperature 0.0 (meant as greedy) -> logits/0 -> NaN probabilities
j_temp() { job h200-torch-rollout-temperature-0-multinomial 60 "" python3 $JB/rollout.py $JB/configs/rollout-eval.yaml; }
# H1 healthy: data manifest written by the data-sync step after the job started; torchrun --max-restarts 2 retries
j_restart() { local name=h200-torchrun-nccl-max-restarts-2-data-manifest-late-restart-ok DD=/scratch/data/tokens-v3
  mkdir -p $DD; rm -f $DD/manifest.json
  ( for i in $(seq 150); do grep -q "FileNotFoundError" $L/$name.log 2>/dev/null && break; sleep 0.5; done
    python3 -c "import json; json.dump({'num_tokens': 2147483648, 'shards': ['shard-%05d.bin' % i for i in range(64)]}, open('$DD/manifest.json', 'w'))"
    echo "   (manifest written at t+$((SECONDS - T0))s)" ) &
  job $name 150 "DATA_DIR=$DD" $TR --nproc_per_node 1 --max-restarts 2 --master_port 29725 $JB/train_data.py; wait; }
# ================================================================== two-"node" jobs
# C1 communication: node 1 lost mid-run (its link down, then all its processes SIGKILLed); the log is node 0's console
j_lost() { local name=h200-2nodes-torchrun-nccl-node1-lost-mid-run-node0-console A0=10.93.0.1 B0=10.93.0.2 NA NB
  hosts2 $Z/hosts-lost $A0 $B0
  mkns gpu-node-0 $Z/hosts-lost; NA=$NODE; mkns gpu-node-1 $Z/hosts-lost; NB=$NODE
  python3 $D/../zze/netz.py veth $NA $A0 eth1 $NB $B0 eth1 > /dev/null
  local C="$TR --nnodes 2 --nproc_per_node 1 --master_addr $A0 --master_port 29500"
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO PG_TIMEOUT_S=30 STEPS=5000 STEP_SLEEP=0.02 PRINT_EVERY=20"
  ( for i in $(seq 100); do grep -q "step 60/" $L/$name.log 2>/dev/null && break; sleep 1; done
    python3 $D/../zze/netz.py down $NB eth1 > /dev/null; kill -9 $(nsprocs $NB) 2>/dev/null
    echo "   node 1 lost at t+$((SECONDS - T0))s (eth1 down, its processes SIGKILLed)" ) &
  LOG1=$A/$name.node1.txt pair $name 110 60 $NA $NB "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$C --node_rank 0 $JB/train_steps.py" "$C --node_rank 1 $JB/train_steps.py"
  wait; killns $NA $NB; }
# C2 communication: stock Debian /etc/hosts (hostname -> 127.0.1.1), NCCL_SOCKET_IFNAME set but no GLOO_SOCKET_IFNAME,
#    process group "cuda:nccl,cpu:gloo"
j_gloo() { local A0=10.94.0.1 B0=10.94.0.2 NA NB
  printf '127.0.0.1\tlocalhost\n127.0.1.1\tgpu-node-0\n\n::1\tip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n' > $Z/hosts-g0
  printf '127.0.0.1\tlocalhost\n127.0.1.1\tgpu-node-1\n\n::1\tip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n' > $Z/hosts-g1
  mkns gpu-node-0 $Z/hosts-g0; NA=$NODE; mkns gpu-node-1 $Z/hosts-g1; NB=$NODE
  python3 $D/../zze/netz.py veth $NA $A0 eth1 $NB $B0 eth1 > /dev/null
  local C="$TR --nnodes 2 --nproc_per_node 1 --master_addr $A0 --master_port 29500"
  local E="NCCL_SOCKET_IFNAME=eth1 DIST_BACKEND=cuda:nccl,cpu:gloo PG_TIMEOUT_S=30"
  pair h200-2nodes-torchrun-nccl-gloo-etc-hosts-127.0.1.1-no-gloo-socket-ifname 100 15 $NA $NB \
    "$E NCCL_HOSTID=gpu-node-0" "$E NCCL_HOSTID=gpu-node-1" \
    "$C --node_rank 0 $JB/train_steps.py" "$C --node_rank 1 $JB/train_steps.py"
  killns $NA $NB; }
# N network: MASTER_ADDR is a hostname; node 1's /etc/hosts still maps it to node 0's old address (before a re-IP)
j_hosts() { local A0=10.95.0.1 B0=10.95.0.2 NA NB
  hosts2 $Z/hosts-h0 $A0 $B0; hosts2 $Z/hosts-h1 10.95.0.21 $B0
  mkns gpu-node-0 $Z/hosts-h0; NA=$NODE; mkns gpu-node-1 $Z/hosts-h1; NB=$NODE
  python3 $D/../zze/netz.py veth $NA $A0 eth1 $NB $B0 eth1 > /dev/null
  local E="NCCL_SOCKET_IFNAME=eth1 MASTER_ADDR=gpu-node-0 MASTER_PORT=29500 WORLD_SIZE=2 LOCAL_RANK=0 PG_TIMEOUT_S=40"
  pair h200-2nodes-torch-nccl-node1-stale-etc-hosts-master-hostname 90 20 $NA $NB \
    "$E RANK=0 NCCL_HOSTID=gpu-node-0" "$E RANK=1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train_steps.py" "python3 $JB/train_steps.py"
  killns $NA $NB; }
# H2 healthy: two nodes, NCCL INFO, node 0 starts 20 s after node 1 (node 1's wait-for-master loop retries),
#    LD_PRELOAD of a jemalloc that is not installed, deprecated NCCL_ASYNC_ERROR_HANDLING, IB settings without IB
j_ok2() { local A0=10.96.0.1 B0=10.96.0.2 NA NB
  hosts2 $Z/hosts-ok $A0 $B0
  mkns gpu-node-0 $Z/hosts-ok; NA=$NODE; mkns gpu-node-1 $Z/hosts-ok; NB=$NODE
  python3 $D/../zze/netz.py veth $NA $A0 eth1 $NB $B0 eth1 > /dev/null
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_ASYNC_ERROR_HANDLING=1 LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 MASTER_ADDR=gpu-node-0 MASTER_PORT=29500 WORLD_SIZE=2 LOCAL_RANK=0 PG_TIMEOUT_S=120 STEPS=40"
  local W='for i in $(seq 40); do python3 -c "import socket; socket.create_connection((\"gpu-node-0\", 29500), 2)" 2>/dev/null && break; echo "wait-for-master: gpu-node-0:29500 not reachable yet (attempt $i/40), retrying in 2s"; sleep 2; done; '
  DELAY0=20 pair h200-2nodes-torch-nccl-info-node0-late-ld-preload-missing-jemalloc-ok 120 30 $NA $NB \
    "$E RANK=0 NCCL_HOSTID=gpu-node-0" "$E RANK=1 NCCL_HOSTID=gpu-node-1" \
    "python3 $JB/train_steps.py" "${W}python3 $JB/train_steps.py"
  killns $NA $NB; }
# ================================================================== schedule
ts "start"
for f in j_lost j_gloo j_hosts j_ok2; do ts "launch $f"; $f & P="$P $!"; sleep 1; done
for f in j_spawn j_cvd j_tp j_inode j_cudnn j_empty j_temp j_restart; do ts "launch $f"; $f & P="$P $!"; sleep 2; done
wait $P
ts "all done"
ls -la $L $A
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
