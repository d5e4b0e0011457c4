#!/usr/bin/env bash
# Z90 capture run ZT: vLLM 0.26.0 / torch 2.11 faults made on purpose on the H200 (one batch call).
# Staging (earlier calls): p00..p06 copied to /tmp/stage/; p07 is carried in this call.
# Call: timeout -k 10 575 bash .device/Z90/run_zt.sh 2>&1 | tee $OUT/run_zt.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z90
mkdir -p $Z $Z/act "$OUT/logs" /tmp/stage /workspace/jobs
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
LATEST=${LATEST:-300}   # no job is started after t+LATEST s
LIMIT=5                 # vLLM servers (processes started with vllm serve / LLM) running at once
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 5 "$OUT/logs/$1.log" | cut -c1-230 | sed 's/^/      /'; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM
if [ ! -d /tmp/site/vllm ]; then
  cp .device/stage/parts/p07 /tmp/stage/p07
  ls -la /tmp/stage
  cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d /tmp/site/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
python3 $D/prep.py 2>&1 | tail -n 2
cp $D/nb.py $D/train_vit.py /workspace/jobs/
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
VS="python3 -m vllm.entrypoints.cli.main serve"
M=/workspace/models/tiny-llama
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
# two "nodes": network namespaces held by sleepers, wired with a veth (eth1 10.90.N.1 <-> 10.90.N.2)
nodepair() { unshare -n sleep 540 & NA=$!; unshare -n sleep 540 & NB=$!; sleep 0.4
  python3 $D/netz.py veth $NA 10.90.$1.1 $NB 10.90.$1.2 ${2:-}; }
# pairwait P0 P1 LIMIT: wait until one node's process ends (or LIMIT s), give the other 25 s, then SIGINT, then SIGKILL
pairwait() { local p0=$1 p1=$2 lim=$3 i
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq 25); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null; }
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() {  # launch WEIGHT SLOT FUNC
  local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"
}

# ---- V1 versions: huggingface_hub 0.24.6 installed with pip --target into /opt/hf-tools (for an old model-sync
#      script's huggingface-cli) and first on PYTHONPATH; vLLM 0.26 needs transformers 5.x, which needs hub >= 1.x
j_hub() { local name=h200-vllm026-huggingface-hub-0.24-target-dir-first-on-pythonpath; local log=$OUT/logs/$name.log
  python3 -m pip install -q --no-index --no-deps --target /opt/hf-tools $D/whl/huggingface_hub-0.24.6-py3-none-any.whl > $Z/hub.pip 2>&1
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ PYTHONPATH=/opt/hf-tools:/tmp/site vllm serve $M $TA $KV --port 8901" > $log
  PYTHONPATH=/opt/hf-tools:/tmp/site timeout -s INT -k 10 120 $VS $M $TA $KV --port 8901 >> $log 2>&1
  fin $name $?; }
# ---- T1 versions (torch): torchvision 0.20.1 (built for torch 2.5.1 / CUDA 12.4) pip-installed with --target into
#      /opt/vision-extra and on PYTHONPATH, shadowing the image's torchvision 0.26; 2-rank torchrun DDP job
j_tv() { local name=h200-torchrun-torchvision-0.20-target-dir-shadows-0.26; local log=$OUT/logs/$name.log
  python3 -m pip install -q --no-index --no-deps --target /opt/vision-extra $D/whl/torchvision-0.20.1-cp312-cp312-manylinux1_x86_64.whl > $Z/tv.pip 2>&1
  echo "== $name  [t+$((SECONDS - T0))s]"
  local TR="torchrun"; command -v torchrun > /dev/null || TR="python3 -m torch.distributed.run"
  echo "\$ PYTHONPATH=/opt/vision-extra torchrun --nproc-per-node 2 train_vit.py" > $log
  ( cd /workspace/jobs && PYTHONPATH=/opt/vision-extra timeout -k 10 120 $TR --nproc-per-node 2 train_vit.py >> $log 2>&1 )
  fin $name $?; }
# ---- V2 resources: PYTORCH_CUDA_ALLOC_CONF with roundup_power2_divisions:3 (divisions must be a power of 2)
j_alloc() { local name=h200-vllm026-pytorch-cuda-alloc-conf-roundup-power2-divisions-3; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.6,roundup_power2_divisions:3 vllm serve $M $TA $KV --port 8903" > $log
  PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.6,roundup_power2_divisions:3 timeout -s INT -k 10 150 $VS $M $TA $KV --port 8903 >> $log 2>&1
  fin $name $?; }
