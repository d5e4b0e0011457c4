#!/usr/bin/env bash
# Z137 capture run ZY: vLLM 0.26.0 engine-configuration / Python-environment / process-limit faults made on purpose
# on the H200 (one GPU), plus plain torch 2.11, plus two healthy runs. One batch call.
# Staging: the vLLM tar (parts/p00..p07) re-split into 40 MB pieces q00..q08 (.device/Z137s/, the tree is 18.5 MB and one
# call carries at most 64 MiB); q00..q07 copied to /tmp/stage/ by earlier calls; q08 carried in this call.
# Call: timeout -k 10 560 bash .device/Z137/run_zy.sh 2>&1 | tee $OUT/run_zy.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z137
L=$Z/out/logs
mkdir -p $Z $Z/act $L /tmp/stage /workspace/jobs
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
LATEST=${LATEST:-330}   # no job starts after t+LATEST s
LIMIT=${LIMIT:-4}       # vllm servers at once
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
pack() { tar -C $Z/out -cf $Z/logs.tar.$BASHPID logs 2>/dev/null && mv $Z/logs.tar.$BASHPID $OUT/logs.tar; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"; grep -v '^frame #' "$L/$1.log" | tail -n 6 | cut -c1-230 | sed 's/^/      /'; pack; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM
if [ ! -d /tmp/site/vllm ]; then
  cp .device/Z137s/q08 /tmp/stage/q08
  ls -la /tmp/stage
  cat /tmp/stage/q0[0-8] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d /tmp/site/vllm ] || { echo "not installed"; exit 5; }
SITE=/tmp/site
export PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
python3 $D/prep.py 2>&1 | tail -n 1
cp $D/nccl_ar.py $D/train.py /workspace/jobs/
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import transformers, tqdm, typing_extensions as t; print('image: transformers', transformers.__version__, 'tqdm', tqdm.__version__, 'typing_extensions', getattr(t,'__version__','?'))" 2>&1 | tail -n 1
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
echo "cgroup subtree: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
VS="python3 -m vllm.entrypoints.cli.main serve"
M=/workspace/models/tiny-llama
M7=/workspace/models/llama-2-7b
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() {  # launch WEIGHT NAME FUNC
  local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"
}
# drive PID PORT WAIT ACTIONS CLIENTFILE: cl.py ACTIONS against PORT in the background; when the client is done,
#   SIGINT to PID (a `timeout` process, which passes it to the server); when the server ends first, the client is stopped
drive() { local p=$1 port=$2 w=$3 cl=$4 cf=$5 c
  if [ -z "$cl" ]; then wait $p; return; fi
  CL_TO=60 python3 $D/cl.py $port $w $cl > $cf 2>&1 & c=$!
  while kill -0 $p 2>/dev/null && kill -0 $c 2>/dev/null; do sleep 1; done
  if kill -0 $p 2>/dev/null; then sleep 2; kill -INT $p; else kill $c 2>/dev/null; fi
  wait $c 2>/dev/null; wait $p; }
# srv NAME LIMIT PORT CLIENT PREFIX ARGS: `vllm serve` with PYTHONPATH=/tmp/site; PREFIX: env assignments
srv() { local name=$1 lim=$2 port=$3 cl=$4 pre=$5 args=$6 log=$L/$1.log p
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ vllm serve $args --port $port" > $log
  env PYTHONPATH=$SITE $pre timeout -s INT -k 15 $lim $VS $args --port $port >> $log 2>&1 & p=$!
  drive $p $port $((lim - 30)) "$cl" $Z/$name.client; local r=$?
  [ -n "$cl" ] && { echo "   client:"; sed 's/^/      /' $Z/$name.client | cut -c1-200; }
  fin $name $r; }

# ---- C1 config: engine args copied from a big-batch node (--max-num-seqs 1024) with a small token budget (512)
j_c1() { srv h200-vllm026-max-num-seqs-1024-max-num-batched-tokens-512 120 8101 "" "" \
  "$M $TA $KV --max-num-seqs 1024 --max-num-batched-tokens 512"; }
# ---- C2 config: online FP8 quantization together with --dtype float32
j_c2() { srv h200-vllm026-quantization-fp8-dtype-float32 150 8102 "" "" \
  "$M7 --load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.15 $KV --max-model-len 4096 --quantization fp8 --dtype float32"; }
