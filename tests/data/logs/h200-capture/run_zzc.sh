#!/usr/bin/env bash
# Z161 capture run ZZC: faults after start-up, GPU selection, and model files/settings an operator got wrong, on the H200.
# vLLM 0.26.0 (vllm serve, vllm.LLM, data parallel over two "nodes") and plain torch 2.11 (NCCL, two "nodes").
# "Nodes" are network + UTS + mount namespaces (own hostname and /etc/hosts) joined by a veth (eth1, 10.161.N.1 <-> .2),
# sharing the one GPU (NCCL_HOSTID per node; the "# node" command lines leave it out).
# Helpers after Z153's run_zzb.sh (netq.py copied). Staging: q00..q07 copied to /tmp/stage/ by earlier calls; q08 carried now.
# Call: timeout -k 10 555 bash .device/Z161/run_zzc.sh 2>&1 | tee $OUT/run_zzc.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z161
L=$Z/out/logs
mkdir -p $Z $Z/act $L /tmp/stage /workspace/models /workspace/jobs
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-220}
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
python3 $D/prep.py
cp $D/tj.py /workspace/jobs/train.py
cp $D/llm.py /workspace/jobs/batch.py
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
VS="python3 -m vllm.entrypoints.cli.main serve"
M=/workspace/models/tiny-llama
TA="--load-format dummy --enforce-eager --gpu-memory-utilization 0.08 --kv-cache-memory-bytes 1G"
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
cleanup() { killns "$@"; kill -9 "$@" 2>/dev/null; }
mknode() { local k=$1 hn=$2 lines=$3
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%b' "$lines" > $Z/hosts-$k
  unshare -n -u -m sh -c "hostname $hn && mount --bind $Z/hosts-$k /etc/hosts && exec sleep 590" > $Z/mknode-$k.err 2>&1 &
  NODE=$!; sleep 0.5; }