# ---- V3 resources: sleep mode in a 12 GiB memory-limited "container"; /sleep?level=1 offloads the 16 GB of
#      Llama-3-8B weights to pinned host memory -> the kernel OOM killer ends the engine mid-serve
j_sleep() { local name=h200-vllm026-sleep-mode-level1-offload-16gb-weights-memory-max-12g; local log=$OUT/logs/$name.log
  local CG=/sys/fs/cgroup/z90_sleep M8=/workspace/models/llama-3-8b-instruct; mkdir -p $CG; echo 12G > $CG/memory.max
  [ -e $CG/memory.swap.max ] && echo 0 > $CG/memory.swap.max
  local A="--load-format dummy --skip-tokenizer-init --enforce-eager --enable-sleep-mode --gpu-memory-utilization 0.2 --kv-cache-memory-bytes 2G --max-model-len 4096 --port 8902"
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ VLLM_SERVER_DEV_MODE=1 vllm serve $M8 $A" > $log
  bash -c "echo \$\$ > $CG/cgroup.procs && exec env VLLM_SERVER_DEV_MODE=1 timeout -s INT -k 10 260 $VS $M8 $A" >> $log 2>&1 &
  local p=$!
  ZC_MODEL=$M8 ZC_TO=150 python3 $D/zc.py 8902 200 ok ok "post:/sleep?level=1" sleep:3 waitdead:40 get:/health ok >> $log 2>&1
  echo "   sleep cgroup memory.events: $(tr '\n' ' ' < $CG/memory.events)"
  local i; for i in $(seq 30); do kill -0 $p 2>/dev/null || break; sleep 1; done
  kill -INT $p 2>/dev/null; wait $p; local rc=$?
  echo max > $CG/memory.max; for i in $(cat $CG/cgroup.procs 2>/dev/null); do kill -9 $i; done; sleep 1; rmdir $CG
  fin $name $rc; }
# generic two-"node" TP 2 job: two N NAME PORT BRIDGE NODE1_ENV NODE0_ENV NODE1_WRAP MODEL ARGS LIMIT
two() { local n=$1 name=$2 port=$3 br=$4 e1=$5 e0=$6 w1=$7 model=$8 args=$9 lim=${10}; local log=$OUT/logs/$name.log
  nodepair $n $br > $Z/pair.$n 2>&1; cat $Z/pair.$n
  local C="$args --tensor-parallel-size 2 --nnodes 2 --master-addr 10.90.$n.1 --master-port 2990$n"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1 (10.90.$n.2): \$ $e1 VLLM_HOST_IP=10.90.$n.2 vllm serve $model $C --node-rank 1 --headless"
    echo "# node 0 (10.90.$n.1): \$ $e0 VLLM_HOST_IP=10.90.$n.1 vllm serve $model $C --node-rank 0 --port $port"; } >> $log
  ( exec nsenter -n -t $NB $w1 env NCCL_HOSTID=node1 $e1 VLLM_HOST_IP=10.90.$n.2 timeout -s INT -k 10 $((lim + 40)) $VS $model $C --node-rank 1 --headless ) >> $log 2>&1 &
  local p1=$!
  ( exec nsenter -n -t $NA env NCCL_HOSTID=node0 $e0 VLLM_HOST_IP=10.90.$n.1 timeout -s INT -k 10 $((lim + 40)) $VS $model $C --node-rank 0 --port $port ) >> $log 2>&1 &
  local p0=$!
  pairwait $p0 $p1 $lim
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; killns $NA $NB; kill $NA $NB; }
# ---- P1 partitioning: Qwen1.5-1.8B-Chat-AWQ (intermediate_size 5504, group_size 128) with TP 2 over two nodes:
#      down_proj's input per rank is 2752, not a multiple of the 128-wide AWQ groups
j_awq() { two 1 h200-vllm026-2nodes-tp2-qwen1.5-1.8b-awq-intermediate-5504-group-128 8911 "" \
  "NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1" "NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1" "" \
  /workspace/models/qwen1.5-1.8b-chat-awq "$TA $KV --max-model-len 4096" 150; }
