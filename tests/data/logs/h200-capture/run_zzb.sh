#!/usr/bin/env bash
# Z153 capture run ZZB: resources / partitioning / network / versions faults made on purpose on the H200.
# vLLM 0.26.0 (vllm serve, --nnodes/--headless over two "nodes", vllm.LLM) and plain torch 2.11.
# "Nodes" are network + UTS + mount namespaces (own hostname and /etc/hosts) joined by a veth (eth1,
# 10.153.N.1 <-> 10.153.N.2), sharing the one GPU (NCCL_HOSTID per node; the "# node" command lines leave it out).
# Helpers and staging follow Z147's run_zza.sh / Z138's run_zz.sh (netq.py + `mtu`, zc.py copied).
# Staging (earlier calls): q00..q07 (.device/Z137s/) copied to /tmp/stage/; q08 carried now. No Ray.
# Call: timeout -k 10 550 bash .device/Z153/run_zzb.sh 2>&1 | tee $OUT/run_zzb.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z153
L=$Z/out/logs
mkdir -p $Z $Z/act $L /tmp/stage /workspace/models /workspace/jobs
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-330}
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
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
VS="python3 -m vllm.entrypoints.cli.main serve"
M=/workspace/models/tiny-llama
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
cleanup() { killns "$@"; kill -9 "$@" 2>/dev/null; }
mknode() { local k=$1 hn=$2 lines=$3
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%b' "$lines" > $Z/hosts-$k
  unshare -n -u -m sh -c "hostname $hn && mount --bind $Z/hosts-$k /etc/hosts && exec sleep 590" > $Z/mknode-$k.err 2>&1 &
  NODE=$!; sleep 0.5; }
