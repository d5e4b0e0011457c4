#!/usr/bin/env bash
# Z147 capture run ZZA: NCCL-env, GPU-selection and Ray faults made on purpose on the H200 (one batch call).
# vLLM 0.26.0 (mp backend --nnodes/--headless, vllm.LLM and DP on Ray 2.52.1) and plain torch 2.11.
# "Nodes" are network + UTS + mount namespaces (own hostname, /etc/hosts, /tmp/ray) joined by a veth (eth1,
# 10.147.N.1 <-> 10.147.N.2), sharing the one GPU (NCCL_HOSTID per node; the "# node" command lines leave it out).
# Helpers and staging follow Z138's run_zz.sh (netq.py, zc.py, prep.py copied unchanged).
# Staging (earlier calls): q00..q07 (.device/Z137s/) and s0, s1 (.device/Z138s/) copied to /tmp/stage/; q08 carried now.
# Call: timeout -k 10 540 bash .device/Z147/run_zza.sh 2>&1 | tee $OUT/run_zza.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z147
L=$Z/out/logs
mkdir -p $Z $Z/act $L /tmp/stage /workspace/models
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-320}
LIMIT=${LIMIT:-5}
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
pack() { tar -C $Z/out -cf $OUT/logs.tar.part logs 2>/dev/null && mv $OUT/logs.tar.part $OUT/logs.tar; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$L/$1.log")  [t+$((SECONDS - T0))s]"; grep -v '^frame #' "$L/$1.log" | tail -n 6 | cut -c1-230 | sed 's/^/      /'; pack; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
# ---------------------------------------------------------------- install vLLM + Ray
if [ ! -d $SITE/vllm ]; then
  cp .device/Z137s/q08 /tmp/stage/q08
  ls -la /tmp/stage
  cat /tmp/stage/q0[0-8] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  W=/tmp/wx/whl/ray-2.52.1-cp312-cp312-manylinux2014_x86_64.whl
  cat /tmp/stage/s0 /tmp/stage/s1 > $W
  echo "843c0108ad72bb7fc6c23a22e29e6099546a5eaad3ad675c78a146d9080f6ec6  $W" | sha256sum -c || exit 3
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] && [ -d $SITE/ray ] || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
M=/workspace/models/tiny-llama
python3 $D/prep.py tiny
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.used,memory.total --format=csv,noheader
BUSID=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -n1 | tr -d ' ')
VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
cleanup() { killns "$@"; kill -9 "$@" 2>/dev/null; }
mknode() { local k=$1 hn=$2 lines=$3 extra=${4:-}
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%b' "$lines" > $Z/hosts-$k
  mkdir -p $Z/ray-$k
  unshare -n -u -m sh -c "hostname $hn && mount --bind $Z/hosts-$k /etc/hosts && mkdir -p /tmp/ray && mount --bind $Z/ray-$k /tmp/ray $extra && exec sleep 590" > $Z/mknode-$k.err 2>&1 &
  NODE=$!; sleep 0.5; }
