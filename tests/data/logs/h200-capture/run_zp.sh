#!/usr/bin/env bash
# Z77 capture run ZP: vLLM 0.26.0 + torch 2.11 / NCCL 2.28.9 faults made on purpose on the H200.
# Call (p00..p06 copied to /tmp/stage/ by earlier calls; p07 carried in this one):
#   timeout -k 10 585 bash .device/Z77/run_zp.sh 2>&1 | tee $OUT/run_zp.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z77
mkdir -p $Z "$OUT/logs" /tmp/stage /workspace/app
cp $D/app/*.py /workspace/app/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 4 "$OUT/logs/$1.log" | cut -c1-220 | sed 's/^/      /'; }
job() {  # job NAME LIMIT SHOWN CMD...
  local name=$1 limit=$2 shown=$3; shift 3
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ $shown" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" "$@" >> "$OUT/logs/$name.log" 2>&1
  fin $name $?
}

# ---------------------------------------------------------------- install vLLM
cp .device/stage/parts/p07 /tmp/stage/p07
ls -la /tmp/stage
cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl 2>&1 | tail -n 3
[ -d /tmp/site/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
python3 $D/prep.py 2>&1 | tail -n 2
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch, vllm; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'vllm', vllm.__version__)" 2>&1 | tail -n 1
python3 -c "import numba; print('numba', numba.__version__)" > $Z/numba.out 2>&1; NUMBA_RC=$?; cat $Z/numba.out | tail -n 1
python3 -c "import deep_ep" 2>&1 | tail -n 1
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
cat /sys/fs/cgroup/cgroup.subtree_control

VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager"

# ================================================================ phase A
ts "phase A"
J=""
# A1 versions: DP 2 over two nodes (node 1 headless), expert parallel with --all2all-backend deepep_low_latency,
#    DeepEP not installed on the nodes
( name=h200-vllm026-2nodes-dp2-ep-all2all-deepep-low-latency-not-installed; log=$OUT/logs/$name.log
  M=/workspace/models/tiny-mixtral-8e
  C="--gpu-memory-utilization 0.08 --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13477 --enable-expert-parallel --all2all-backend deepep_low_latency"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1: \$ vllm serve $M $TA $C --headless --data-parallel-start-rank 1"
    echo "# node 0: \$ vllm serve $M $TA $C --port 8931"; } > $log
  NCCL_HOSTID=node1 timeout -s INT -k 10 150 $VS $M $TA $C --headless --data-parallel-start-rank 1 >> $log 2>&1 &
  p1=$!; sleep 2
  NCCL_HOSTID=node0 timeout -s INT -k 10 150 $VS $M $TA $C --port 8931 >> $log 2>&1 &
  p0=$!
  wait $p0; r0=$?; sleep 5; kill -INT $p1 2>/dev/null; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1"
) &
J="$J $!"

# A2 resources: TP 2 over two nodes, serving; node 1's memory cgroup is squeezed (host memory taken by other
#    processes on node 1) and the kernel OOM-kills node 1's worker mid-serving; then a request arrives at node 0
( name=h200-vllm026-2nodes-tp2-node1-oom-killed-mid-serving; log=$OUT/logs/$name.log
  M=/workspace/models/tiny-llama
  CG=/sys/fs/cgroup/z77_node1; mkdir -p $CG
  C="--gpu-memory-utilization 0.08 --tensor-parallel-size 2 --nnodes 2 --master-addr 127.0.0.1 --master-port 29771"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1: \$ vllm serve $M $TA $C --node-rank 1 --headless"
    echo "# node 0: \$ VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 vllm serve $M $TA $C --node-rank 0 --port 8921"; } > $log
  bash -c "echo \$\$ > $CG/cgroup.procs && exec env NCCL_HOSTID=node1 timeout -s INT -k 10 200 $VS $M $TA $C --node-rank 1 --headless" >> $log 2>&1 &
  p1=$!
  NCCL_HOSTID=node0 VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=30 timeout -s INT -k 10 200 $VS $M $TA $C --node-rank 0 --port 8921 >> $log 2>&1 &
  p0=$!
  python3 $D/client.py 8921 150 $M small small "sh:echo 256M > $CG/memory.max" sleep:8 small > $Z/a2-client.out 2>&1
  echo "   node1 cgroup: memory.events: $(tr '\n' ' ' < $CG/memory.events)  procs: $(cat $CG/cgroup.procs | tr '\n' ' ')"
  for i in $(seq 45); do kill -0 $p0 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  wait $p0; r0=$?; wait $p1; r1=$?
  cat $Z/a2-client.out
  fin $name "node0 $r0 node1 $r1"
  for p in $(cat $CG/cgroup.procs 2>/dev/null); do kill -9 $p; done; sleep 1; rmdir $CG 2>/dev/null
) &
J="$J $!"

# A3 other: offline vllm.LLM on a fine-tuned checkpoint whose safetensors keys were saved under the PEFT wrapper
( job h200-vllm026-llm-safetensors-keys-base-model-prefix 120 \
    "python3 /workspace/app/offline_generate.py /workspace/models/llama-sft-merged" \
    python3 /workspace/app/offline_generate.py /workspace/models/llama-sft-merged
) &
J="$J $!"

# A4 communication: two-stage pipeline, stage 0 sends [4, 512, 1024] (trimmed), stage 1 receives into [4, 1024, 1024]
( job h200-torchrun-nccl-pp-send-recv-shape-mismatch-pg-timeout-20s 120 \
    "torchrun --nproc_per_node 2 --master_port 29772 /workspace/app/pp_train.py" \
    torchrun --nproc_per_node 2 --master_port 29772 /workspace/app/pp_train.py
) &
J="$J $!"

# A5 healthy: torch.compile'd block called with 12 different layer-name strings: recompile limit warning, runs on
( cd /workspace/app && job h200-torch-compile-recompile-limit-8-layer-name-guard-ok 200 \
    "python3 /workspace/app/compile_train.py" \
    python3 /workspace/app/compile_train.py
) &
J="$J $!"

sleep 45; ts "running; GPU apps: $(gpu_apps)"
wait $J
ts "phase A done; GPU apps: $(gpu_apps)"
for p in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 $p 2>/dev/null; done

# ================================================================ phase B
ts "phase B"
J=""
# B1 visibility: SPMD offline inference with the external launcher, torchrun 2 ranks (TP 2) on a 1-GPU node
( job h200-vllm026-external-launcher-torchrun-tp2-on-1-gpu 110 \
    "torchrun --nproc-per-node 2 --master-port 29773 /workspace/app/tp_offline.py" \
    torchrun --nproc-per-node 2 --master-port 29773 /workspace/app/tp_offline.py
) &
J="$J $!"

# B2 healthy: TP 1 server in a container with --network none (only lo): "Failed to get the IP address" warning
( name=h200-vllm026-network-none-tp1-served-ok; M=/workspace/models/tiny-llama
  job $name 120 "vllm serve $M $TA --gpu-memory-utilization 0.08 --port 8000   (container --network none; client inside)" \
    unshare -n python3 $D/loup.py bash -c "$VS $M $TA --gpu-memory-utilization 0.08 --port 8000 & S=\$!; python3 $D/client.py 8000 100 $M small small > $Z/b2-client.out 2>&1; kill -INT \$S; wait \$S"
  cat $Z/b2-client.out
) &
J="$J $!"

# B3 versions: n-gram speculative decoding (prompt lookup) on a node image without numba
if [ $NUMBA_RC -ne 0 ]; then
( M=/workspace/models/tiny-llama
  job h200-vllm026-speculative-ngram-numba-missing 110 \
    "vllm serve $M $TA --gpu-memory-utilization 0.08 --port 8941 --speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 4, \"prompt_lookup_max\": 4}'" \
    $VS $M $TA --gpu-memory-utilization 0.08 --port 8941 --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'
) &
J="$J $!"
else
  echo "   numba present: B3 skipped"
fi
sleep 40; ts "running; GPU apps: $(gpu_apps)"
wait $J
ts "phase B done; GPU apps: $(gpu_apps)"
for p in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 $p 2>/dev/null; done
sleep 2

# ================================================================ phase C (alone: the holder takes all free memory)
# C1 resources: Llama-3-8B server at --gpu-memory-utilization 0.5 serving; another job then takes the free half of
#    the GPU; long prompts (7000 tokens, then prompt_logprobs) arrive
ts "phase C; GPU: $(nvidia-smi --query-gpu=memory.used --format=csv,noheader)"
( name=h200-vllm026-serving-other-job-takes-free-half-long-prompt; log=$OUT/logs/$name.log
  M=/workspace/models/Meta-Llama-3-8B-Instruct
  A="$M $TA --gpu-memory-utilization 0.5 --max-model-len 8192 --port 8951"
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ vllm serve $A" > $log
  timeout -s INT -k 10 160 $VS $A >> $log 2>&1 &
  s=$!
  rm -f $Z/holder.stop*
  python3 $D/client.py 8951 120 $M small "sh:python3 $D/holder.py 96 $Z/holder.stop 120 >> $log 2>&1 &" "sh:for i in \$(seq 60); do [ -e $Z/holder.stop.ready ] && break; sleep 0.5; done" \
      long:7000 plogprobs:7000 long:8000 > $Z/c1-client.out 2>&1
  touch $Z/holder.stop
  for i in $(seq 20); do kill -0 $s 2>/dev/null || break; sleep 1; done
  kill -INT $s 2>/dev/null; wait $s; r=$?
  cat $Z/c1-client.out
  fin $name $r
)
ts "phase C done; GPU apps: $(gpu_apps)"
for p in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 $p 2>/dev/null; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zp-logs.tar" logs && rm -r "$OUT/logs"
ts "end"
true