# ---- C3 partitioning: a DCP 2 setting kept when the model moved from a TP 8 node to one GPU (TP 1)
j_c3() { srv h200-vllm026-decode-context-parallel-2-tp1 120 8103 "" "" \
  "$M $TA $KV --tensor-parallel-size 1 --decode-context-parallel-size 2"; }
# ---- V1 visibility: unit file from a 2-GPU node: CUDA_VISIBLE_DEVICES=1,0 and TP 2, on a 1-GPU node
j_v1() { local name=h200-vllm026-cuda-visible-devices-1-0-tp2-on-1-gpu-node
  srv $name 120 8104 "" "CUDA_VISIBLE_DEVICES=1,0" "$M $TA $KV --tensor-parallel-size 2"
  sed -i "1s|^|\$ export CUDA_VISIBLE_DEVICES=1,0\n|" $L/$name.log; pack; }
# ---- E1 versions: the service user's ~/.local (pip install --user long ago) holds tqdm 4.26.0; user site precedes the
#      image's site-packages
j_e1() { local name=h200-vllm026-user-site-tqdm-4.26-shadows-image-tqdm H=/home/svc-llm
  mkdir -p $H; python3 -m pip install -q --no-index --no-deps --target $H/.local/lib/python3.12/site-packages $D/tqdm-4.26.0-py2.py3-none-any.whl 2>&1 | tail -n 2
  ls $H/.local/lib/python3.12/site-packages
  srv $name 120 8105 "" "HOME=$H" "$M $TA $KV"; }
# ---- R1 resources: --cpu-offload-gb 10 for a 7B model inside a container (cgroup) with memory.max 6G, no swap
j_r1() { local name=h200-vllm026-cpu-offload-gb-10-7b-container-memory-6g CG=/sys/fs/cgroup/z137_off log=$L/h200-vllm026-cpu-offload-gb-10-7b-container-memory-6g.log p
  mkdir -p $CG; echo 6G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  echo "== $name  [t+$((SECONDS - T0))s]  memory.max $(cat $CG/memory.max)"
  local args="$M7 --load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.15 $KV --max-model-len 4096 --cpu-offload-gb 10 --port 8106"
  echo "\$ vllm serve $args" > $log
  PYTHONPATH=$SITE bash -c "echo \$\$ > $CG/cgroup.procs && exec timeout -s INT -k 15 200 $VS $args" >> $log 2>&1 & p=$!
  wait $p; local r=$?
  echo "   memory.events: $(tr '\n' ' ' < $CG/memory.events)  peak: $(cat $CG/memory.peak 2>/dev/null)"
  for q in $(cat $CG/cgroup.procs 2>/dev/null); do kill -9 $q; done; sleep 1; rmdir $CG
  fin $name $r; }
# ---- R2 resources: a batch system's file-size limit (ulimit -f 8 = 8 KiB, RLIMIT_FSIZE) on the serving job,
#      torch.compile and CUDA graphs on (no --enforce-eager); output through a pipe so the log itself is not limited
j_r2() { local name=h200-vllm026-ulimit-f-8k-torch-compile log=$L/h200-vllm026-ulimit-f-8k-torch-compile.log p
  echo "== $name  [t+$((SECONDS - T0))s]"
  local args="$M --load-format dummy --skip-tokenizer-init --gpu-memory-utilization 0.08 $KV --port 8107"
  { echo "\$ ulimit -f 8"; echo "\$ vllm serve $args"; } > $log
  PYTHONPATH=$SITE bash -c "ulimit -f 8; exec timeout -s INT -k 15 240 $VS $args" > >(cat >> $log) 2>&1 & p=$!
  drive $p 8107 210 "ok ok" $Z/$name.client; local r=$?; sleep 1
  echo "   client:"; sed 's/^/      /' $Z/$name.client | cut -c1-200
  fin $name $r; }
# ---- R3 resources: /dev/shm mounted read-only in the container (mount namespace), mp executor
j_r3() { local name=h200-vllm026-dev-shm-read-only-mp-executor log=$L/h200-vllm026-dev-shm-read-only-mp-executor.log p
  echo "== $name  [t+$((SECONDS - T0))s]"
  local args="$M $TA $KV --distributed-executor-backend mp --port 8108"
  echo "\$ vllm serve $args" > $log
  PYTHONPATH=$SITE unshare -m sh -c "mount -t tmpfs -o ro,size=1g shm /dev/shm && exec timeout -s INT -k 15 150 $VS $args" >> $log 2>&1 & p=$!
  drive $p 8108 120 "ok" $Z/$name.client; local r=$?
  echo "   client:"; sed 's/^/      /' $Z/$name.client | cut -c1-200
  fin $name $r; }
