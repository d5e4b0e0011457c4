#!/usr/bin/env bash
# Z83 capture run ZR: vLLM 0.26.0 / torch 2.11 faults made on purpose on the H200.
# Call (p00..p06 copied to /tmp/stage/ by earlier calls; p07 carried in this one):
#   timeout -k 10 560 bash .device/Z83/run_zr.sh 2>&1 | tee $OUT/run_zr.out
set -u
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/logs" /tmp/stage
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 4 "$OUT/logs/$1.log" | cut -c1-220 | sed 's/^/      /'; }
cp .device/stage/parts/p07 /tmp/stage/p07
ls -la /tmp/stage
cat /tmp/stage/p0[0-7] > /tmp/w.tar
echo "$(cut -d' ' -f1 .device/stage/parts/SHA256 2>/dev/null | head -1)"
sha256sum /tmp/w.tar
mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl 2>&1 | tail -n 3
[ -d /tmp/site/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
python3 $D/prep.py 2>&1 | tail -n 1
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
VS="python3 -m vllm.entrypoints.cli.main serve"
M=/workspace/models/tiny-llama
TA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.08"
srv() {  # srv NAME PORT CLIENTARGS -- extra serve args
  local name=$1 port=$2 cargs=$3; shift 3
  local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ vllm serve $M $TA --port $port $*" > $log
  timeout -s INT -k 10 300 $VS $M $TA --port $port "$@" >> $log 2>&1 &
  local p=$!
  python3 $D/cl.py $port 200 $cargs >> $log 2>&1
  sleep 3; kill -INT $p 2>/dev/null; wait $p; fin $name $?
}
J=""
# A none: healthy, max-model-len 256, a 600-token prompt gets a 400, server keeps serving
( srv h200-vllm026-serving-prompt-600-over-max-model-len-256-rejected-then-ok 8301 "ok long:600 ok long:200" --max-model-len 256 ) & J="$J $!"
# B resources: API server's open-file limit lowered to 20 (prlimit) while serving, then 48 clients at once
( srv h200-vllm026-serving-api-server-prlimit-nofile-20-burst-48-clients 8302 "ok nofile:20 burst:48 sleep:5 ok" ) & J="$J $!"
# C other: model config vocab_size 1024 but the client's tokenizer emits ids up to 1027 (skip-tokenizer-init, raw ids)
( srv h200-vllm026-serving-token-ids-1020-1027-vocab-1024 8303 "ok ids:1020:8 sleep:5 ok" ) & J="$J $!"
# D network: server --host 127.0.0.1; a client on another node (netns, veth 10.83.0.0/24) gets refused
( name=h200-vllm026-serve-host-127.0.0.1-client-on-other-node-refused; log=$OUT/logs/$name.log
  ip netns add z83n1; ip link add z83h type veth peer name z83c; ip link set z83c netns z83n1
  ip addr add 10.83.0.1/24 dev z83h; ip link set z83h up
  ip netns exec z83n1 ip addr add 10.83.0.2/24 dev z83c; ip netns exec z83n1 ip link set z83c up; ip netns exec z83n1 ip link set lo up
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "# node 0 (10.83.0.1): \$ vllm serve $M $TA --host 127.0.0.1 --port 8304" > $log
  timeout -s INT -k 10 300 $VS $M $TA --host 127.0.0.1 --port 8304 >> $log 2>&1 &
  p=$!
  python3 $D/cl.py 8304 200 > /tmp/z83d.local 2>&1
  echo "# node 1 (10.83.0.2): \$ curl-like client to http://10.83.0.1:8304" >> $log
  ip netns exec z83n1 python3 $D/cl.py 10.83.0.1:8304 20 ok >> $log 2>&1
  sleep 2; kill -INT $p; wait $p; fin $name $?; cat /tmp/z83d.local
  ip link del z83h; ip netns del z83n1 ) & J="$J $!"
# E torch resources: 6 GiB pinned staging buffer in a job whose memory cgroup has memory.max 3G
( name=h200-torch-pinned-host-buffer-6g-cgroup-memory-max-3g; CG=/sys/fs/cgroup/z83e; mkdir -p $CG; echo 3G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  echo "== $name"; echo "\$ python3 stage_shard.py   # container memory limit 3G" > $OUT/logs/$name.log
  timeout -k 10 200 bash -c "echo \$\$ > $CG/cgroup.procs && exec python3 $D/pinned.py" >> $OUT/logs/$name.log 2>&1
  fin $name $?; echo "   memory.events: $(tr '\n' ' ' < $CG/memory.events)"; rmdir $CG ) & J="$J $!"
wait $J
ts "all done"
tar -C $OUT -cf $OUT/logs.tar logs && rm -rf $OUT/logs
