#!/usr/bin/env bash
# Z100 capture run ZV: vLLM 0.26.0 / Ray 2.52.1 / torch 2.11 faults made on purpose on the H200 (one batch call).
# Staging (earlier calls): p00..p06, ray r0, r1 copied to /tmp/stage/; p07 is carried in this call.
# Batch 1: timeout -k 10 570 bash .device/Z100/run_zv.sh (the default JOBS, no PRIVSHM, and ar.py by a relative path); batch 2: PRIVSHM=1 JOBS="r2 r1 r3 t1" timeout -k 5 355 bash .device/Z100/run_zv.sh
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z100
mkdir -p $Z $Z/act "$OUT/logs" /tmp/stage /tmp/ray
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LATEST=${LATEST:-240}   # no job is started after t+LATEST s
LIMIT=5                 # vllm serve processes running at once (a Ray job has one)
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 5 "$OUT/logs/$1.log" | cut -c1-230 | sed 's/^/      /'; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
pack() { tar -C $OUT -cf $OUT/logs.tar logs; }
# ---------------------------------------------------------------- install vLLM + Ray
if [ ! -d $SITE/vllm ]; then
  [ -n "${FAKE:-}" ] || cp .device/stage/parts/p07 /tmp/stage/p07
  ls -la /tmp/stage
  cat /tmp/stage/p0[0-7] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  W=/tmp/wx/whl/ray-2.52.1-cp312-cp312-manylinux2014_x86_64.whl
  cat /tmp/stage/r0 /tmp/stage/r1 > $W
  echo "843c0108ad72bb7fc6c23a22e29e6099546a5eaad3ad675c78a146d9080f6ec6  $W" | sha256sum -c || exit 3
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] && [ -d $SITE/ray ] || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
M=/workspace/models/tiny-llama
mkdir -p $M /workspace/jobs
cat > $M/config.json <<'J'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
 "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024,
 "max_position_embeddings": 2048, "rms_norm_eps": 1e-05, "hidden_act": "silu", "torch_dtype": "bfloat16",
 "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": false}
