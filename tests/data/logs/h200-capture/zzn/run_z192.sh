#!/usr/bin/env bash
# Z192 capture run: the software stack under multi-rank jobs, plain torch 2.11 (one call, < 270 s).
# torch.compile / inductor / Triton (caches, compile workers, autotuning), CUDA graphs, CUDA/C++ extensions JIT-built
# with torch.utils.cpp_extension, environment variables that change torch / NCCL / CUDA behaviour, Python packaging,
# and the first-failing-rank problem. Single-node jobs put 2-3 ranks on the one GPU (each rank its own NCCL "host"
# through NCCL_HOSTID, set by the HOSTID_PER_RANK harness line of the scripts, left out of the shown command); two-node
# jobs use network + UTS + mount namespaces joined by a veth (netz.py, from Z190/Z191), one torchrun per node.
# Call (from the repo root): cd .device/Z192 && timeout -k 10 300 bash run_z192.sh 2>&1 | tee $OUT/run_z192.out
set -u
set -m
OUT=${OUT:-/tmp/z192-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; A=$OUT/aux; Z=/tmp/z192
mkdir -p $L $A $Z
LM=/workspace/lm; PT=/workspace/llm-pt; DET=/workspace/detector
mkdir -p $LM $PT $DET /opt/pylibs /local_scratch /var/cache/torch_extensions /tmp/torchinductor_root /root/.triton
cp -r $D/jobs/*.py $D/jobs/csrc $LM/ && cp -r $D/jobs/llm-pt/. $PT/ && cp -r $D/jobs/detector/. $DET/ && cp $D/jobs/train.py $DET/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
unset OMP_NUM_THREADS NCCL_DEBUG PYTORCH_CUDA_ALLOC_CONF CUDA_VISIBLE_DEVICES NCCL_SOCKET_IFNAME GLOO_SOCKET_IFNAME \
  TORCH_DISTRIBUTED_DEBUG TORCH_LOGS TORCHINDUCTOR_MAX_AUTOTUNE TRITON_CACHE_DIR TORCHINDUCTOR_CACHE_DIR PYTHONPATH \
  TORCH_EXTENSIONS_DIR 2>/dev/null
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "== $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -a -v -e '^frame #' -e '^\[rank[0-9]*\]:  ' -e ' NCCL INFO ' -e '^  File ' -e '^    ' -e '^-*$' -e '^\[rank[0-9]*\]:V' "$L/$1.log" \
    | tail -n 4 | cut -c1-200 | sed 's/^/      /'; }
TR="python3 -m torch.distributed.run"
command -v torchrun > /dev/null && TR=torchrun

ts "facts"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'nccl', torch.cuda.nccl.version(), 'triton', triton.__version__)"
python3 -c "import setuptools, sys; print('python', sys.version.split()[0], 'setuptools', setuptools.__version__, setuptools.__file__)" 2>&1 | tail -1
GXX=$(command -v g++); NVCC=$(command -v nvcc); NINJA=$(command -v ninja)
echo "TR=$TR; g++=${GXX:-none}; nvcc=${NVCC:-none}; ninja=${NINJA:-none}; CUDA_HOME=${CUDA_HOME:-unset}; TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-unset}"
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-unset}"; ldconfig -p | grep -E 'libcuda\.so' | sed 's/^/   /'
echo "cgroup controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>&1)"

# ------------------------------------------------------------------ set-up (files and caches the jobs find)
ts "set-up"
# (V) node 1's image: an ld.so.cache built before the NVIDIA runtime injected the driver libraries (no libcuda entry);
#     made here by regenerating the cache in a private mount namespace where the libcuda files are hidden
unshare -m sh -c 'for f in $(ldconfig -p | awk "/libcuda\\.so/ {print \$NF}" | xargs -r readlink -f | sort -u); do
    mount --bind /dev/null "$f" && echo "hidden $f"; done
  ldconfig -X -C '$Z'/ld.so.cache.image 2>&1 | grep -v "not an ELF" | head -3' > $A/ldcache-build.txt 2>&1
echo "   ld.so.cache.image: $(ls -l $Z/ld.so.cache.image 2>&1 | awk '{print $5}') bytes, libcuda entries:" \
  "$(ldconfig -p -C $Z/ld.so.cache.image 2>/dev/null | grep -c 'libcuda\.so'), real cache: $(ldconfig -p | grep -c 'libcuda\.so')"
[ "$(ldconfig -p -C $Z/ld.so.cache.image 2>/dev/null | wc -l)" -gt 50 ] && [ "$(ldconfig -p -C $Z/ld.so.cache.image | grep -c 'libcuda\.so')" = 0 ] \
  || echo "   WARNING: ld.so.cache.image not usable: the ld-so-cache job will not show its fault"
# (E1) /opt/pylibs: packages pip-installed with --target for the team's legacy data tools (setuptools 58.1 among them)
( cd /opt/pylibs && python3 -m zipfile -e $D/wheels/setuptools-58.1.0-py3-none-any.whl . \
  && echo "/opt/pylibs: $(ls | tr '\n' ' ')" ) > $A/pylibs.txt 2>&1; echo "   $(tail -1 $A/pylibs.txt)"
# (O2) per-node extension caches: node 1's still holds the lock of a build that was killed (OOM) yesterday
mkdir -p $Z/n0-ext $Z/n1-ext/seqpack
printf 'ninja_required_version = 1.3\ncxx = c++\n' > $Z/n1-ext/seqpack/build.ninja
touch $Z/n1-ext/seqpack/lock; touch -d '-9 hours' $Z/n1-ext/seqpack/lock $Z/n1-ext/seqpack/build.ninja
ls -la --time-style=long-iso $Z/n1-ext/seqpack > $A/n1-ext-ls.txt 2>&1
echo "   node 1 extension cache: $(ls $Z/n1-ext/seqpack | tr '\n' ' ')"

# ------------------------------------------------------------------ helpers (after Z191/run_z191.sh)
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
# multi NAME LIMIT GRACE SPEC...: one launcher per SPEC "NSPID|LABEL|DELAY|ENV|CMD", consoles into logs/NAME.log (the
# header shows each launch line; NCCL_HOSTID, which only stands in for distinct machines, is left out of it). When the
# first launcher ends the others get GRACE s, then SIGINT (an operator's Ctrl-C), then SIGKILL 15 s later; LIMIT caps
# the start. PRE (global, optional): lines written to the log before the launch lines (the job's prolog output).
PRE=""
multi() { local name=$1 lim=$2 g=$3; shift 3
  local log=$L/$name.log k=0 N spec ns lab dl e c shown t end_at=-1 alive done1 tl rcs=""
  local -a NS LAB DL EV CM PID
  : > $log; [ -n "$PRE" ] && printf '%s\n' "$PRE" >> $log; PRE=""
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
E2="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 OMP_NUM_THREADS=4"
P=""

# ================================================================== jobs
# V visibility: two nodes, DDP + torch.compile; node 1 is a new node whose image has an ld.so.cache without the driver
#   library (the runtime's ldconfig hook is off) and whose pod spec replaces LD_LIBRARY_PATH (/usr/local/nvidia/lib64
#   dropped); torch still finds libcuda through the loader's default path, Triton's ldconfig -p / LD_LIBRARY_PATH
#   lookup does not. Node 1 also starts with an empty ~/.triton (a fresh node), so Triton must build its driver module.
j_ldcache() { local N0 N1 name=h200-2nodes-torchrun-nccl-compile-node1-ld-so-cache-without-libcuda-ld-library-path-overridden
  nodes2 ldc 10.130.0.1 10.130.0.2 "" \
    "mount --bind $Z/ld.so.cache.image /etc/ld.so.cache; mount -t tmpfs tmpfs /root/.triton; mount -t tmpfs tmpfs /tmp/torchinductor_root"
  on $N1 sh -c 'echo "ldconfig -p libcuda entries: $(ldconfig -p | grep -c "libcuda\.so")"; LD_LIBRARY_PATH=/usr/local/cuda/lib64 python3 -c "
import ctypes; ctypes.CDLL(\"libcuda.so.1\"); print(\"dlopen libcuda.so.1 with node 1 LD_LIBRARY_PATH: ok\")"' > $A/ldcache-node1-check.txt 2>&1
  echo "   ldc node 1: $(tr '\n' ' ' < $A/ldcache-node1-check.txt | cut -c1-160)"
  local C="exec $TR --nnodes 2 --nproc-per-node 1 --master-addr 10.130.0.1 --master-port 29500"
  local S="$LM/train.py --compile default --eager-init --pg-timeout 60 --steps 40 --print-every 5"
  multi $name 110 45 "$N0|node 0 (gpu-node-0)|0|$E2 TORCHINDUCTOR_COMPILE_THREADS=1 NCCL_HOSTID=gpu-node-0|$C --node-rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 TORCHINDUCTOR_COMPILE_THREADS=1 LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_HOSTID=gpu-node-1|$C --node-rank 1 $S"
  killns $N0 $N1; }
# C1 communication: two nodes, DDP; node 1 alone was left with TORCH_DISTRIBUTED_DEBUG=DETAIL from an earlier debugging
#   session: its process group is wrapped (ProcessGroupWrapper) with a Gloo helper group that node 0 never creates
j_detail() { local N0 N1 name=h200-2nodes-torchrun-nccl-node1-only-torch-distributed-debug-detail
  nodes2 dtl 10.131.0.1 10.131.0.2
  local C="exec $TR --nnodes 2 --nproc-per-node 1 --master-addr 10.131.0.1 --master-port 29500"
  local S="$LM/train.py --eager-init --pg-timeout 30 --steps 40 --print-every 5"
  multi $name 100 15 "$N0|node 0 (gpu-node-0)|0|$E2 NCCL_DEBUG=INFO NCCL_HOSTID=gpu-node-0|$C --node-rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_HOSTID=gpu-node-1|$C --node-rank 1 $S"
  killns $N0 $N1; }
# C2 communication: two nodes, DDP + torch.compile, PG timeout 20 s; node 1's shell profile still exports the GEMM
#   autotuning settings of a benchmarking session (max-autotune, exhaustive search space): node 1 autotunes while
#   node 0, done compiling, waits in the first gradient all-reduce
j_autotune() { local N0 N1 name=h200-2nodes-torchrun-nccl-compile-node1-max-autotune-exhaustive-env-pg-timeout-20s
  nodes2 atn 10.132.0.1 10.132.0.2
  local C="exec $TR --nnodes 2 --nproc-per-node 1 --master-addr 10.132.0.1 --master-port 29500"
  local S="$LM/train.py --compile default --eager-init --pg-timeout 20 --steps 60 --print-every 5"
  multi $name 110 10 "$N0|node 0 (gpu-node-0)|0|$E2 TORCHINDUCTOR_COMPILE_THREADS=2 NCCL_HOSTID=gpu-node-0|$C --node-rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 TORCHINDUCTOR_COMPILE_THREADS=2 TORCHINDUCTOR_MAX_AUTOTUNE=1 TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_SEARCH_SPACE=EXHAUSTIVE NCCL_HOSTID=gpu-node-1|$C --node-rank 1 $S"
  killns $N0 $N1; }
# P partitioning: FSDP2 recipe written for 8-GPU nodes (reshard_after_forward: 8) run on 3 ranks (a 4-GPU node with one
#   GPU drained)
j_fsdp() { local name=h200-torchrun-nccl-3ranks-fsdp2-reshard-after-forward-8-recipe-for-8-gpu-nodes
  local C="$TR --nproc-per-node 3 --master-port 29721 fsdp_train.py --config configs/pretrain-1b.yaml"
  job $name 90 $PT "HOSTID_PER_RANK=1 NCCL_DEBUG=INFO OMP_NUM_THREADS=4" "NCCL_DEBUG=INFO OMP_NUM_THREADS=4 $C" $C; }
# R1 resources: the site's job template puts the Triton and inductor caches on node-local /local_scratch, which the
#   security baseline mounts nodev,nosuid,noexec; Triton builds its driver module into the cache and loads it from there
j_noexec() { local name=h200-torchrun-nccl-3ranks-compile-triton-cache-on-noexec-scratch
  local EV="HOSTID_PER_RANK=1 NCCL_DEBUG=INFO OMP_NUM_THREADS=4 TORCHINDUCTOR_COMPILE_THREADS=1 TRITON_CACHE_DIR=/local_scratch/root/triton TORCHINDUCTOR_CACHE_DIR=/local_scratch/root/inductor"
  local C="$TR --nproc-per-node 3 --master-port 29722 $LM/train.py --compile default --eager-init --pg-timeout 60 --steps 40"
  job $name 110 $LM "$EV" "${EV#HOSTID_PER_RANK=1 } $C" unshare -m sh -c \
    "mount -t tmpfs -o size=4g,mode=1777,nodev,nosuid,noexec local_scratch /local_scratch && mkdir -p /local_scratch/root \
     && df -h /local_scratch | sed 's/^/[prolog] /' && exec $C"; }
# R2 resources: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync (from the image) and an evaluation pass compiled with
#   mode="reduce-overhead" (CUDA graph trees) on rank 0 every 10 steps while the other rank waits in a barrier
j_mallocasync() { local name=h200-torchrun-nccl-2ranks-alloc-conf-cudamallocasync-eval-compile-reduce-overhead
  local EV="HOSTID_PER_RANK=1 OMP_NUM_THREADS=4 TORCHINDUCTOR_COMPILE_THREADS=1 PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync"
  local C="$TR --nproc-per-node 2 --master-port 29723 $LM/train.py --eager-init --pg-timeout 60 --steps 40 --eval-every 10 --eval-rank0-only --eval-compile reduce-overhead"
  job $name 110 $LM "$EV" "${EV#HOSTID_PER_RANK=1 } $C" $C; }
# E1 versions: PYTHONPATH=/opt/pylibs, where setuptools 58.1 (pip --target for legacy tools) shadows the image's
#   setuptools; the job JIT-builds its C++ op with torch.utils.cpp_extension on Python 3.12
j_setuptools() { local name=h200-torchrun-nccl-2ranks-jit-extension-pythonpath-setuptools-58-on-python-3.12
  local EV="HOSTID_PER_RANK=1 OMP_NUM_THREADS=4 PYTHONPATH=/opt/pylibs"
  local C="$TR --nproc-per-node 2 --master-port 29724 $LM/seqpack_train.py --steps 30"
  job $name 90 $LM "$EV" "OMP_NUM_THREADS=4 PYTHONPATH=/opt/pylibs $C" $C; }
# E2 versions: the detector repo has its own package named triton/ (Triton Inference Server export helpers); torchrun
#   starts train.py from the repo, so sys.path[0] puts that package in front of the real triton
j_shadow() { local name=h200-torchrun-nccl-2ranks-compile-repo-local-triton-package-shadows-triton
  local EV="HOSTID_PER_RANK=1 OMP_NUM_THREADS=4 TORCHINDUCTOR_COMPILE_THREADS=1"
  local C="$TR --nproc-per-node 2 --master-port 29725 train.py --compile default --eager-init --pg-timeout 60 --steps 40"
  job $name 90 $DET "$EV" "cd $DET && ${EV#HOSTID_PER_RANK=1 } $C" $C; }
# N network: c10d rendezvous over the cluster NIC; the launch script passes --local-addr from the inventory, which holds
#   each node's management address (eth0, default route, not routed between the nodes' management subnets); torchrun
#   hands rank 0's local address to the workers as MASTER_ADDR
j_localaddr() { local N0 N1 M0 M1 name=h200-2nodes-torchrun-c10d-local-addr-management-nic-unreachable-from-peer
  hostsf $Z/hosts-lad 10.133.0.1 10.133.0.2
  mkns gpu-node-0 $Z/hosts-lad "" lad; N0=$NODE; mkns gpu-node-1 $Z/hosts-lad "" lad; N1=$NODE
  unshare -n sh -c 'exec sleep 400' > /dev/null 2>&1 & M0=$!; disown $M0
  unshare -n sh -c 'exec sleep 400' > /dev/null 2>&1 & M1=$!; disown $M1; sleep 0.3
  { python3 $D/netz.py veth $N0 10.196.0.5 eth0 $M0 10.196.0.1 gw0 && python3 $D/netz.py veth $N1 10.196.1.6 eth0 $M1 10.196.1.1 gw1 \
    && python3 $D/netz.py route $N0 0.0.0.0/0 10.196.0.1 && python3 $D/netz.py route $N1 0.0.0.0/0 10.196.1.1 \
    && python3 $D/netz.py veth $N0 10.133.0.1 eth1 $N1 10.133.0.2 eth1; } 2>&1 | sed 's/^/   lad: /'
  PRE="$(for n in 0 1; do eval "p=\$N$n"; echo "# node $n (gpu-node-$n) addresses:"; python3 $D/netz.py show $p; done)"
  local C="exec $TR --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 10.133.0.1:29400 --rdzv-id ft-0612"
  local S="$LM/train.py --eager-init --pg-timeout 40 --steps 40 --print-every 5"
  multi $name 110 15 "$N0|node 0 (gpu-node-0)|0|$E2 NCCL_HOSTID=gpu-node-0|$C --local-addr 10.196.0.5 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 NCCL_HOSTID=gpu-node-1|$C --local-addr 10.196.1.6 $S"
  killns $N0 $N1 $M0 $M1; }
# O1 other: ZeRO-1 fine-tune whose fused momentum-SGD CUDA kernel (JIT-built from csrc/ with cpp_extension.load) uses
#   float4 loads; the flat buffer (2,100,225 parameters, odd) is padded only to a multiple of the world size, so rank 1's
#   shard starts 4 bytes past a 16-byte boundary
j_zero1() { local name=h200-torchrun-nccl-2ranks-jit-cuda-ext-zero1-float4-kernel-rank1-shard-misaligned
  if [ -z "$GXX" ] || [ -z "$NVCC" ]; then echo "   SKIP $name: g++ or nvcc missing (g++=${GXX:-none} nvcc=${NVCC:-none})"; return; fi
  local EV="HOSTID_PER_RANK=1 OMP_NUM_THREADS=4 NCCL_DEBUG=WARN MAX_JOBS=4"
  local C="$TR --nproc-per-node 2 --master-port 29726 $LM/zero1_train.py --steps 30"
  job $name 170 $LM "$EV" "${EV#HOSTID_PER_RANK=1 } $C" $C; }
# O2 other: two nodes, JIT-built C++ op (cpp_extension.load) in the node-local extension cache
#   (TORCH_EXTENSIONS_DIR=/var/cache/torch_extensions); on node 1 a build killed yesterday left seqpack/lock behind
j_stalelock() { local N0 N1 name=h200-2nodes-torchrun-nccl-node1-torch-extensions-stale-lock-from-killed-build
  if [ -z "$GXX" ]; then echo "   SKIP $name: no g++"; return; fi
  nodes2 slk 10.134.0.1 10.134.0.2 "mount --bind $Z/n0-ext /var/cache/torch_extensions" "mount --bind $Z/n1-ext /var/cache/torch_extensions"
  local C="exec $TR --nnodes 2 --nproc-per-node 1 --master-addr 10.134.0.1 --master-port 29500"
  local S="$LM/seqpack_train.py --pg-timeout 20 --steps 30"
  multi $name 130 15 "$N0|node 0 (gpu-node-0)|0|$E2 NCCL_DEBUG=WARN TORCH_EXTENSIONS_DIR=/var/cache/torch_extensions NCCL_HOSTID=gpu-node-0|$C --node-rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 NCCL_DEBUG=WARN TORCH_EXTENSIONS_DIR=/var/cache/torch_extensions NCCL_HOSTID=gpu-node-1|$C --node-rank 1 $S"
  killns $N0 $N1; }
# H1 healthy: DDP + torch.compile with packing buckets of several lengths (recompiles, automatic dynamic shapes), a
#   debug print in forward (graph break), TORCH_LOGS=recompiles,graph_breaks, lazy NCCL init (no device_id); exit 0
j_ok1() { local name=h200-torchrun-nccl-2ranks-compile-recompiles-graph-breaks-torch-logs-lazy-init-ok
  local EV="HOSTID_PER_RANK=1 OMP_NUM_THREADS=4 TORCHINDUCTOR_COMPILE_THREADS=2 TORCH_LOGS=recompiles,graph_breaks"
  local C="$TR --nproc-per-node 2 --master-port 29727 $LM/train.py --compile default --d-model 320 --heads 4 --layers 1 --vocab 2048 --seq-schedule 128,128,96,128,64 --debug-act-norm --steps 30 --print-every 5 --eval-every 15 --eval-batches 2 --pg-timeout 180"
  job $name 170 $LM "$EV" "${EV#HOSTID_PER_RANK=1 } $C" $C; }
# H2 healthy: two nodes, cpu:gloo,cuda:nccl with lazy NCCL init, NCCL_DEBUG=INFO, deprecated torch.cuda.amp.autocast,
#   an autotuned Triton kernel (TRITON_PRINT_AUTOTUNING=1) in an evaluation forward captured as a CUDA graph; exit 0
j_ok2() { local N0 N1 name=h200-2nodes-torchrun-gloo-nccl-info-triton-autotune-cudagraph-eval-lazy-init-ok
  nodes2 ok2 10.135.0.1 10.135.0.2
  local C="exec $TR --nnodes 2 --nproc-per-node 1 --master-addr 10.135.0.1 --master-port 29500"
  local S="$LM/rerank_train.py --steps 40 --eval-every 20"
  multi $name 130 30 "$N0|node 0 (gpu-node-0)|0|$E2 NCCL_DEBUG=INFO TRITON_PRINT_AUTOTUNING=1 NCCL_HOSTID=gpu-node-0|$C --node-rank 0 $S" \
    "$N1|node 1 (gpu-node-1)|0|$E2 NCCL_DEBUG=INFO TRITON_PRINT_AUTOTUNING=1 NCCL_HOSTID=gpu-node-1|$C --node-rank 1 $S"
  killns $N0 $N1; }

# ================================================================== schedule
ts "start"
for f in ${Z192_JOBS:-j_zero1 j_stalelock j_autotune j_ldcache j_localaddr j_detail j_ok1 j_ok2 j_noexec j_mallocasync j_fsdp j_setuptools j_shadow}; do
  ts "launch $f"; $f & P="$P $!"; sleep 1; done
wait $P
ts "all done"
for f in $A/mkns-*.txt; do [ -s $f ] && { echo "--- $(basename $f)"; head -5 $f; }; done
find $A -type f -empty -delete
ls -la $L
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
tar -C $OUT -czf $OUT/logs.tgz logs aux && ls -la $OUT/logs.tgz
