#!/usr/bin/env bash
# Capture run T (session 7, collector Z23): a seventeenth blind batch, real `vllm serve`
# (vLLM 0.26.0) two-"node" jobs as in run_p.sh..run_s.sh (node 0 + a --headless node 1 on the one
# GPU, one shared log, NCCL_HOSTID per node) and torch-only NCCL jobs (torchrun, 2 ranks on the one
# GPU, each rank given its own NCCL_HOSTID so that NCCL treats them as two hosts). The wheel is
# staged as 52 MiB chunks joined into /tmp/part0 (part1..4 empty), as in run_q.sh..run_s.sh.
# Every vLLM node uses --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that the
# servers starting together do not count each other's memory.
# T_PART=1 (installs first), in parallel:
#   - TP 2 over 2 nodes, NCCL_COMM_ID=10.254.254.254:29850 (another machine's address) on both
#   - TP 2 over 2 nodes, NCCL_ALGO=NVLS (NVLink SHARP) on a node without NVLink/NVSwitch
#     (NCCL_NVLS_ENABLE=0 kept, as on every run here)
#   - TP 2 over 2 nodes, NCCL_SOCKET_FAMILY=AF_INET6, NCCL_DEBUG=INFO
#   - TP 1 under `ulimit -v 32G` (a virtual-memory limit from a batch scheduler)
#   - torchrun x2, NCCL, TORCH_NCCL_BLOCKING_WAIT=1 with a 10 s process-group timeout; rank 1
#     stalls 45 s before its second all_reduce
#   - torchrun x2, NCCL, NCCL_SOCKET_IFNAME=^lo,docker,eth (exclusions that leave no interface)
#   - torchrun x2, NCCL, NCCL_COMM_ID=10.254.254.254:29860
# T_PART=2 (same warm machine, only if the budget allows), in parallel:
#   - TP 2 over 2 nodes, NCCL_SOCKET_IFNAME=^lo,docker,eth
#   - 2 nodes, node 0 `-tp 2`, node 1 `-tp 2 -pp 2` (mismatched parallel sizes between nodes)
#   - torchrun x2, NCCL, NCCL_PROTO=LL129 (a typo), NCCL_DEBUG=WARN
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
T_PART=${T_PART:-1}
if [ "$T_PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

pair() {  # as in run_q.sh .. run_s.sh; node 1's extra args in $N1EXTRA
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* ${N1EXTRA:-} --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" ${N1EXTRA:-} \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
export NCCL_NVLS_ENABLE=0

# the torch-only job: 2 ranks on cuda:0, each rank its own NCCL_HOSTID (two "hosts")
cat > /tmp/t_job.py <<'PY'
import datetime, os, time
import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
os.environ["NCCL_HOSTID"] = f"node{rank}"
torch.cuda.set_device(0)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "600")))
dist.init_process_group("nccl", timeout=timeout)
print(f"[rank {rank}] init_process_group done (world {dist.get_world_size()}, timeout {timeout})", flush=True)
x = torch.ones(1 << 20, device="cuda")
for step in range(4):
    if rank == 1 and step == int(os.environ.get("STALL_STEP", "-1")):
        time.sleep(45)
    dist.all_reduce(x)
    torch.cuda.synchronize()
    print(f"[rank {rank}] step {step} all_reduce ok, x[0]={x[0].item():.0f}", flush=True)
dist.barrier()
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
PY
# tjob NAME LIMIT MASTER_PORT ENV...: torchrun --nproc_per_node 2 /tmp/t_job.py, whole output kept
tjob() {
  local name=$1 limit=$2 mport=$3; shift 3
  echo "== $name: $* torchrun --nproc_per_node 2 --master_port $mport /tmp/t_job.py"
  ( env "$@" timeout -s INT -k 10 "$limit" torchrun --nproc_per_node 2 --master_port "$mport" /tmp/t_job.py ) > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}

if [ "$T_PART" = 1 ]; then
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader
ls /sys/class/net; ip -br addr 2>/dev/null || cat /proc/net/if_inet6
# 1. NCCL_COMM_ID at another machine's address, TP 2 over 2 nodes
pair vllm026-2nodes-tp2-nccl-comm-id-other-host 110 29851 8301 /tmp/tiny \
  "$H0 NCCL_COMM_ID=10.254.254.254:29850" "$H1 NCCL_COMM_ID=10.254.254.254:29850" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$!"
# 2. NCCL_ALGO=NVLS on a node without NVLink SHARP
pair vllm026-2nodes-tp2-nccl-algo-nvls-no-nvswitch 110 29852 8302 /tmp/tiny \
  "$H0 NCCL_ALGO=NVLS" "$H1 NCCL_ALGO=NVLS" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 3. NCCL_SOCKET_FAMILY=AF_INET6, NCCL_DEBUG=INFO
pair vllm026-2nodes-tp2-nccl-socket-family-inet6 110 29853 8303 /tmp/tiny \
  "$H0 NCCL_SOCKET_FAMILY=AF_INET6 NCCL_DEBUG=INFO" "$H1 NCCL_SOCKET_FAMILY=AF_INET6 NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 4. ulimit -v 32G
(
  name=vllm026-ulimit-v-32g
  echo "== $name: ulimit -v 33554432 (32 GiB); vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8304"
  ( ulimit -v 33554432; exec timeout -s INT -k 10 100 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS $GMU --port 8304 ) > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 5-7. torch-only NCCL jobs
tjob torchrun-nccl-blocking-wait-10s-rank1-stalls 80 29871 TORCH_NCCL_BLOCKING_WAIT=1 PG_TIMEOUT_S=10 STALL_STEP=2 NCCL_DEBUG=WARN &
J="$J $!"
tjob torchrun-nccl-socket-ifname-excludes-all 60 29872 "NCCL_SOCKET_IFNAME=^lo,docker,eth" NCCL_DEBUG=INFO &
J="$J $!"
tjob torchrun-nccl-comm-id-other-host 60 29873 NCCL_COMM_ID=10.254.254.254:29860 NCCL_DEBUG=WARN &
J="$J $!"
sleep 70; echo "GPU apps at 70 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$T_PART" = 2 ]; then
pair vllm026-2nodes-tp2-nccl-socket-ifname-excludes-all 110 29854 8311 /tmp/tiny \
  "$H0 NCCL_SOCKET_IFNAME=^lo,docker,eth" "$H1 NCCL_SOCKET_IFNAME=^lo,docker,eth" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$!"
N1EXTRA="--pipeline-parallel-size 2" pair vllm026-2nodes-node0-tp2-node1-tp2-pp2 110 29855 8312 /tmp/tiny \
  "$H0" "$H1" 127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 &
J="$J $!"
tjob torchrun-nccl-proto-ll129-typo 60 29874 NCCL_PROTO=LL129 NCCL_DEBUG=WARN &
J="$J $!"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