nodepair() { local n=$1; A=10.161.$n.1; B=10.161.$n.2
  local h="$A\tgpu-node-0\n$B\tgpu-node-1\n"
  mknode ${n}a gpu-node-0 "$h"; NA=$NODE
  mknode ${n}b gpu-node-1 "$h"; NB=$NODE
  python3 $D/netq.py veth $NA $A eth1 $NB $B eth1; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() { local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"; }
hdr() { echo "# node $1 ($(on $2 hostname), $3): \$ $4" >> $5; }

# sjob NAME PORT LIMIT MODEL "ARGS" "CLIENT ACTIONS" [ENV]: one vllm serve on this node, a client once healthy,
#   then SIGINT when the client is done (or the server exits by itself)
sjob() { local name=$1 port=$2 lim=$3 m=$4 a=$5 acts=$6 e=${7:-} log=$L/$1.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ ${e:+$e }vllm serve $m $a --port $port" >> $log
  env $e timeout -s INT -k 10 $lim $VS $m $a --port $port >> $log 2>&1 & local ps=$!
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

# ================================================================ vLLM
# ---- D other: an FP8 checkpoint (quantization_config quant_method fp8 in config.json) swapped into a deployment whose
#      template still passes --quantization awq (written for the previous AWQ model)
j_d() { sjob h200-vllm026-fp8-checkpoint-deployment-template-quantization-awq 8401 120 /workspace/models/tiny-fp8 \
  "$TA --skip-tokenizer-init --quantization awq" ""; }
# ---- B other: chat fine-tune whose tokenizer_config.json chat_template was hand-edited and lost the closing "%}" of
#      its last tag; completions first, then chat requests
j_b() { sjob h200-vllm026-tokenizer-config-chat-template-jinja-unclosed-tag 8402 200 /workspace/models/tiny-chat-ft \
  "$TA" "text:w5_w17_w99 chat chat cmpl"; }
# ---- C other: generation_config.json of a fine-tune has "top_p": 0.0 (meant as "off") with temperature 0.7;
#      requests that do not set top_p take the model's default
j_c() { sjob h200-vllm026-generation-config-top-p-0 8403 200 /workspace/models/tiny-gen-topp0 \
  "$TA --skip-tokenizer-init" "cmpl cmplnomax cmpl:16"; }
# ---- H healthy: generation_config.json with the model creator's sampling defaults (vLLM overrides its defaults);
#      one client asks for logprobs 50 (above --max-logprobs 20) and is refused; others are served
j_h() { sjob h200-vllm026-generation-config-sampling-defaults-logprobs-50-rejected-served-ok 8404 200 /workspace/models/tiny-gen-defaults \
  "$TA --skip-tokenizer-init" "cmpl cmplnomax lp:50 cmpl lp:5"; }
# ---- F other: vllm.LLM batch job on a model dir whose tokenizer files were copied from another model (4096 words;
#      the model's embedding has 1024 rows)
j_f() { local name=h200-vllm026-llm-tokenizer-from-other-model-4096-words-vocab-1024 log=$L/h200-vllm026-llm-tokenizer-from-other-model-4096-words-vocab-1024.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ python3 batch.py /workspace/models/tiny-llama-tok-from-other" >> $log
  timeout -s INT -k 10 170 python3 /workspace/jobs/batch.py /workspace/models/tiny-llama-tok-from-other >> $log 2>&1
  fin $name $?; }
# ---- E other: data parallel 2 over two nodes (head + headless engine node, right flags); six completions served,
#      then node 1 dies (every process in its namespace SIGKILLed, as a crashed/preempted node), then more completions
j_e() { local name=h200-vllm026-2nodes-dp2-headless-node-killed-mid-serving log=$L/h200-vllm026-2nodes-dp2-headless-node-killed-mid-serving.log
  nodepair 5 > $Z/pair.5 2>&1; cat $Z/pair.5; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local DP="$TA --skip-tokenizer-init --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address $A --data-parallel-rpc-port 13345"
  hdr 0 $NA $A "$E VLLM_HOST_IP=$A vllm serve $M $DP --port 8405" $log
  hdr 1 $NB $B "$E VLLM_HOST_IP=$B vllm serve $M $DP --data-parallel-start-rank 1 --headless" $log
  nsenter -n -u -m -t $NA env NCCL_HOSTID=node0 $E VLLM_HOST_IP=$A timeout -s INT -k 10 300 $VS $M $DP --port 8405 >> $log 2>&1 & local p0=$!
  sleep 8
  nsenter -n -u -m -t $NB env NCCL_HOSTID=node1 $E VLLM_HOST_IP=$B timeout -s INT -k 10 300 $VS $M $DP --data-parallel-start-rank 1 --headless >> $log 2>&1 & local p1=$!
  rm -f $Z/e.ready $Z/e.killed
  on $NA env ZK_MODEL=$M ZK_TIMEOUT=90 python3 $D/zk.py 8405 200 cmpl cmpl cmpl cmpl cmpl cmpl touch:$Z/e.ready waitfile:$Z/e.killed \
     sleep:2 cmpl cmpl cmpl cmpl >> $log 2>&1 & local pc=$!
  local i
  for i in $(seq 230); do [ -e $Z/e.ready ] && break; kill -0 $p0 2>/dev/null || break; kill -0 $pc 2>/dev/null || break; sleep 1; done
  if [ -e $Z/e.ready ]; then ts "E: node 1 killed (all processes in its namespace)"; killns $NB; touch $Z/e.killed
    for i in $(seq 75); do kill -0 $p0 2>/dev/null || break; sleep 1; done; fi
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 $pc 2>/dev/null; wait $p0; local r0=$?; wait $p1; local r1=$?; wait $pc
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }
# ---- A resources: alone on the GPU; a 262k-vocab model with 64k context served at --gpu-memory-utilization 0.9,
#      --max-num-batched-tokens 65536; two short requests, then one 60,000-token prompt with prompt_logprobs 1
j_a() { LINGER=45 sjob h200-vllm026-serving-prompt-logprobs-60k-token-prompt-vocab-262k-oom 8406 260 /workspace/models/llama-vocab262k-64k \
  "--load-format dummy --enforce-eager --skip-tokenizer-init --gpu-memory-utilization 0.9 --max-model-len 65536 --max-num-batched-tokens 65536 --max-num-seqs 16" \
  "cmpl cmpl plp:60000 cmpl"; }

# ================================================================ plain torch 2.11
# torchpair N NAME PORT ENV0 ENV1: the env:// job (as a Slurm script launches it) on two nodes, NCCL over eth1
torchpair() { local n=$1 name=$2 port=$3 e0=$4 e1=$5 log=$L/$2.log
  nodepair $n > $Z/pair.$n 2>&1; cat $Z/pair.$n; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="MASTER_ADDR=$A MASTER_PORT=$port WORLD_SIZE=2 NCCL_SOCKET_IFNAME=eth1 TJ_TIMEOUT=20"
  hdr 0 $NA $A "$E $e0 RANK=0 LOCAL_RANK=0 python3 train.py" $log; hdr 1 $NB $B "$E $e1 RANK=1 LOCAL_RANK=0 python3 train.py" $log
  on $NA env NCCL_HOSTID=node0 $E $e0 RANK=0 LOCAL_RANK=0 timeout -k 5 100 python3 /workspace/jobs/train.py >> $log 2>&1 & local p0=$!
  on $NB env NCCL_HOSTID=node1 $E $e1 RANK=1 LOCAL_RANK=0 timeout -k 5 100 python3 /workspace/jobs/train.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }
# ---- T1 visibility: node 1's job env carries CUDA_VISIBLE_DEVICES=<a GPU UUID of another node> (copied with the job env
#      file); node 0 has CUDA_VISIBLE_DEVICES=0
j_t1() { torchpair 11 h200-2nodes-torch-nccl-node1-cuda-visible-devices-uuid-from-other-node 29711 \
  "CUDA_VISIBLE_DEVICES=0 NCCL_DEBUG=WARN" "CUDA_VISIBLE_DEVICES=GPU-8f3e2b71-5c0d-4a9e-b2f6-1d7c9a4e3b50 NCCL_DEBUG=WARN"; }
# ---- T2 communication: MoE-style all_to_all_single dispatch from step 2; rank 1 reuses the previous step's receive
#      splits from step 3 (stale cache), so the ranks' split sizes disagree
j_t2() { torchpair 12 h200-2nodes-torch-nccl-moe-all-to-all-stale-recv-splits-pg-timeout-20s 29712 \
  "TJ_MODE=a2a NCCL_DEBUG=WARN" "TJ_MODE=a2a NCCL_DEBUG=WARN"; }
j_torch() { j_t1; j_t2; }

# ================================================================ schedule
JOBS=${JOBS:-"d e b c torch h f ; a"}
for j in $JOBS; do
  case $j in
    e) launch 2 $j j_$j ;;
    b|c|d|f|h) launch 1 $j j_$j ;;
    torch|t1|t2) launch 0 $j j_$j ;;
    ";") ts "waiting for phase 1; GPU apps: $(gpu_apps)"; wait $J; J="" ;;
    a) sleep 3; ts "phase 2 (alone on the GPU); GPU apps: $(gpu_apps)"; LATEST=100000 launch 5 a j_a ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack; ls -la $L