J
cp $D/ar.py /workspace/jobs/
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
HN=$(hostname); echo "hostname $HN"; df -h /dev/shm | tail -n 1
VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
KV="--kv-cache-memory-bytes 1G"
NSX="nsenter -n -m -t"
killns() { local h ns d p; for h in "$@"; do ns=$(readlink /proc/$h/ns/net) || continue
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
    [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done; done; }
# nodepair N [IF_B] [STALE_B]: two "nodes" (network + mount namespaces: own /tmp/ray, own /etc/hosts mapping this
# host name to the node's address) on a veth 10.100.N.1 (eth1) <-> 10.100.N.2 (IF_B, default eth1); sets NA NB
nodepair() { local n=$1 ib=${2:-eth1} stale=${3:-} x
  for x in a b; do mkdir -p $Z/ray-$n$x; done
  printf '127.0.0.1\tlocalhost\n10.100.%s.1\t%s\n' $n "$HN" > $Z/hosts-${n}a
  printf '127.0.0.1\tlocalhost\n10.100.%s.2\t%s\n' $n "$HN" > $Z/hosts-${n}b
  # batch 2 (PRIVSHM=1): each node also gets its own /dev/shm, as separate machines have
  local shm=""; [ -n "${PRIVSHM:-}" ] && shm="&& mount -t tmpfs -o size=16g tmpfs /dev/shm"
  unshare -n -m sh -c "mount --bind $Z/ray-${n}a /tmp/ray && mount --bind $Z/hosts-${n}a /etc/hosts $shm && exec sleep 590" > /dev/null 2>&1 &
  NA=$!
  unshare -n -m sh -c "mount --bind $Z/ray-${n}b /tmp/ray && mount --bind $Z/hosts-${n}b /etc/hosts $shm && exec sleep 590" > /dev/null 2>&1 &
  NB=$!
  sleep 0.5
  python3 $D/netq.py veth $NA 10.100.$n.1 eth1 $NB 10.100.$n.2 $ib $stale; }
ROPT="--num-cpus 4 --object-store-memory 500000000 --disable-usage-stats"
# raypair N HEAD_GPUS NODE1_ENV: head on node 0, worker node on node 1 (after nodepair); prints both into $log
raypair() { local n=$1 g0=$2 e1=$3
  echo "# node 0 (10.100.$n.1): \$ ray start --head --node-ip-address 10.100.$n.1 --port 6379 --num-gpus $g0 --include-dashboard false $ROPT" >> $log
  $NSX $NA env NCCL_HOSTID=node0 timeout 90 ray start --head --node-ip-address 10.100.$n.1 --port 6379 --num-gpus $g0 --include-dashboard false $ROPT >> $log 2>&1
  echo "# node 1 (10.100.$n.2): \$ $e1 ray start --address 10.100.$n.1:6379 --node-ip-address 10.100.$n.2 --num-gpus 1 $ROPT" >> $log
  $NSX $NB env NCCL_HOSTID=node1 $e1 timeout 90 ray start --address 10.100.$n.1:6379 --node-ip-address 10.100.$n.2 --num-gpus 1 $ROPT >> $log 2>&1
  echo "# node 0: \$ ray status" >> $log
  $NSX $NA env RAY_ADDRESS=10.100.$n.1:6379 timeout 40 ray status >> $log 2>&1; }
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
# stopwait PID S: wait up to S s for PID to end by itself, then SIGINT, then SIGKILL
stopwait() { local p=$1 s=$2 i; for i in $(seq $s); do kill -0 $p 2>/dev/null || break; sleep 1; done
  kill -INT $p 2>/dev/null; for i in $(seq 15); do kill -0 $p 2>/dev/null || break; sleep 1; done; kill -KILL $p 2>/dev/null; }

# generic Ray job: rayjob N NAME PORT HEAD_GPUS NODE1_ENV DRIVER_ENV SERVE_ARGS CLIENT_ACTIONS LIMIT [IF_B]
rayjob() { local n=$1 name=$2 port=$3 g0=$4 e1=$5 ed=$6 sa=$7 ca=$8 lim=$9 ib=${10:-eth1}
  log=$OUT/logs/$name.log; : > $log
  nodepair $n $ib > $Z/pair.$n 2>&1; cat $Z/pair.$n
  printf '#!/bin/sh\nexec python3 %s/netq.py down %s %s\n' $D $NB $ib > $Z/down-$n.sh; chmod +x $Z/down-$n.sh
  echo "== $name  [t+$((SECONDS - T0))s]"
  raypair $n $g0 "$e1"
  ts "$name: ray up"
  echo "# node 0: \$ $ed RAY_ADDRESS=10.100.$n.1:6379 vllm serve $M $sa --port $port" >> $log
  $NSX $NA env $ed RAY_ADDRESS=10.100.$n.1:6379 timeout -s INT -k 10 $lim $VS $M $sa --port $port >> $log 2>&1 &
  local p=$!
  if [ -n "$ca" ]; then
    $NSX $NA env ZC_TO=60 python3 $D/zc.py $port $((lim - 30)) $ca >> $log 2>&1
    sleep 2; kill -INT $p 2>/dev/null
  fi
  stopwait $p $lim; wait $p; local rc=$?
  fin $name $rc
  killns $NA $NB; kill $NA $NB 2>/dev/null; }
RS="$TA $KV --distributed-executor-backend ray"
# ---- R1 healthy: Ray 2-node cluster (1 GPU each), vllm serve TP 2 on Ray, NCCL over eth1; 3 requests, SIGINT
j_r1() { rayjob 1 h200-vllm026-ray-2nodes-tp2-nccl-socket-ifname-eth1-served-ok 8101 1 "" "NCCL_SOCKET_IFNAME=eth1" \
  "$RS --tensor-parallel-size 2" "ok ok ok" 240; }
# ---- R2 network: same, serving; node 1's eth1 goes down (cable / switch port) between requests
j_r2() { rayjob 2 h200-vllm026-ray-2nodes-tp2-serving-node1-link-down 8102 1 "" "NCCL_SOCKET_IFNAME=eth1" \
  "$RS --tensor-parallel-size 2" "ok ok sh:$Z/down-2.sh sleep:2 ok waitdead:90 ok" 330; }
# ---- R3 communication: node 1's cluster NIC is named ens6 (other server model), node 0's eth1; NCCL_SOCKET_IFNAME=eth1
#      set only in the driver's shell: vLLM copies NCCL_* to the Ray workers on every node
j_r3() { rayjob 3 h200-vllm026-ray-2nodes-tp2-driver-nccl-socket-ifname-eth1-copied-to-node1-ens6 8103 1 "" "NCCL_SOCKET_IFNAME=eth1" \
  "$RS --tensor-parallel-size 2" "" 170 ens6; }
# ---- R4 visibility: GPU worker node's environment exports CUDA_VISIBLE_DEVICES=1 (a second-GPU slot of a 2-GPU
#      server template) on a 1-GPU machine; head has no GPU; vllm serve TP 1 on Ray
j_r4() { rayjob 4 h200-vllm026-ray-gpu-worker-node-cuda-visible-devices-1-tp1 8104 0 "CUDA_VISIBLE_DEVICES=1" "" \
  "$RS" "" 150; }
# ---- T1 communication (torch): 2-node torchrun NCCL smoke test; node 1's eth1 still carries an old address
#      10.99.0.7/24 (from before the re-addressing) listed before 10.100.5.2
j_t1() { local name=h200-2nodes-torchrun-nccl-node1-eth1-stale-first-address-10.99; local log=$OUT/logs/$name.log
  nodepair 5 eth1 10.99.0.7 > $Z/pair.5 2>&1; cat $Z/pair.5
  local E="NCCL_SOCKET_IFNAME=eth1 NCCL_DEBUG=INFO"
  local C="--nnodes 2 --nproc-per-node 1 --master-addr 10.100.5.1 --master-port 29500"
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "# node 1 (10.100.5.2): \$ $E torchrun $C --node-rank 1 ar.py"; echo "# node 0 (10.100.5.1): \$ $E torchrun $C --node-rank 0 ar.py"; } > $log
  ( cd /workspace/jobs && exec $NSX $NB env NCCL_HOSTID=node1 $E timeout -k 10 110 python3 -m torch.distributed.run $C --node-rank 1 /workspace/jobs/ar.py ) >> $log 2>&1 &
  local p1=$!
  ( cd /workspace/jobs && exec $NSX $NA env NCCL_HOSTID=node0 $E timeout -k 10 110 python3 -m torch.distributed.run $C --node-rank 0 /workspace/jobs/ar.py ) >> $log 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; stopwait $p1 30; wait $p1; local r1=$?
  fin $name "node0 $r0 node1 $r1"; killns $NA $NB; kill $NA $NB 2>/dev/null; }
