#!/usr/bin/env bash
# Z189 capture run: torch-only faults made on purpose on the one-GPU node (one batch call, < 270 s).
# Plain torch 2.11 (torchrun), NCCL and Gloo; mostly SINGLE-node jobs with 2-4 ranks sharing the one GPU (each rank
# its own NCCL "host" through NCCL_HOSTID, set by the HOSTID_PER_RANK harness line at the top of each job script).
# Faults of the CUDA runtime and the process environment (CUDA_*/TORCH_* variables, PYTORCH_CUDA_ALLOC_CONF, limits,
# cgroups, checkpoint shards, shadowed modules, signals). Helpers after Z188/run_z188.sh and zzi/run_z187.sh.
# Call (from the repo root): cd .device/Z189 && timeout -k 10 300 bash run_z189.sh 2>&1 | tee $OUT/run_z189.out
set -u
set -m
OUT=${OUT:-/tmp/z189-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z189
mkdir -p $L $A $Z
JB=/workspace/train; SFT=/workspace/exp/sft-0412
mkdir -p $JB $SFT /workspace/ckpt && cp $D/jobs/*.py $JB/ && cp $D/jobs/train.py $D/jobs/sft-0412/yaml.py $SFT/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
unset OMP_NUM_THREADS NCCL_DEBUG PYTORCH_CUDA_ALLOC_CONF CUDA_VISIBLE_DEVICES 2>/dev/null
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -a -v -e '^frame #' -e '^\[rank[0-9]*\]:  ' -e ' NCCL INFO ' "$L/$1.log" | tail -n 4 | cut -c1-200 | sed 's/^/      /'; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun
ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'cuda', torch.version.cuda, 'arch', torch.cuda.get_arch_list())"
# every libnvidia-ml.so.1 the dynamic loader could find (ld cache, LD_LIBRARY_PATH, the usual driver dirs), real files
NVML=$(for f in $(ldconfig -p | awk '/libnvidia-ml\.so\.1 /{print $NF}') /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 \
    $(echo "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | sed -n 's|$|/libnvidia-ml.so.1|p') /usr/local/nvidia/lib64/libnvidia-ml.so.1; do
    [ -e "$f" ] && readlink -f "$f"; done | sort -u | tr '\n' ' ')
echo "TR=$TR; NVML=$NVML; cgroup controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>&1); subtree: $(cat /sys/fs/cgroup/cgroup.subtree_control 2>&1)"
python3 -c "import yaml; print('PyYAML', yaml.__version__, yaml.__file__)"

# ------------------------------------------------------------------ helpers
# job NAME LIMIT DIR "ENV" "SHOWN" CMD...: run CMD in DIR with ENV (host namespaces unless CMD enters others); the log
# starts with "$ SHOWN" (the command line as the operator typed it), then the whole console (stdout + stderr)
job() { local name=$1 lim=$2 dir=$3 e=$4 shown=$5; shift 5
  echo "\$ $shown" > $L/$name.log
  ( cd $dir && env $e timeout -s INT -k 10 $lim "$@" ) >> $L/$name.log 2>&1
  fin $name $?; }
# waitlog LOG PATTERN TENTHS: wait until PATTERN shows in LOG (0.1 s polls); 1 if it never does
waitlog() { local i; for i in $(seq $3); do grep -aq -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# rankpid LOG RANK: the pid that rank printed in its start line
rankpid() { grep -a -m1 -o "\[rank$2\] start: host [^ ]* pid [0-9]*" "$1" | awk '{print $NF}'; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
nsprocs() { local ns d p; ns=$(readlink /proc/$1/ns/net) || return
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$1" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && echo $p; done; }
killns() { local h; for h in "$@"; do kill -9 $(nsprocs $h) 2>/dev/null; kill -9 $h 2>/dev/null; done; }
TRS="$TR --nproc-per-node"
P=""

# ================================================================== jobs
# V visibility: the container was started with NVIDIA_DRIVER_CAPABILITIES=compute (no "utility"), so the driver's NVML
#   library is not there: libnvidia-ml.so.1 is an empty file in the container (a private mount namespace binds an
#   empty file over it); CUDA itself works. 3 ranks, NCCL WARN.
j_nvml() { local name=h200-torchrun-nccl-3ranks-container-driver-capabilities-compute-libnvidia-ml-empty
  [ -n "${NVML// /}" ] || { echo "   SKIP $name: libnvidia-ml.so.1 not found"; return; }
  : > $Z/libnvidia-ml.so.1.empty
  local M="" f; for f in $NVML; do M="$M mount --bind $Z/libnvidia-ml.so.1.empty $f &&"; done
  local E="NVIDIA_DRIVER_CAPABILITIES=compute HOSTID_PER_RANK=1 NCCL_DEBUG=WARN OMP_NUM_THREADS=2 STEPS=40"
  local C="$TRS 3 --master-port 29611 train.py"
  job $name 100 $JB "$E" "$E $C" unshare -m sh -c "$M exec $C"; }
# C1 communication: a preemption-aware training script (SIGTERM handler: save and stop after the current step); the
#   stop decision is local to each rank, and only rank 2 got the SIGTERM (kill -TERM of its PID at step 30, as a node
#   agent that signals one process); 4 ranks, NCCL INFO, PG timeout 30 s
j_sigterm() { local name=h200-torchrun-nccl-4ranks-rank2-sigterm-local-stop-flag-pg-timeout-30s
  local E="HOSTID_PER_RANK=1 NCCL_DEBUG=INFO OMP_NUM_THREADS=2 GRACEFUL_STOP=1 STOP_SYNC=0 PG_TIMEOUT_S=30 STEPS=600 PRINT_EVERY=10"
  local C="$TRS 4 --master-port 29612 train.py"
  job $name 150 $JB "$E" "$E $C" $C & local jp=$!
  if waitlog $L/$name.log '] step 30/' 900; then local pid=$(rankpid $L/$name.log 2)
    [ -n "$pid" ] && kill -TERM $pid && echo "   $name: kill -TERM $pid (rank 2) [t+$((SECONDS - T0))s]"
  else echo "   $name: step 30 never came"; fi
  wait $jp; }
# C2 communication: the deployment's env sets TORCH_NCCL_ASYNC_ERROR_HANDLING=True (a YAML boolean; torch wants 0-3)
j_aeh() { local name=h200-torchrun-nccl-2ranks-torch-nccl-async-error-handling-true
  local E="HOSTID_PER_RANK=1 TORCH_NCCL_ASYNC_ERROR_HANDLING=True OMP_NUM_THREADS=2 STEPS=40"
  local C="$TRS 2 --master-port 29613 train.py"
  job $name 90 $JB "$E" "$E $C" $C; }
# P partitioning: rank 0 reads global batches of 32 sequences (run config written for 4 or 8 GPUs) and scatters one
#   micro-batch per data-parallel rank; 3 ranks -> chunk() gives 11/11/10 while each rank receives 32 // 3 = 10
j_scatter() { local name=h200-torchrun-nccl-3ranks-global-batch-32-scatter-micro-batches-uneven
  local E="HOSTID_PER_RANK=1 GLOBAL_BATCH=32 OMP_NUM_THREADS=2"
  local C="$TRS 3 --master-port 29614 scatter_train.py"
  job $name 100 $JB "$E" "$E $C" $C; }
# R1 resources: the job's container has a pids limit (cgroup v2 pids.max); after step 5 only 3 more tasks fit (pids.max
#   set to pids.current + 3, as when the rest of the container's budget is in use); at step 100 every rank starts 4
#   evaluation DataLoader workers. 4 ranks, 2 persistent training workers each, NCCL WARN.
j_pids() { local name=h200-torchrun-nccl-4ranks-container-pids-max-eval-dataloader-workers CG=/sys/fs/cgroup/z189_trainer
  grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo +pids > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p $CG && echo max > $CG/pids.max || { echo "   SKIP $name: no pids cgroup"; return; }
  local E="HOSTID_PER_RANK=1 NCCL_DEBUG=WARN OMP_NUM_THREADS=2 NUM_WORKERS=2 EVAL_AT=100 EVAL_WORKERS=4 STEPS=200 PRINT_EVERY=5"
  local C="$TRS 4 --master-port 29615 train.py"
  job $name 120 $JB "$E" "$E $C" sh -c "echo \$\$ > $CG/cgroup.procs && exec $C" & local jp=$!
  if waitlog $L/$name.log '] step 5/' 900; then sleep 0.3; local c=$(cat $CG/pids.current)
    echo $((c + 3)) > $CG/pids.max; echo "   $name: pids.current $c -> pids.max $(cat $CG/pids.max) [t+$((SECONDS - T0))s]"
  else echo "   $name: step 5 never came"; fi
  wait $jp
  { echo "pids.max $(cat $CG/pids.max) pids.peak $(cat $CG/pids.peak 2>/dev/null)"; cat $CG/pids.events; } > $A/pids-cgroup.txt 2>&1
  echo "   $name: $(tr '\n' ' ' < $A/pids-cgroup.txt)"
  sleep 1; rmdir $CG 2>/dev/null; }
# R2 resources: PYTORCH_CUDA_ALLOC_CONF=expandable_segments=True (written as KEY=VALUE; torch wants key:value); torch 2.11
#   parses it while it is imported (checked off the device: the import aborts in the ConfigTokenizer), so torchrun itself dies
j_alloc() { local name=h200-torchrun-nccl-2ranks-pytorch-cuda-alloc-conf-expandable-segments-equals-true
  local E="HOSTID_PER_RANK=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments=True OMP_NUM_THREADS=2 STEPS=40"
  local C="$TRS 2 --master-port 29616 train.py"
  job $name 90 $JB "$E" "$E $C" $C; }
# R3 resources: the job ran under a soft CPU-time limit of 40 s (ulimit -S -t 40, as an interactive node's profile sets
#   it; soft below hard, so the kernel sends SIGXCPU); rank 0 builds the MinHash dedup filter with 8 intra-op threads
#   before training, ranks 1-2 wait for it on the gloo group
j_cpu() { local name=h200-torchrun-nccl-3ranks-rank0-minhash-dedup-soft-cpu-time-limit-40s
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=8 PG_TIMEOUT_S=120 DEDUP_CHUNKS=20000"
  local C="$TRS 3 --master-port 29617 dedup_train.py"
  job $name 100 $JB "$E" "ulimit -S -t 40; $E $C" sh -c "ulimit -S -t 40 && exec $C"; }
# E1 versions: the experiment folder copied from a notebook session holds a scratch yaml.py next to train.py; rank 0
#   imports yaml when it writes run_config.yaml with the first checkpoint (step 25), and gets the local file, not PyYAML
j_yaml() { local name=h200-torchrun-nccl-3ranks-rank0-checkpoint-local-yaml-py-shadows-pyyaml
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2 NUM_WORKERS=1 STEPS=100 SAVE_EVERY=25 CKPT_DIR=$SFT/ckpt"
  local C="$TRS 3 --master-port 29618 train.py"
  job $name 120 $SFT "$E" "cd $SFT; $E $C" $C; }
# E2 versions: CUDA_FORCE_PTX_JIT=1 left in the image env from a PTX-compatibility test; torch 2.11's wheel carries
#   SASS only (no PTX), so no kernel can load
j_ptx() { local name=h200-torchrun-nccl-2ranks-cuda-force-ptx-jit-1-left-in-image-env
  local E="HOSTID_PER_RANK=1 CUDA_FORCE_PTX_JIT=1 EAGER_INIT=0 OMP_NUM_THREADS=2 STEPS=40"
  local C="$TRS 2 --master-port 29619 train.py"
  job $name 90 $JB "$E" "$E $C" $C; }
# O1 other: TP 4 resume from per-rank shards (bf16); mp_rank_01/model_optim_rng.pt was overwritten by the fp16 inference
#   export's file; the loader assigns the tensors as they are (meta-device init, load_state_dict(assign=True))
j_tp() { local name=h200-torchrun-nccl-4ranks-tp-resume-mp-rank-01-shard-float16-in-bf16-checkpoint CK=/workspace/ckpt/projector-tp4
  rm -rf $CK; python3 $JB/mk_tp_ckpt.py $CK 4 > $A/mk-tp-ckpt.txt 2>&1; echo "   $(tail -1 $A/mk-tp-ckpt.txt)"
  local E="HOSTID_PER_RANK=1 NCCL_DEBUG=WARN OMP_NUM_THREADS=2 PARAMS_DTYPE=bf16"
  local C="$TRS 4 --master-port 29620 tp_resume.py $CK"
  job $name 100 $JB "$E" "$E $C" $C; }
# O2 other: the data config moves token-dropout augmentation to the GPU (augment.device=cuda) while the loader keeps
#   2 forked workers per rank
j_fork() { local name=h200-torchrun-nccl-2ranks-dataloader-workers-augment-device-cuda
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2 NUM_WORKERS=2 AUGMENT_DEVICE=cuda AUGMENT_P=0.1 STEPS=40"
  local C="$TRS 2 --master-port 29621 train.py"
  job $name 100 $JB "$E" "$E $C" $C; }
# N network: a single-node job whose script sets MASTER_ADDR=$(hostname); the VM was cloned from a template and its
#   /etc/hosts still maps the hostname to the template's address 10.20.3.15 (its own is 10.20.7.41), so the
#   rendezvous store is dialled at an address nobody has (routed to the gateway, dropped)
j_host() { local name=h200-torchrun-1node-master-addr-own-hostname-stale-etc-hosts-template-ip POD GW
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n10.20.3.15\ttrainer-0.cluster.local trainer-0\n' > $Z/hosts-pod
  unshare -n -u -m sh -c "hostname trainer-0; mount --bind $Z/hosts-pod /etc/hosts; exec sleep 400" > $A/mkns-pod.txt 2>&1 &
  POD=$!; disown $POD
  unshare -n sh -c "exec sleep 400" > /dev/null 2>&1 & GW=$!; disown $GW; sleep 0.5
  python3 $D/netz.py veth $POD 10.20.7.41 eth0 $GW 10.20.7.1 veth-trn0 | sed 's/^/   /'
  python3 $D/netz.py route $POD 0.0.0.0/0 10.20.7.1 | sed 's/^/   /'
  echo "   pod: hostname $(on $POD hostname), $(on $POD getent hosts trainer-0 | tr -s ' \t' ' ')"
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2 STEPS=40"
  local C='cd /workspace/train && MASTER_ADDR=$(hostname); echo "master: $MASTER_ADDR:29500 (1 node x 2 ranks)"; exec '"$TRS"' 2 --nnodes 1 --master-addr $MASTER_ADDR --master-port 29500 --rdzv-conf timeout=60 train.py'
  job $name 110 $JB "$E" "$E sh -c '$C'" nsenter -n -u -m -t $POD sh -c "$C"
  killns $POD $GW; }
# H1 healthy: 3 ranks, NCCL INFO, cudaMallocAsync with a native-allocator option (ignored, warns), the deprecated
#   NCCL_ASYNC_ERROR_HANDLING name, TORCH_NCCL_AVOID_RECORD_STREAMS, CUDA_MODULE_LOADING=EAGER, OMP_NUM_THREADS unset
j_ok1() { local name=h200-torchrun-nccl-3ranks-info-cudamallocasync-eager-module-loading-deprecated-env-ok
  local E="HOSTID_PER_RANK=1 NCCL_DEBUG=INFO NCCL_ASYNC_ERROR_HANDLING=1 PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync,max_split_size_mb:256 CUDA_MODULE_LOADING=EAGER TORCH_NCCL_AVOID_RECORD_STREAMS=1 NUM_WORKERS=2 STEPS=150 PRINT_EVERY=25"
  local C="$TRS 3 --master-port 29622 train.py"
  job $name 150 $JB "$E" "$E $C" $C; }
# H2 healthy: the same preemption-aware script with the stop flag all-reduced every step; SIGTERM to rank 2 at step 30:
#   all ranks stop after the same step, rank 0 writes the checkpoint, exit 0
j_ok2() { local name=h200-torchrun-nccl-3ranks-rank2-sigterm-synced-stop-checkpoint-ok
  local E="HOSTID_PER_RANK=1 OMP_NUM_THREADS=2 GRACEFUL_STOP=1 STOP_SYNC=1 STEPS=600 PRINT_EVERY=10 CKPT_DIR=/workspace/ckpt/lm-preempt"
  local C="$TRS 3 --master-port 29623 train.py"
  job $name 150 $JB "$E" "$E $C" $C & local jp=$!
  if waitlog $L/$name.log '] step 30/' 900; then local pid=$(rankpid $L/$name.log 2)
    [ -n "$pid" ] && kill -TERM $pid && echo "   $name: kill -TERM $pid (rank 2) [t+$((SECONDS - T0))s]"
  else echo "   $name: step 30 never came"; fi
  wait $jp; }
# ================================================================== schedule
ts "start"
for f in j_sigterm j_ok1 j_ok2 j_host j_pids j_yaml j_cpu j_tp j_nvml j_scatter j_fork j_aeh j_alloc j_ptx; do
  ts "launch $f"; $f & P="$P $!"; sleep 1; done
wait $P
ts "all done"
[ -s $A/mkns-pod.txt ] && { echo "--- mkns-pod.txt"; head -20 $A/mkns-pod.txt; }
find $A -type f -empty -delete
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
