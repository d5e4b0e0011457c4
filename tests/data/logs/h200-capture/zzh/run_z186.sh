#!/usr/bin/env bash
# Z186 capture run: real vLLM 0.26.0 failure set-ups made on purpose on the one-H200 node (one batch call, <= 520 s).
# Install (as run_zzd.sh): /tmp/stage/q00..q11 -> /tmp/w.tar (sha256 checked) -> pip --target /tmp/site.
# "Nodes" = network + UTS + mount namespaces joined by a veth (netz.py, from h200-capture/zzg), sharing the one GPU
# (NCCL_HOSTID per node, left out of the "# node" command lines). Client: zk.py (zzd/zk.py + chatsys/chatuu/big/ZK_VERBOSE).
# Call (repo root, .device/Z186 carried): timeout -k 10 560 bash .device/Z186/run_z186.sh 2>&1 | tee $OUT/run_z186.out
set -u
set -m
OUT=${OUT:-/tmp/z186-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z186
L=$OUT/logs
mkdir -p $Z $Z/act $L /tmp/stage /workspace/models /workspace/config
rm -f $Z/act/*
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-300}     # no job is launched after t+LATEST s
LIMIT=${LIMIT:-7}         # weight of the jobs running at once (a two-node job weighs 2)
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
pack() { local t=$OUT/.logs.tgz.$BASHPID; tar -C $OUT -czf $t logs 2>/dev/null && mv $t $OUT/logs.tgz; rm -f $t; }
fin() { echo "   == $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"
  grep -v -e '^frame #' -e '^\[rank' "$L/$1.log" | tail -n 5 | cut -c1-220 | sed 's/^/      /'; pack; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>/dev/null | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM (as run_zzd.sh)
if [ ! -d $SITE/vllm ]; then
  ls -la /tmp/stage
  cat /tmp/stage/q[0-9][0-9] > /tmp/w.tar
  echo "49b3b9f61fa53267aa232d717b75ae39cd70b180769a05f849db0d7faeb9d303  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  rm -f /tmp/wx/whl/ray-*.whl
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
python3 $D/prep.py
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" 2>&1 | tail -n 1
VS=${VS:-"python3 -m vllm.entrypoints.cli.main serve"}
M=/workspace/models/tiny-llama
TA="--load-format dummy --enforce-eager --gpu-memory-utilization 0.05"
KV="--kv-cache-memory-bytes 1G"
# a CUDA stubs directory as a Docker build stage leaves it (libcuda.so.1 -> the stub libcuda.so)
STUB=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so 2>/dev/null | head -n 1)
STUBD=/opt/cuda-build/lib64/stubs
mkdir -p $STUBD; [ -n "$STUB" ] && cp "$STUB" $STUBD/libcuda.so && ln -sf libcuda.so $STUBD/libcuda.so.1
echo "stub: ${STUB:-none}; LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
# mnt.sh DIR SIZE CMD...: a fresh tmpfs of SIZE on DIR (in the server's own mount namespace), df, then CMD
printf '#!/bin/sh\nmkdir -p "$1" && mount -t tmpfs -o size=$2 vol "$1" && df -h "$1" && d=$1 && shift 2 && exec "$@"\n' > $Z/mnt.sh
mkdir -p /var/log/vllm
# ---------------------------------------------------------------- slots
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() { local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (weight in use: $(used)); GPU: $(gpu_apps | cut -c1-150)"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"; }
# ---------------------------------------------------------------- one server (host namespace)
# sjob NAME PORT LIMIT MODEL "ARGS" "CLIENT ACTIONS" ["ENV"] ["WRAP"] ["CLIENT ENV"]
sjob() { local name=$1 port=$2 lim=$3 m=$4 a=$5 acts=$6 e=${7:-} w=${8:-} ce=${9:-} log=$L/$1.log
  echo "\$ ${e:+$e }vllm serve $m $a --port $port" >> $log
  $w env $e timeout -s INT -k 10 $lim $VS $m $a --port $port >> $log 2>&1 & local ps=$!
  local pc=0 i
  if [ -n "$acts" ]; then env ZK_MODEL=$m $ce python3 $D/zk.py $port $((lim - 25)) $acts >> $log 2>&1 & pc=$!; fi
  for i in $(seq $lim); do kill -0 $ps 2>/dev/null || break
    [ $pc != 0 ] && ! kill -0 $pc 2>/dev/null && { sleep ${LINGER:-3}; break; }; sleep 1; done
  kill -INT $ps 2>/dev/null
  for i in $(seq 20); do kill -0 $ps 2>/dev/null || break; sleep 1; done
  kill -KILL $ps 2>/dev/null; wait $ps; local r=$?
  [ $pc != 0 ] && { kill $pc 2>/dev/null; wait $pc; }
  fin $name $r; }
# ---------------------------------------------------------------- two "nodes"
mkns() { local h=$1 hosts=$2
  unshare -n -u -m sh -c "hostname $h; mount --bind $hosts /etc/hosts; exec sleep 600" > /dev/null 2>&1 &
  NODE=$!; disown $NODE; sleep 0.4; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
nsprocs() { local ns d p; ns=$(readlink /proc/$1/ns/net) || return
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$1" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && echo $p; done; }
killns() { local h; for h in "$@"; do kill -9 $(nsprocs $h) 2>/dev/null; kill -9 $h 2>/dev/null; done; }
# nodes2 K ADDR0 ADDR1: two nodes on one veth (eth1, /24), /etc/hosts naming both; sets NA NB A B
nodes2() { local k=$1; A=$2; B=$3
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\tgpu-node-0\n%s\tgpu-node-1\n' $A $B > $Z/hosts-$k
  mkns gpu-node-0 $Z/hosts-$k; NA=$NODE; mkns gpu-node-1 $Z/hosts-$k; NB=$NODE
  python3 $D/netz.py veth $NA $A eth1 $NB $B eth1 | sed 's/^/   /'; }
# vpair NAME LIMIT GRACE PORT "CLIENT" MODEL "ENV0" "ARGS0" "ENV1" "ARGS1": node 0 (API on PORT) first, node 1 3 s later;
#   both consoles into one log; the client (if any) runs on node 0. When one node's server ends, the other gets GRACE s.
vpair() { local name=$1 lim=$2 g=$3 port=$4 cl=$5 m=$6 e0=$7 a0=$8 e1=$9 a1=${10} log=$L/$1.log p0 p1 pc=0 i
  echo "# node 0 (gpu-node-0, eth1 $A): \$ $e0 vllm serve $m $a0" >> $log
  echo "# node 1 (gpu-node-1, eth1 $B): \$ $e1 vllm serve $m $a1" >> $log
  on $NA env NCCL_HOSTID=node0 $e0 timeout -s INT -k 10 $((lim + g + 20)) $VS $m $a0 >> $log 2>&1 & p0=$!
  sleep 3
  on $NB env NCCL_HOSTID=node1 $e1 timeout -s INT -k 10 $((lim + g + 20)) $VS $m $a1 >> $log 2>&1 & p1=$!
  if [ -n "$cl" ]; then nsenter -n -t $NA env ZK_MODEL=$m python3 $D/zk.py $port $((lim - 25)) $cl >> $log 2>&1 & pc=$!; fi
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break
    [ $pc != 0 ] && ! kill -0 $pc 2>/dev/null && { sleep 3; break; }; sleep 1; done
  if [ $pc = 0 ] || kill -0 $pc 2>/dev/null; then
    for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done; fi
  kill -INT $p0 2>/dev/null; sleep 2; kill -INT $p1 2>/dev/null
  for i in $(seq 20); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null; wait $p0; local r0=$?; wait $p1; local r1=$?
  [ $pc != 0 ] && { kill $pc 2>/dev/null; wait $pc; }
  fin $name "node0 $r0 node1 $r1"; }
MN="--nnodes 2 --master-port 29501 --distributed-timeout-seconds 60"
IF="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"

# ================================================================ two-node jobs
# ---- A communication: TP 2 over two nodes; both nodes' env file (copied from the DGX H100 cluster's job template) sets
#      NCCL_GRAPH_FILE=/etc/nccl/dgx-h100-8gpu-graph.xml, a file that exists only on those DGX images; NCCL_DEBUG=INFO
j_a() { local NA NB A B; nodes2 a 10.186.1.1 10.186.1.2
  local E="$IF NCCL_DEBUG=INFO NCCL_GRAPH_FILE=/etc/nccl/dgx-h100-8gpu-graph.xml"
  vpair h200-vllm026-2nodes-tp2-nccl-graph-file-from-dgx-template-missing 130 25 8601 "" $M \
    "$E VLLM_HOST_IP=$A" "$TA $KV --skip-tokenizer-init -tp 2 $MN --master-addr $A --node-rank 0 --port 8601" \
    "$E VLLM_HOST_IP=$B" "$TA $KV --skip-tokenizer-init -tp 2 $MN --master-addr $A --node-rank 1 --headless"
  killns $NA $NB; }
# ---- B visibility: PP 2 over two nodes; node 1's image keeps the build stage's LD_LIBRARY_PATH with the CUDA stubs
#      directory (libcuda.so.1 -> stubs/libcuda.so) first, so its processes load the stub instead of the driver's libcuda
j_b() { local NA NB A B; nodes2 b 10.186.2.1 10.186.2.2
  if [ -z "$STUB" ]; then echo "   == no CUDA stub libcuda on this machine: j_b skipped"; killns $NA $NB; return; fi
  local LDP="LD_LIBRARY_PATH=$STUBD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  { echo "# node 1: \$ ls -la $STUBD"; ls -la $STUBD; } >> $L/h200-vllm026-2nodes-pp2-node1-ld-library-path-cuda-stubs-first.log 2>&1
  vpair h200-vllm026-2nodes-pp2-node1-ld-library-path-cuda-stubs-first 130 25 8602 "" $M \
    "$IF VLLM_HOST_IP=$A" "$TA $KV --skip-tokenizer-init -pp 2 $MN --master-addr $A --node-rank 0 --port 8602" \
    "$IF $LDP VLLM_HOST_IP=$B" "$TA $KV --skip-tokenizer-init -pp 2 $MN --master-addr $A --node-rank 1 --headless"
  killns $NA $NB; }
# ---- C network: TP 2 over two nodes; node 1 was cloned from node 0's disk image and kept node 0's static cluster
#      address (both eth1 10.186.3.1/24): --master-addr 10.186.3.1 is node 1's own address on node 1
j_c() { local NA NB A B; nodes2 c 10.186.3.1 10.186.3.1
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n10.186.3.1\tgpu-node-0\n10.186.3.2\tgpu-node-1\n' > $Z/hosts-c
  vpair h200-vllm026-2nodes-tp2-node1-cloned-image-duplicate-eth1-address 120 30 8603 "" $M \
    "$IF VLLM_HOST_IP=$A" "$TA $KV --skip-tokenizer-init -tp 2 $MN --master-addr $A --node-rank 0 --port 8603" \
    "$IF VLLM_HOST_IP=$B" "$TA $KV --skip-tokenizer-init -tp 2 $MN --master-addr $A --node-rank 1 --headless"
  killns $NA $NB; }
# ---- D visibility: data parallel 3 over two nodes; the head runs 1 engine, node 1 (one GPU) was launched with the
#      2-GPU node template: --data-parallel-size-local 2 --data-parallel-start-rank 1
j_d() { local NA NB A B; nodes2 d 10.186.4.1 10.186.4.2
  local DP="$TA $KV --skip-tokenizer-init --data-parallel-size 3 --data-parallel-rpc-port 13345 --data-parallel-address 10.186.4.1"
  vpair h200-vllm026-2nodes-dp3-headless-node-data-parallel-size-local-2-on-1-gpu 130 25 8604 "" $M \
    "$IF VLLM_HOST_IP=$A" "$DP --data-parallel-size-local 1 --port 8604" \
    "$IF VLLM_HOST_IP=$B" "$DP --data-parallel-size-local 2 --data-parallel-start-rank 1 --headless"
  killns $NA $NB; }
# ---- E partitioning: TP 2 over two nodes of a Qwen2.5-0.5B-Instruct FP8 checkpoint with 128x128 weight blocks
#      (14 heads x 64 = 896 q rows: 448 per rank, not a whole number of 128-row blocks)
j_e() { local NA NB A B; nodes2 e 10.186.5.1 10.186.5.2
  local Q=/workspace/models/Qwen2.5-0.5B-Instruct-FP8-block
  { echo "\$ grep -A4 quantization_config $Q/config.json"; grep -A6 quantization_config $Q/config.json; } >> $L/h200-vllm026-2nodes-tp2-qwen2.5-0.5b-fp8-block-128-qkv-448-per-rank.log
  vpair h200-vllm026-2nodes-tp2-qwen2.5-0.5b-fp8-block-128-qkv-448-per-rank 130 25 8605 "" $Q \
    "$IF VLLM_HOST_IP=$A" "$TA $KV --skip-tokenizer-init --max-model-len 4096 -tp 2 $MN --master-addr $A --node-rank 0 --port 8605" \
    "$IF VLLM_HOST_IP=$B" "$TA $KV --skip-tokenizer-init --max-model-len 4096 -tp 2 $MN --master-addr $A --node-rank 1 --headless"
  killns $NA $NB; }
# ---- F healthy: TP 2 over two nodes with the AWS job env (NCCL_NET_PLUGIN=aws-ofi, plugin not installed: NCCL falls
#      back to its sockets), NCCL_IB_HCA naming absent HCAs, NCCL_DEBUG=INFO; four completions, one refused (400), SIGINT
j_f() { local NA NB A B; nodes2 f 10.186.6.1 10.186.6.2
  local E="$IF NCCL_DEBUG=INFO NCCL_NET_PLUGIN=aws-ofi NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_CROSS_NIC=0"
  vpair h200-vllm026-2nodes-tp2-nccl-net-plugin-aws-ofi-absent-socket-fallback-served-ok 190 20 8606 "cmpl cmpl cmpl:4000 cmpl:16 cmpl" $M \
    "$E VLLM_HOST_IP=$A" "$TA $KV --skip-tokenizer-init -tp 2 $MN --master-addr $A --node-rank 0 --port 8606" \
    "$E VLLM_HOST_IP=$B" "$TA $KV --skip-tokenizer-init -tp 2 $MN --master-addr $A --node-rank 1 --headless"
  killns $NA $NB; }

# ================================================================ one-node jobs
# ---- G resources (while serving): the image's logging config (VLLM_LOGGING_CONFIG_PATH) adds a DEBUG file handler on
#      /var/log/vllm, a 512 KiB volume; --enable-log-requests; 100 requests of 1500 token ids fill it while serving
j_g() { local n=h200-vllm026-serving-logging-config-file-handler-log-volume-512k-fills
  { echo "\$ cat /workspace/config/vllm-logging.json"; cat /workspace/config/vllm-logging.json; } >> $L/$n.log
  local acts="cmpl"; local i; for i in $(seq 100); do acts="$acts tok:1500"; done
  LINGER=5 sjob $n 8607 170 $M "$TA $KV --skip-tokenizer-init --enable-log-requests --enable-log-outputs" "$acts cmpl" \
    "VLLM_LOGGING_CONFIG_PATH=/workspace/config/vllm-logging.json" "unshare -m sh $Z/mnt.sh /var/log/vllm 512k"; }
# ---- H resources (while serving): 262k vocabulary, --max-num-batched-tokens 131072 (one prefill step for a 131k prompt);
#      an eval client asks prompt_logprobs for a 131000-token prompt: full-vocabulary logits for every prompt token
j_h() { sjob h200-vllm026-serving-prompt-logprobs-131k-prompt-vocab-262k-max-num-batched-tokens-131072 8608 160 \
  /workspace/models/llama-vocab262k-256k \
  "--load-format dummy --enforce-eager --skip-tokenizer-init --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 2G --max-model-len 140000 --max-num-batched-tokens 131072 --max-num-seqs 8" \
  "cmpl plp:2000 plp:131000 cmpl"; }
# ---- I versions: a checkpoint of a model family newer than the installed transformers (config.json model_type llama5)
j_i() { local n=h200-vllm026-model-type-llama5-newer-than-installed-transformers
  { echo "\$ head -4 /workspace/models/Llama-5-mini-preview/config.json"; head -4 /workspace/models/Llama-5-mini-preview/config.json; } >> $L/$n.log
  sjob $n 8609 120 /workspace/models/Llama-5-mini-preview "$TA $KV --skip-tokenizer-init" ""; }
# ---- J other (under requests): a chat fine-tune whose chat template (Gemma/Mistral style) rejects a system message
#      and non-alternating roles; the gateway's clients send a system prompt
j_j() { sjob h200-vllm026-serving-chat-template-rejects-system-role-clients-send-system-prompt 8610 150 \
  /workspace/models/tiny-chat-strict-template "$TA $KV" "chat chatsys chatuu chatsys chat chatsys"; }
# ---- K healthy: the client starts with the server and retries /health until ready (connection refused lines),
#      --enable-log-requests, max_num_seqs 4, one request refused (max_tokens beyond the context: 400), VLLM_USE_V1 set
j_k() { sjob h200-vllm026-client-health-retries-until-ready-one-400-served-ok 8611 150 /workspace/models/tiny-llama-tok \
  "$TA $KV --enable-log-requests --max-num-seqs 4" "text:w5_w17_w99 big:4000 text:w12_w907_w33 lp:5 cmpl chat" \
  "VLLM_USE_V1=1" "" "ZK_VERBOSE=1"; }

# ================================================================ schedule
JOBS=${JOBS:-"a b f i h e g c j d k"}
ts "start"
for j in $JOBS; do
  case $j in
    a|b|c|d|e|f) launch 2 $j j_$j ;;
    g|h|i|j|k) launch 1 $j j_$j ;;
  esac
  sleep 2
done
ts "all launched; GPU: $(gpu_apps)"
wait $J
ts "all done; GPU: $(gpu_apps)"
# stop anything of this run still on the GPU (by pid)
for i in $(seq 15); do [ -z "$(gpu_apps)" ] && break; sleep 1; done
for p in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null); do
  ts "leftover GPU process $p ($(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | cut -c1-80)): kill -9"; kill -9 $p; done
ls -la $L
pack; ls -la $OUT/logs.tgz
ts "end"