# nodepair N [NODE1_HOSTS_LINES]: two nodes on a veth; node 1 may get its own /etc/hosts lines
nodepair() { local n=$1; A=10.153.$n.1; B=10.153.$n.2
  local h="$A\tgpu-node-0\n$B\tgpu-node-1\n"; local h1=${2:-$h}
  mknode ${n}a gpu-node-0 "$h"; NA=$NODE
  mknode ${n}b gpu-node-1 "$h1"; NB=$NODE
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
vstart() { local p=$1 e=$2 a=$3 log=$4 m=$5
  nsenter -n -u -m -t $p env $e timeout -s INT -k 10 400 $VS $m $a >> $log 2>&1 & VP=$!; }
hdr() { echo "# node $1 ($(on $2 hostname), $3): \$ $4" >> $5; }
# pairrun N NAME MODEL ARGS(both) ENV0 ENV1 PORT CLIENT [NODE1_HOSTS]: vLLM over two nodes, head first, headless 3 s later;
#   CLIENT=1: two completions against node 0's API once healthy, then both are stopped
pairrun() { local n=$1 name=$2 m=$3 par=$4 e0=$5 e1=$6 port=$7 cl=$8 h1=${9:-} log=$L/$2.log
  nodepair $n "$h1" > $Z/pair.$n 2>&1; cat $Z/pair.$n; echo "== $name  [t+$((SECONDS - T0))s]"
  [ -n "${PAIR_PRE:-}" ] && { eval "$PAIR_PRE" >> $log 2>&1; }
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1" ma=${MADDR:-$A}
  local a0="$TA $KV $par --nnodes 2 --master-addr $ma --master-port 29501 --distributed-timeout-seconds 60 --node-rank 0 --port $port"
  local a1="$TA $KV $par --nnodes 2 --master-addr $ma --master-port 29501 --distributed-timeout-seconds 60 --node-rank 1 --headless"
  hdr 0 $NA $A "$E $e0 VLLM_HOST_IP=$A vllm serve $m $a0" $log; hdr 1 $NB $B "$E $e1 VLLM_HOST_IP=$B vllm serve $m $a1" $log
  vstart $NA "NCCL_HOSTID=node0 $E $e0 VLLM_HOST_IP=$A" "$a0" $log $m; local p0=$VP; sleep 3
  vstart $NB "NCCL_HOSTID=node1 $E $e1 VLLM_HOST_IP=$B" "$a1" $log $m; local p1=$VP
  local pc=0 i
  if [ "$cl" = 1 ]; then on $NA env ZC_MODEL=$m python3 $D/zc.py $port 200 ok ok >> $log 2>&1 & pc=$!; fi
  for i in $(seq 230); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break
    [ $pc != 0 ] && ! kill -0 $pc 2>/dev/null && break; sleep 1; done
  [ $pc != 0 ] && kill -0 $pc 2>/dev/null && kill $pc 2>/dev/null
  if [ $pc = 0 ] || kill -0 $pc 2>/dev/null; then
    for i in $(seq 25); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done; fi
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null; wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }
PP2="--pipeline-parallel-size 2"
TP2="--tensor-parallel-size 2"

# ================================================================ vLLM
# ---- V3 partitioning: PP 2 over two nodes of a 1-layer model (a smoke-test / draft model), more stages than layers
j_v3() { pairrun 3 h200-vllm026-2nodes-pp2-one-layer-model /workspace/models/llama-1layer "$PP2" "" "" 8203 1; }
# ---- V4 partitioning: TP 2 over two nodes of a GPT-2 XL-shaped model (n_head 25)
j_v4() { pairrun 4 h200-vllm026-2nodes-tp2-gpt2-xl-25-heads /workspace/models/gpt2-xl-shape "$TP2" "" "" 8204 0; }
# ---- V5 network: TP 2 over two nodes with --master-addr gpu-node-0 (a name); node 1's /etc/hosts still maps
#      gpu-node-0 to the head's old address 10.153.5.9 (the head was re-addressed; node 1's hosts file was not updated)
j_v5() { MADDR=gpu-node-0 pairrun 5 h200-vllm026-2nodes-tp2-node1-etc-hosts-stale-master-name $M "$TP2" "" "" 8205 0 \
  "10.153.5.9\tgpu-node-0\n10.153.5.2\tgpu-node-1\n"; }
# ---- V8 healthy: TP 2 over two nodes; node 0's eth1 has MTU 9000 (jumbo, from its NIC profile), node 1's 1500;
#      NCCL_DEBUG=INFO; two completions
j_v8() { PAIR_PRE='python3 $D/netq.py mtu $NA eth1 9000; echo "# node 0 (gpu-node-0): $(python3 $D/netq.py showmtu $NA eth1); node 1 (gpu-node-1): $(python3 $D/netq.py showmtu $NB eth1)"' \
  pairrun 8 h200-vllm026-2nodes-tp2-node0-mtu-9000-node1-mtu-1500-served-ok $M "$TP2" "NCCL_DEBUG=INFO" "NCCL_DEBUG=INFO" 8208 1; }
# ---- V6 versions: PYTHONPATH=/opt/ml/pinned:/tmp/site where a pinned-requirements dir holds tokenizers 0.19.1
j_v6() { local name=h200-vllm026-pythonpath-pinned-dir-tokenizers-0.19.1-first log=$L/h200-vllm026-pythonpath-pinned-dir-tokenizers-0.19.1-first.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  python3 -m pip install -q --no-index --no-deps --no-compile --target /opt/ml/pinned $D/tokenizers-0.19.1-*.whl > $Z/pin.err 2>&1 || cat $Z/pin.err
  echo "\$ ls /opt/ml/pinned" >> $log; ls /opt/ml/pinned >> $log
  echo "\$ PYTHONPATH=/opt/ml/pinned:$SITE vllm serve $M $TA $KV --port 8206" >> $log
  env PYTHONPATH=/opt/ml/pinned:$SITE timeout -s INT -k 10 150 $VS $M $TA $KV --port 8206 >> $log 2>&1
  fin $name $?; }
# ---- V7 versions: vllm.LLM batch job in a fresh service venv (python -m venv, no system site packages) into which
#      vLLM and its small deps were installed --no-deps (a .pth to the staged site dir); torch was never installed there
j_v7() { local name=h200-vllm026-llm-service-venv-without-torch log=$L/h200-vllm026-llm-service-venv-without-torch.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  local V=/opt/llm-svc/venv
  env -u PYTHONPATH python3 -m venv --without-pip $V > $Z/venv.err 2>&1 || cat $Z/venv.err
  local sp=$(ls -d $V/lib/python3*/site-packages | head -n1); echo "$SITE" > $sp/vllm-deps.pth
  echo "\$ $V/bin/python llm.py gen   # $(cat $V/pyvenv.cfg | tr '\n' ' ')" >> $log
  env -u PYTHONPATH timeout -s INT -k 10 120 $V/bin/python $D/llm.py gen >> $log 2>&1
  fin $name $?; }
# ---- V2 resources: vllm.LLM(max_model_len=8192) of a 32k fine-tune whose config.json also carries "max_sequence_length": 2048
j_v2() { local name=h200-vllm026-llm-max-model-len-8192-config-max-sequence-length-2048 log=$L/h200-vllm026-llm-max-model-len-8192-config-max-sequence-length-2048.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ grep -E 'max_position|max_sequence' /workspace/models/llama-32k-ft/config.json" >> $log
  grep -E 'max_position|max_sequence' /workspace/models/llama-32k-ft/config.json >> $log
  echo "\$ python3 llm.py maxlen" >> $log
  timeout -s INT -k 10 150 python3 $D/llm.py maxlen >> $log 2>&1
  fin $name $?; }
# ---- V1 resources: another job's process holds 122 GiB of the GPU; vllm serve with --kv-cache-memory-bytes 24G
#      (the KV budget of the dedicated-GPU deployment) and --gpu-memory-utilization 0.08
j_v1() { local name=h200-vllm026-kv-cache-memory-bytes-24g-other-process-holds-122gib log=$L/h200-vllm026-kv-cache-memory-bytes-24g-other-process-holds-122gib.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ python3 holder.py 122 300 &   # another team's job" >> $log
  python3 $D/holder.py 122 300 >> $log 2>&1 & local ph=$!
  local i; for i in $(seq 40); do grep -q holding $log && break; sleep 1; done
  echo "\$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv" >> $log
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv >> $log 2>&1
  echo "\$ vllm serve $M --load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08 --kv-cache-memory-bytes 24G --port 8201" >> $log
  timeout -s INT -k 10 200 $VS $M --load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08 --kv-cache-memory-bytes 24G --port 8201 > $Z/v1.serve 2>&1
  local r=$?; cat $Z/v1.serve >> $log; kill -9 $ph 2>/dev/null; wait $ph 2>/dev/null
  fin $name $r; }

# ================================================================ plain torch 2.11
# torchpair N NAME MODE PORT ENV0 ENV1: the env:// job (as a Slurm script launches it) on two nodes, NCCL over eth1
torchpair() { local n=$1 name=$2 port=$3 e0=$4 e1=$5 log=$L/$2.log
  nodepair $n > $Z/pair.$n 2>&1; cat $Z/pair.$n; echo "== $name  [t+$((SECONDS - T0))s]"
  [ -n "${PAIR_PRE:-}" ] && { eval "$PAIR_PRE" >> $log 2>&1; }
  local E="MASTER_PORT=$port WORLD_SIZE=2 NCCL_SOCKET_IFNAME=eth1 TJ_BACKEND=nccl TJ_TIMEOUT=30"
  hdr 0 $NA $A "$E $e0 RANK=0 python3 train.py" $log; hdr 1 $NB $B "$E $e1 RANK=1 python3 train.py" $log
  on $NA env NCCL_HOSTID=node0 $E $e0 RANK=0 timeout -k 5 100 python3 /workspace/jobs/train.py >> $log 2>&1 & local p0=$!
  on $NB env NCCL_HOSTID=node1 $E $e1 RANK=1 timeout -k 5 100 python3 /workspace/jobs/train.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }
# ---- T1 network: node 1's job env still has MASTER_ADDR=localhost (from the single-node version of the job script)
j_t1() { torchpair 11 h200-2nodes-torch-nccl-node1-master-addr-localhost 29611 "MASTER_ADDR=10.153.11.1 NCCL_DEBUG=WARN" "MASTER_ADDR=localhost NCCL_DEBUG=WARN"; }
# ---- T3 healthy: node 0 eth1 MTU 9000, node 1 1500, NCCL_DEBUG=INFO, 256 MiB all-reduces
j_t3() { PAIR_PRE='python3 $D/netq.py mtu $NA eth1 9000; echo "# node 0 (gpu-node-0): $(python3 $D/netq.py showmtu $NA eth1); node 1 (gpu-node-1): $(python3 $D/netq.py showmtu $NB eth1)"' \
  torchpair 13 h200-2nodes-torch-nccl-node0-mtu-9000-node1-mtu-1500-info-ok 29613 "MASTER_ADDR=10.153.13.1 NCCL_DEBUG=INFO TJ_MB=256" "MASTER_ADDR=10.153.13.1 NCCL_DEBUG=INFO TJ_MB=256"; }
# ---- T2 versions: torchrun launched as `python3 -m torch.distributed.run` from inside an (unbuilt) PyTorch source checkout
j_t2() { local name=h200-torchrun-launched-from-pytorch-source-checkout log=$L/h200-torchrun-launched-from-pytorch-source-checkout.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  local S=/opt/src/pytorch TD=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
  mkdir -p $S && python3 - "$TD" "$S/torch" <<'PY'
import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2], dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("*.so", "*.so.*", "lib", "bin", "include", "share", "__pycache__", "test"))
PY
  echo "\$ cd $S && ls && python3 -m torch.distributed.run --nproc-per-node 2 /workspace/jobs/train.py" >> $log
  (cd $S && ls >> $log && env MASTER_ADDR=127.0.0.1 timeout -k 5 60 python3 -m torch.distributed.run --nproc-per-node 2 /workspace/jobs/train.py >> $log 2>&1)
  fin $name $?; }
j_torch() { j_t2; j_t1; j_t3; }

# ================================================================ schedule
JOBS=${JOBS:-"v8 v3 v6 torch v7 v2 v4 v5 ; v1"}
for j in $JOBS; do
  case $j in
    v3|v4|v5|v8) launch 2 $j j_$j ;;
    v2|v6|v7) launch 1 $j j_$j ;;
    torch|t1|t2|t3) launch 0 $j j_$j ;;
    ";") ts "waiting for phase 1; GPU apps: $(gpu_apps)"; wait $J; J="" ;;
    v1) ts "phase 2 (alone on the GPU); GPU apps: $(gpu_apps)"; launch 5 v1 j_v1 ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack; ls -la $L