# ---- V1 visibility: CUDA_MPS_PIPE_DIRECTORY points at a host directory left by an MPS control daemon that is no
#      longer running (the MPS daemon pod was removed; the pipes stayed)
j_mps() { local name=h200-vllm026-cuda-mps-pipe-directory-daemon-not-running; local log=$OUT/logs/$name.log
  local P=/run/nvidia-mps; mkdir -p $P /var/log/nvidia-mps; rm -f $P/control $P/control_privileged
  mkfifo $P/control $P/control_privileged; : > $P/control_lock
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "\$ ls -la $P"; ls -la $P; echo "\$ CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=/var/log/nvidia-mps vllm serve $M $TA $KV --port 8105"; } > $log
  CUDA_MPS_PIPE_DIRECTORY=$P CUDA_MPS_LOG_DIRECTORY=/var/log/nvidia-mps timeout -s INT -k 10 120 $VS $M $TA $KV --port 8105 >> $log 2>&1 &
  local p=$!
  python3 $D/zc.py 8105 100 ok >> $log 2>&1; sleep 2; kill -INT $p 2>/dev/null
  stopwait $p 20; wait $p; fin $name $?; rm -rf $P; }
# ---- V2 resources: torch profiler traces go to /mnt/profiles, a 1 MiB volume already full of earlier traces;
#      /start_profile, requests, /stop_profile while serving
j_prof() { local name=h200-vllm026-serving-torch-profiler-dir-volume-full; local log=$OUT/logs/$name.log
  local PC='{"profiler": "torch", "torch_profiler_dir": "/mnt/profiles"}'
  mkdir -p /mnt/profiles
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ df -h /mnt/profiles; vllm serve $M $TA $KV --profiler-config '$PC' --port 8106" > $log
  cat > $Z/prof.sh <<P
mount -t tmpfs -o size=1m tmpfs /mnt/profiles || exit 7
for i in 1 2 3 4; do dd if=/dev/urandom of=/mnt/profiles/trace-\$i.pt.trace.json.gz bs=64k count=8 2>/dev/null; done
df -h /mnt/profiles; ls -la /mnt/profiles
exec timeout -s INT -k 10 200 $VS $M $TA $KV --profiler-config '$PC' --port 8106
P
  unshare -m sh $Z/prof.sh >> $log 2>&1 &
  local p=$!
  python3 $D/zc.py 8106 150 ok post:/start_profile ok ok post:/stop_profile ok get:/health >> $log 2>&1
  sleep 2; kill -INT $p 2>/dev/null; stopwait $p 20; wait $p; fin $name $?; }
# ---- V3 visibility: the job step got no GPU allocated (Slurm exports CUDA_VISIBLE_DEVICES=NoDevFiles)
j_slurm() { local name=h200-vllm026-slurm-cuda-visible-devices-nodevfiles; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ CUDA_VISIBLE_DEVICES=NoDevFiles vllm serve $M $TA $KV --port 8107" > $log
  CUDA_VISIBLE_DEVICES=NoDevFiles timeout -s INT -k 10 120 $VS $M $TA $KV --port 8107 >> $log 2>&1
  fin $name $?; }
# ---- H2 healthy: bf16 checkpoint served with --dtype float16 (cast warning); 2 requests, SIGINT
j_fp16() { local name=h200-vllm026-bf16-model-dtype-float16-cast-served-ok; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ vllm serve $M $TA $KV --dtype float16 --port 8108" > $log
  timeout -s INT -k 10 180 $VS $M $TA $KV --dtype float16 --port 8108 >> $log 2>&1 &
  local p=$!
  python3 $D/zc.py 8108 150 ok ok >> $log 2>&1; sleep 2; kill -INT $p 2>/dev/null
  stopwait $p 20; wait $p; fin $name $?; }

JOBS=${JOBS:-"r2 r1 t1 slurm r3 mps r4 prof fp16"}
for j in $JOBS; do
  case $j in t1) launch 0 t1 j_t1 ;; slurm) launch 1 slurm j_slurm ;; *) launch 1 $j j_$j ;; esac
done
ts "all launched; GPU apps: $(gpu_apps)"
pack
wait $J
ts "all done; GPU apps: $(gpu_apps)"
pack && rm -rf $OUT/logs
ls -la $OUT