# ---- C1 communication: both hosts carry a docker-compose bridge br-7e2f0c91ab34 172.18.0.1/16 (created before
#      eth1); GLOO_SOCKET_IFNAME=eth1 set, NCCL_SOCKET_IFNAME not: NCCL bootstraps on the bridge address
j_bridge() { two 2 h200-vllm026-2nodes-tp2-nccl-ifname-unset-docker-compose-bridge-172.18.0.1 8912 bridge \
  "GLOO_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN" "GLOO_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN" "" \
  $M "$TA $KV" 170; }
# ---- O2 other: node 1's model volume (NFS, /workspace/models) is not mounted: the directory is empty there
j_node1() { local name=h200-vllm026-2nodes-tp2-node1-model-volume-not-mounted
  { echo "# node 1: \$ ls -la /workspace/models"; unshare -m sh $D/nfs_missing.sh ls -la /workspace/models; } > $OUT/logs/$name.log 2>&1
  two 3 $name 8913 "" "NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1" "NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1" \
  "unshare -m sh $D/nfs_missing.sh" \
  /workspace/models/llama-3.2-1b-instruct "$TA $KV --max-model-len 4096" 120; }
# ---- O1 other: runtime LoRA load of an adapter whose adapter_model.safetensors is only 58% copied
j_lorabad() { local name=h200-vllm026-runtime-lora-load-adapter-safetensors-58pct-copied; local log=$OUT/logs/$name.log
  local A="$TA $KV --enable-lora --max-lora-rank 16 --max-loras 2 --port 8904"
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve $M $A" > $log
  VLLM_ALLOW_RUNTIME_LORA_UPDATING=True timeout -s INT -k 10 230 $VS $M $A >> $log 2>&1 &
  local p=$!
  python3 $D/zc.py 8904 180 ok 'post:/v1/load_lora_adapter:{"lora_name": "support-r16", "lora_path": "/workspace/lora/support-r16"}' \
    ok:support-r16 ok >> $log 2>&1
  sleep 2; kill -INT $p; wait $p; fin $name $?; }
# ---- H1 healthy: runtime LoRA load / use / unload of a good adapter (dev-mode warning, LoRA kernels JIT)
j_loraok() { local name=h200-vllm026-runtime-lora-load-unload-r8-served-ok; local log=$OUT/logs/$name.log
  local A="$TA $KV --enable-lora --max-lora-rank 16 --max-loras 2 --port 8905"
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve $M $A" > $log
  VLLM_ALLOW_RUNTIME_LORA_UPDATING=True timeout -s INT -k 10 230 $VS $M $A >> $log 2>&1 &
  local p=$!
  python3 $D/zc.py 8905 180 ok 'post:/v1/load_lora_adapter:{"lora_name": "sql-r8", "lora_path": "/workspace/lora/sql-r8"}' \
    ok:sql-r8 get:/v1/models 'post:/v1/unload_lora_adapter:{"lora_name": "sql-r8"}' ok >> $log 2>&1
  sleep 2; kill -INT $p; wait $p; fin $name $?; }
# ---- H2 healthy: a leftover general plugin (built for vLLM 0.6) fails to import in every process; vLLM logs the
#      traceback and serves normally
j_plugin() { local name=h200-vllm026-leftover-general-plugin-import-error-served-ok; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ PYTHONPATH=/opt/acme-plugins:/tmp/site vllm serve $M $TA $KV --port 8906" > $log
  PYTHONPATH=/opt/acme-plugins:/tmp/site timeout -s INT -k 10 200 $VS $M $TA $KV --port 8906 >> $log 2>&1 &
  local p=$!
  python3 $D/zc.py 8906 170 ok ok >> $log 2>&1
  sleep 2; kill -INT $p; wait $p; fin $name $?; }
# ---- R2 resources: notebook re-runs its LLM(...) cell: the first engine (gpu_memory_utilization=0.5) still holds
#      its memory when the second is created in the same Python process
j_nb() { local name=h200-vllm026-notebook-llm-cell-rerun-first-engine-holds-memory; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ python3 nb.py" > $log
  ( cd /workspace/jobs && timeout -s INT -k 10 220 python3 nb.py >> $log 2>&1 )
  fin $name $?; }

launch 0 hub j_hub
launch 0 tv j_tv
launch 1 alloc j_alloc
launch 1 sleep j_sleep
launch 2 awq j_awq
launch 2 bridge j_bridge
launch 1 lorabad j_lorabad
launch 1 loraok j_loraok
launch 1 nb j_nb
launch 1 plugin j_plugin
launch 2 node1 j_node1
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
tar -C $OUT -cf $OUT/logs.tar logs && rm -rf $OUT/logs
ls -la $OUT