nodepair() { local n=$1 extra=${2:-}; A=10.147.$n.1; B=10.147.$n.2
  local h="$A\tgpu-node-0\n$B\tgpu-node-1\n"
  mknode ${n}a gpu-node-0 "$h" "$extra"; NA=$NODE
  mknode ${n}b gpu-node-1 "$h" "$extra"; NB=$NODE
  python3 $D/netq.py veth $NA $A eth1 $NB $B eth1; }
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }
pairwait() { local p0=$1 p1=$2 lim=$3 g=${4:-25} i
  for i in $(seq $lim); do kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || break; sleep 1; done
  for i in $(seq $g); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -INT $p0 $p1 2>/dev/null
  for i in $(seq 15); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break; sleep 1; done
  kill -KILL $p0 $p1 2>/dev/null; }
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() { local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do
    if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: no free slot before t+${LATEST}s"; return; fi
    sleep 2; done
  if [ $((SECONDS - T0)) -gt $LATEST ]; then ts "== $n skipped: too late"; return; fi
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"; }
vstart() { local p=$1 e=$2 a=$3 log=$4 m=${5:-$M}
  nsenter -n -u -m -t $p env $e timeout -s INT -k 10 400 $VS $m $a >> $log 2>&1 & VP=$!; }
hdr() { echo "# node $1 ($(on $2 hostname), $3): \$ $4" >> $5; }
TP2="$TA $KV --tensor-parallel-size 2 --nnodes 2 --master-port 29501 --distributed-timeout-seconds 60"
# tp2pair N NAME ENV0 ENV1 PORT: vLLM TP 2 over two nodes, head first, headless 3 s later; each node's extra env
tp2pair() { local n=$1 name=$2 e0=$3 e1=$4 port=$5 log=$L/$2.log
  nodepair $n > $Z/pair.$n 2>&1; cat $Z/pair.$n; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1"
  local a0="$TP2 --master-addr $A --node-rank 0 --port $port" a1="$TP2 --master-addr $A --node-rank 1 --headless"
  hdr 0 $NA $A "$E $e0 VLLM_HOST_IP=$A vllm serve $M $a0" $log; hdr 1 $NB $B "$E $e1 VLLM_HOST_IP=$B vllm serve $M $a1" $log
  vstart $NA "NCCL_HOSTID=node0 $E $e0 VLLM_HOST_IP=$A" "$a0" $log; local p0=$VP; sleep 3
  vstart $NB "NCCL_HOSTID=node1 $E $e1 VLLM_HOST_IP=$B" "$a1" $log; local p1=$VP
  pairwait $p0 $p1 170 25; wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; cleanup $NA $NB; }

# ================================================================ vLLM
# ---- A1 communication: both nodes source an NCCL env file from the FSDP training cluster, which pins NCCL_ALGO=PAT
#      (tuned there for all-gather / reduce-scatter); vLLM's TP all-reduce has no PAT algorithm
j_a1() { local F="NCCL_ALGO=PAT NCCL_DEBUG=WARN"; tp2pair 1 h200-vllm026-2nodes-tp2-nccl-algo-pat-from-fsdp-cluster-env "$F" "$F" 8101; }
# ---- A2 communication: both nodes carry NCCL_COMM_BLOCKING=0 (non-blocking communicators, from a training job's
#      env that used it for communicator abort); vLLM's own NCCL wrapper expects blocking init
j_a2() { local F="NCCL_COMM_BLOCKING=0 NCCL_DEBUG=WARN"; tp2pair 2 h200-vllm026-2nodes-tp2-nccl-comm-blocking-0 "$F" "$F" 8102; }
# ---- A3 visibility: CUDA_VISIBLE_DEVICES set to the GPU's PCI bus id as nvidia-smi prints it (the inventory lists bus ids)
j_a3() { local name=h200-vllm026-cuda-visible-devices-pci-bus-id log=$L/h200-vllm026-cuda-visible-devices-pci-bus-id.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv" >> $log
  nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv >> $log 2>&1
  echo "\$ CUDA_VISIBLE_DEVICES=$BUSID vllm serve $M $TA $KV --port 8103" >> $log
  env CUDA_VISIBLE_DEVICES=$BUSID timeout -s INT -k 10 150 $VS $M $TA $KV --port 8103 >> $log 2>&1
  fin $name $?; }
# ---- R: a Ray 2.52 head on gpu-node-0 (1 GPU); three jobs one after the other:
#      R1 healthy: vllm.LLM (executor ray) after ray.init(runtime_env={"env_vars": ...})
#      R2 network: the same job from a notebook template with runtime_env={"pip": ["vllm==0.26.0", "flash-attn==2.8.3"]};
#         the cluster has no internet access
#      R3 visibility: vllm serve --data-parallel-size 2 --data-parallel-backend ray (a 2-GPU deployment's flags) on the 1-GPU cluster
j_r() { nodepair 3 > $Z/pair.3 2>&1; cat $Z/pair.3
  local R="--num-cpus 8 --object-store-memory 500000000 --disable-usage-stats" E="RAY_ADDRESS=$A:6379 VLLM_HOST_IP=$A" l
  local n1=h200-vllm026-ray-llm-runtime-env-env-vars-served-ok n2=h200-vllm026-ray-llm-runtime-env-pip-no-internet n3=h200-vllm026-ray-dp2-backend-ray-on-1-gpu-cluster
  l=$L/$n1.log; echo "== ray up + $n1  [t+$((SECONDS - T0))s]"
  hdr 0 $NA $A "ray start --head --node-ip-address $A --port 6379 --num-gpus 1 --include-dashboard false $R" $l
  on $NA env NCCL_HOSTID=node0 timeout 90 ray start --head --node-ip-address $A --port 6379 --num-gpus 1 --include-dashboard false $R >> $l 2>&1
  ts "ray up"
  for n in $n1 $n2; do l=$L/$n.log; [ $n = $n2 ] && echo "== $n  [t+$((SECONDS - T0))s]"
    echo "# node 0: \$ ray status" >> $l; on $NA env RAY_ADDRESS=$A:6379 timeout 40 ray status >> $l 2>&1
    local m=ok; [ $n = $n2 ] && m=pip
    echo "# node 0: \$ $E python3 rl.py $m" >> $l
    on $NA env NCCL_HOSTID=node0 $E timeout -s INT -k 10 170 python3 $D/rl.py $m >> $l 2>&1
    fin $n $?; done
  l=$L/$n3.log; echo "== $n3  [t+$((SECONDS - T0))s]"
  echo "# node 0: \$ ray status" >> $l; on $NA env RAY_ADDRESS=$A:6379 timeout 40 ray status >> $l 2>&1
  local a="$TA $KV --data-parallel-size 2 --data-parallel-backend ray --data-parallel-address $A --port 8104"
  echo "# node 0: \$ $E vllm serve $M $a" >> $l
  on $NA env NCCL_HOSTID=node0 $E timeout -s INT -k 10 130 $VS $M $a >> $l 2>&1
  fin $n3 $?
  on $NA timeout 30 ray stop --force > /dev/null 2>&1; cleanup $NA $NB; }

# ================================================================ plain torch 2.11
# torchpair N NAME MODE PORT: the env:// job (as a Slurm script launches it) on two nodes, NCCL over eth1, pg timeout 20 s
torchpair() { local n=$1 name=$2 mode=$3 port=$4 log=$L/$2.log
  nodepair $n > $Z/pair.$n 2>&1; cat $Z/pair.$n; echo "== $name  [t+$((SECONDS - T0))s]"
  local E="MASTER_ADDR=$A MASTER_PORT=$port WORLD_SIZE=2 NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=WARN TJ_BACKEND=nccl TJ_TIMEOUT=20 TJ_MODE=$mode"
  hdr 0 $NA $A "$E RANK=0 python3 tj.py" $log; hdr 1 $NB $B "$E RANK=1 python3 tj.py" $log
  on $NA env NCCL_HOSTID=node0 $E RANK=0 timeout -k 5 100 python3 $D/tj.py >> $log 2>&1 & local p0=$!
  on $NB env NCCL_HOSTID=node1 $E RANK=1 timeout -k 5 100 python3 $D/tj.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; cleanup $NA $NB; }
# ---- T1 communication: at step 3 only rank 0 calls dist.new_group (metrics group built under `if rank == 0:`)
j_t1() { torchpair 4 h200-2nodes-torch-nccl-new-group-called-on-rank0-only newgroup 29541; }
# ---- T2 communication: at step 3 both ranks dist.send() 512 MiB to the peer before dist.recv() (no batch_isend_irecv)
j_t2() { torchpair 5 h200-2nodes-torch-nccl-both-ranks-send-before-recv-512mib sendsend 29542; }
# ---- T3 communication: a Gloo job on one host whose env carries GLOO_DEVICE_TRANSPORT=TCP_TLS and its key/cert
#      variables from the secured cluster's profile
j_t3() { local name=h200-torch-gloo-device-transport-tcp-tls-copied-env log=$L/h200-torch-gloo-device-transport-tcp-tls-copied-env.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  local E="MASTER_ADDR=127.0.0.1 MASTER_PORT=29543 WORLD_SIZE=2 TJ_BACKEND=gloo TJ_TIMEOUT=20 GLOO_DEVICE_TRANSPORT=TCP_TLS GLOO_DEVICE_TRANSPORT_TCP_TLS_PKEY=/etc/gloo/tls/node.key GLOO_DEVICE_TRANSPORT_TCP_TLS_CERT=/etc/gloo/tls/node.crt GLOO_DEVICE_TRANSPORT_TCP_TLS_CA_FILE=/etc/gloo/tls/ca.crt"
  echo "\$ $E RANK=0 python3 tj.py & $E RANK=1 python3 tj.py" >> $log
  env $E RANK=0 timeout -k 5 60 python3 $D/tj.py >> $log 2>&1 & local p0=$!
  env $E RANK=1 timeout -k 5 60 python3 $D/tj.py >> $log 2>&1 & local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  fin $name "rank0 $r0 rank1 $r1"; }
j_torch() { j_t3; j_t1; j_t2; }

# ================================================================ schedule
JOBS=${JOBS:-"a1 a2 r torch a3"}
for j in $JOBS; do
  case $j in
    a1|a2) launch 2 $j j_$j ;;
    r|a3) launch 1 $j j_$j ;;
    torch|t1|t2|t3) launch 0 $j j_$j ;;
  esac
  sleep 1
done
ts "all launched; GPU apps: $(gpu_apps)"
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack; ls -la $L
