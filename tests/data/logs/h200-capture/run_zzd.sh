#!/usr/bin/env bash
# Z180 capture run ZZD: vLLM 0.26.0 engine features an operator configures for production, set wrong on purpose, on the H200:
# speculative decoding (EAGLE head of another target, ngram lookup bounds, a draft path pointing at the 70B model),
# LoRA (static adapter copied without weights), KV connectors (Mooncake not installed, ExampleConnector store on a small
# volume that fills while serving), VLLM_LOOPBACK_IP of another host with the mp executor; plus two healthy runs
# (ngram speculation served; FLEX_ATTENTION with cudagraph_mode FULL served).
# Helpers after Z161's run_zzc.sh (zk.py copied, "tok:N" added). Staging: q00..q07 copied to /tmp/stage/ by earlier calls;
# q08 carried now. Call: timeout -k 10 545 bash .device/Z180/run_zzd.sh 2>&1 | tee $OUT/run_zzd.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z180
L=$Z/out/logs
mkdir -p $Z $Z/act $L /tmp/stage /workspace/models /workspace/adapters /mnt/kv-store
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-250}
LIMIT=${LIMIT:-5}
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
pack() { tar -C $Z/out -cf $OUT/logs.tar.part logs 2>/dev/null && mv $OUT/logs.tar.part $OUT/logs.tar; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"; grep -v '^frame #' "$L/$1.log" | tail -n 6 | cut -c1-230 | sed 's/^/      /'; pack; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM
if [ ! -d $SITE/vllm ]; then
  [ -f .device/Z137s/q08 ] && cp .device/Z137s/q08 /tmp/stage/q08
  ls -la /tmp/stage
  cat /tmp/stage/q0[0-8] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  rm -f /tmp/wx/whl/ray-*.whl
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
[ -n "${NOPREP:-}" ] || python3 $D/prep.py
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
VS=${VS:-"python3 -m vllm.entrypoints.cli.main serve"}
M=/workspace/models/tiny-llama
TA="--load-format dummy --enforce-eager --gpu-memory-utilization 0.08 --kv-cache-memory-bytes 1G"
# kvns.sh SIZE CMD...: a fresh tmpfs of SIZE on /mnt/kv-store (the server's mount namespace), then CMD
printf '#!/bin/sh\nmount -t tmpfs -o size=$1 tmpfs /mnt/kv-store && df -h /mnt/kv-store && shift && exec "$@"\n' > $Z/kvns.sh
# gpu_clear: wait up to 20 s for this run's servers to leave the GPU, then SIGKILL (by pid) any of them still listed
gpu_clear() { local i p; for i in $(seq 20); do [ -z "$(gpu_apps)" ] && return; sleep 1; done
  for p in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do ts "leftover GPU process $p ($(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | cut -c1-80)): kill -9"; kill -9 $p; done; sleep 3; }
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() { local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"; }

# sjob NAME PORT LIMIT MODEL "ARGS" "CLIENT ACTIONS" [ENV] [WRAP]: one vllm serve, a client once healthy,
#   then SIGINT when the client is done (or the server exits by itself). WRAP: a command prefix (e.g. a mount namespace)
sjob() { local name=$1 port=$2 lim=$3 m=$4 a=$5 acts=$6 e=${7:-} w=${8:-} log=$L/$1.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ ${e:+$e }vllm serve $m $a --port $port" >> $log
  $w env $e timeout -s INT -k 10 $lim $VS $m $a --port $port >> $log 2>&1 & local ps=$!
  local pc=0
  if [ -n "$acts" ]; then env ZK_MODEL=$m python3 $D/zk.py $port $((lim - 20)) $acts >> $log 2>&1 & pc=$!; fi
  local i
  for i in $(seq $lim); do kill -0 $ps 2>/dev/null || break
    [ $pc != 0 ] && ! kill -0 $pc 2>/dev/null && { sleep ${LINGER:-3}; break; }; sleep 1; done
  kill -INT $ps 2>/dev/null
  for i in $(seq 20); do kill -0 $ps 2>/dev/null || break; sleep 1; done
  kill -KILL $ps 2>/dev/null; wait $ps; local r=$?
  [ $pc != 0 ] && { kill $pc 2>/dev/null; wait $pc; }
  fin $name $r; }

# ================================================================ phase 1 (up to 5 servers at once, small memory each)
# ---- A: EAGLE head published for Llama-3.1-8B-Instruct (hidden 4096) put on a Llama-3.2-1B-Instruct target (hidden 2048)
j_a() { sjob h200-vllm026-speculative-eagle-head-of-llama3.1-8b-on-llama3.2-1b-target 8501 170 /workspace/models/Llama-3.2-1B-Instruct \
  "--load-format dummy --enforce-eager --skip-tokenizer-init --gpu-memory-utilization 0.12 --kv-cache-memory-bytes 1G --max-model-len 4096 --speculative-config {\"method\":\"eagle\",\"model\":\"/workspace/models/EAGLE-LLaMA3.1-Instruct-8B\",\"num_speculative_tokens\":3}" \
  "cmpl cmpl"; }
# ---- B: static LoRA adapter whose directory was copied without adapter_model.safetensors (config + README only)
j_b() { local log=$L/h200-vllm026-lora-static-adapter-copied-without-safetensors.log
  echo "\$ ls -la /workspace/adapters/sql-lora" >> $log; ls -la /workspace/adapters/sql-lora >> $log 2>&1
  sjob h200-vllm026-lora-static-adapter-copied-without-safetensors 8502 150 $M \
  "$TA --skip-tokenizer-init --enable-lora --max-lora-rank 16 --lora-modules sql-lora=/workspace/adapters/sql-lora" "cmpl"; }
# ---- C: prefill node of a disaggregated deployment: MooncakeConnector kv_producer where mooncake is not installed
j_c() { local log=$L/h200-vllm026-kv-connector-mooncake-producer-not-installed.log
  echo "\$ python3 -m pip show mooncake-transfer-engine" >> $log; python3 -m pip show mooncake-transfer-engine >> $log 2>&1
  sjob h200-vllm026-kv-connector-mooncake-producer-not-installed 8503 150 $M \
  "$TA --skip-tokenizer-init --kv-transfer-config {\"kv_connector\":\"MooncakeConnector\",\"kv_role\":\"kv_producer\"}" ""; }
# ---- D: ExampleConnector (shared-storage KV) pointed at a 512 KiB volume; requests of 200 tokens fill it while serving
j_d() {
  local log=$L/h200-vllm026-kv-connector-example-shared-storage-volume-fills-while-serving.log
  echo "\$ mount -t tmpfs -o size=512k tmpfs /mnt/kv-store; df -h /mnt/kv-store   (in the server's mount namespace)" >> $log
  LINGER=12 sjob h200-vllm026-kv-connector-example-shared-storage-volume-fills-while-serving 8504 200 $M \
  "$TA --skip-tokenizer-init --kv-transfer-config {\"kv_connector\":\"ExampleConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"shared_storage_path\":\"/mnt/kv-store\"}}" \
  "cmpl tok:200 tok:200 tok:200 tok:200 tok:200 tok:200 sleep:3 cmpl" "" "unshare -m sh $Z/kvns.sh 512k"; }
# ---- E healthy: ngram speculative decoding (4 tokens, lookup 2..4); completions served
j_e() { sjob h200-vllm026-speculative-ngram-4-tokens-served-ok 8505 170 $M \
  "$TA --skip-tokenizer-init --speculative-config {\"method\":\"ngram\",\"num_speculative_tokens\":4,\"prompt_lookup_max\":4,\"prompt_lookup_min\":2}" \
  "cmpl:32 tok:300 cmpl:16 lp:5 cmpl"; }
# ---- F healthy (control for D): the same ExampleConnector on a 64 MiB volume; the same requests served
j_f() { local log=$L/h200-vllm026-kv-connector-example-shared-storage-64m-volume-served-ok.log
  echo "\$ mount -t tmpfs -o size=64m tmpfs /mnt/kv-store; df -h /mnt/kv-store   (in the server's mount namespace)" >> $log
  sjob h200-vllm026-kv-connector-example-shared-storage-64m-volume-served-ok 8506 200 $M \
  "$TA --skip-tokenizer-init --kv-transfer-config {\"kv_connector\":\"ExampleConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"shared_storage_path\":\"/mnt/kv-store\"}}" \
  "cmpl tok:200 tok:200 tok:200 tok:200 tok:200 tok:200 sleep:3 cmpl" "" "unshare -m sh $Z/kvns.sh 64m"; }
# ---- K: static LoRA adapter trained with DoRA (use_dora true in adapter_config.json)
j_k() { local log=$L/h200-vllm026-lora-static-adapter-use-dora.log
  echo "\$ ls -la /workspace/adapters/support-dora; grep -E 'use_dora|\"r\"' adapter_config.json" >> $log
  ls -la /workspace/adapters/support-dora >> $log 2>&1; grep -E 'use_dora|"r"' /workspace/adapters/support-dora/adapter_config.json >> $log 2>&1
  sjob h200-vllm026-lora-static-adapter-use-dora 8510 150 $M \
  "$TA --skip-tokenizer-init --enable-lora --max-lora-rank 16 --lora-modules support=/workspace/adapters/support-dora" "cmpl"; }
# ---- G: VLLM_LOOPBACK_IP set by the deployment to another pod's address, multiprocessing executor
j_g() { sjob h200-vllm026-mp-executor-vllm-loopback-ip-other-pod 8507 150 $M \
  "$TA --skip-tokenizer-init --distributed-executor-backend mp --distributed-timeout-seconds 30" "" "VLLM_LOOPBACK_IP=10.244.3.17"; }
# ---- H: ngram speculation with prompt_lookup_min 8 above prompt_lookup_max 3
j_h() { sjob h200-vllm026-speculative-ngram-prompt-lookup-min-8-max-3 8508 100 $M \
  "$TA --skip-tokenizer-init --speculative-config {\"method\":\"ngram\",\"num_speculative_tokens\":3,\"prompt_lookup_min\":8,\"prompt_lookup_max\":3}" ""; }
# ================================================================ phase 2 (alone on the GPU)
# ---- J: draft-model speculation whose draft path points at the 70B checkpoint (Llama-3.1-8B target, 0.9 of the GPU)
j_j() { sjob h200-vllm026-speculative-draft-path-llama3.1-70b-for-8b-target 8509 220 /workspace/models/Llama-3.1-8B-Instruct \
  "--load-format dummy --enforce-eager --skip-tokenizer-init --gpu-memory-utilization 0.9 --max-model-len 8192 --speculative-config {\"model\":\"/workspace/models/Llama-3.1-70B-Instruct\",\"num_speculative_tokens\":5}" \
  "cmpl"; }

# ================================================================ schedule
JOBS=${JOBS:-"h b c a d g e f k ; j"}
for j in $JOBS; do
  case $j in
    a|b|c|d|e|f|g|h|k) launch 1 $j j_$j ;;
    ";") ts "waiting for phase 1; GPU apps: $(gpu_apps)"; wait $J; J="" ;;
    j) sleep 3; gpu_clear; ts "phase 2 (alone on the GPU); GPU apps: $(gpu_apps)"; LATEST=100000 launch 5 j j_j ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack; ls -la $L