# ---- H1 healthy: --max-num-batched-tokens 65536 with --max-num-seqs 8 (max len 2048): warning, then serves
j_h1() { srv h200-vllm026-max-num-batched-tokens-65536-max-num-seqs-8-served-ok 200 8109 "ok ok burst:6 ok" "" \
  "$M $TA $KV --max-num-seqs 8 --max-num-batched-tokens 65536"; }
# ---- T1 versions (torch): the job's PYTHONPATH has a vendored typing_extensions 4.4.0 in front of the image's
j_t1() { local name=h200-torchrun-pythonpath-vendor-typing-extensions-4.4 log=$L/h200-torchrun-pythonpath-vendor-typing-extensions-4.4.log
  mkdir -p /opt/app/vendor; python3 -m pip install -q --no-index --no-deps --target /opt/app/vendor $D/typing_extensions-4.4.0-py3-none-any.whl 2>&1 | tail -n 2
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ PYTHONPATH=/opt/app/vendor torchrun --nproc-per-node 1 train.py" > $log
  ( cd /workspace/jobs && PYTHONPATH=/opt/app/vendor timeout -k 10 120 python3 -m torch.distributed.run --nproc-per-node 1 train.py ) >> $log 2>&1
  fin $name $?; }
# ---- T2 healthy (torch): 2-rank NCCL all-reduce over sockets (ranks claim different hosts), with socket-thread
#      settings beyond NCCL's maxima and a legacy env var
j_t2() { local name=h200-torchrun-nccl-socket-nthreads-32-nsocks-8-ok log=$L/h200-torchrun-nccl-socket-nthreads-32-nsocks-8-ok.log
  local E="NCCL_SOCKET_IFNAME=lo NCCL_SOCKET_NTHREADS=32 NCCL_NSOCKS_PERTHREAD=8 NCCL_ASYNC_ERROR_HANDLING=1 NCCL_DEBUG=WARN"
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ $E torchrun --nproc-per-node 2 --master-port 29537 nccl_ar.py" > $log
  ( cd /workspace/jobs && env $E timeout -k 10 150 python3 -m torch.distributed.run --nproc-per-node 2 --master-port 29537 nccl_ar.py ) >> $log 2>&1
  fin $name $?; }

# ---- E2 versions: a shared library dir from an older project first on PYTHONPATH holds starlette 0.27.0
#      (the venv/target dir has starlette 1.10 for fastapi 0.136)
j_e2() { local name=h200-vllm026-pythonpath-shared-dir-starlette-0.27-before-site
  mkdir -p /opt/ml/libs; python3 -m pip install -q --no-index --no-deps --target /opt/ml/libs $D/starlette-0.27.0-py3-none-any.whl 2>&1 | tail -n 2
  srv $name 120 8110 "ok" "PYTHONPATH=/opt/ml/libs:$SITE" "$M $TA $KV"
  sed -i "1s|^|\$ export PYTHONPATH=/opt/ml/libs:$SITE\n|" $L/$name.log; pack; }
# ---- E3 versions: tqdm 4.26.0 (from an old project's requirements) in a dir first on PYTHONPATH
j_e3() { local name=h200-vllm026-pythonpath-old-project-dir-tqdm-4.26-first
  mkdir -p /opt/legacy/pylib; python3 -m pip install -q --no-index --no-deps --target /opt/legacy/pylib $D/tqdm-4.26.0-py2.py3-none-any.whl 2>&1 | tail -n 2
  srv $name 120 8111 "ok" "PYTHONPATH=/opt/legacy/pylib:$SITE" "$M $TA $KV"
  sed -i "1s|^|\$ export PYTHONPATH=/opt/legacy/pylib:$SITE\n|" $L/$name.log; pack; }

JOBS=${JOBS:-"r2 r1 h1 r3 t1 t2 c1 c2 c3 v1 e1"}
for j in $JOBS; do
  case $j in
    t*) launch 0 $j j_$j ;;
    *) launch 1 $j j_$j ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack
ls -la $OUT
