#!/usr/bin/env bash
# Z78 capture run ZQ: torch 2.11 / NCCL 2.28.9 / gloo only (no vLLM), faults made on purpose, all jobs in parallel.
#   timeout -k 10 330 bash .device/Z78/run_zq.sh 2>&1 | tee $OUT/run_zq.out
set -u
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
W=/workspace/job              # the "user's" job directory (paths that show in tracebacks)
Z=/tmp/z78                    # harness scratch
mkdir -p $W $Z "$OUT/logs" /workspace/tok /workspace/data
cp -r $D/job/. $W/
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 4 "$OUT/logs/$1.log" | cut -c1-220 | sed 's/^/      /'; }
job() {  # job NAME LIMIT SHOWN CMD...   (one process tree, whole output to logs/NAME.log)
  local name=$1 limit=$2 shown=$3; shift 3
  echo "== $name: $shown  [t+$((SECONDS - T0))s]"
  echo "\$ $shown" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" "$@" >> "$OUT/logs/$name.log" 2>&1
  fin $name $?
}
HOLDERS=""
# node NAME N: a "node" = network + UTS + mount namespace (own host name, /etc/hosts naming both nodes of 10.77.N.0/24)
node() {
  printf '127.0.0.1 localhost\n10.77.%s.1 gpu-node-0\n10.77.%s.2 gpu-node-1\n' $2 $2 > $Z/hosts-$2
  unshare -n -u -m sh -c "echo $1 > /proc/sys/kernel/hostname && mount --bind $Z/hosts-$2 /etc/hosts && exec sleep 420" > /dev/null 2>&1 &
  echo $!
}
on() { local p=$1; shift; nsenter -n -u -m -t $p "$@"; }   # run in a node
killns() {
  local h ns d p
  for h in "$@"; do
    ns=$(readlink /proc/$h/ns/net) || continue
    for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
      [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done
  done
}
# twonode NAME LIMIT PID0 PID1 "ENV0" "ENV1" ARGS [WRAP0] [WRAP1]: torchrun --nnodes 2 on two nodes
twonode() {
  local name=$1 limit=$2 p0=$3 p1=$4 e0=$5 e1=$6 a=$7 w0=${8:-} w1=${9:-} log=$OUT/logs/$1.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  { echo "gpu-node-0: \$ $e0 torchrun --nnodes 2 --node_rank 0 $a"; echo "gpu-node-1: \$ $e1 torchrun --nnodes 2 --node_rank 1 $a"; } > $log
  ( set -o pipefail; on $p0 env $e0 $w0 timeout -s INT -k 10 $limit torchrun --nnodes 2 --node_rank 0 $a 2>&1 | sed -u 's/^/gpu-node-0: /' >> $log ) &
  local j0=$!; sleep 1
  ( set -o pipefail; on $p1 env $e1 $w1 timeout -s INT -k 10 $limit torchrun --nnodes 2 --node_rank 1 $a 2>&1 | sed -u 's/^/gpu-node-1: /' >> $log ) &
  local j1=$!
  wait $j0; local r0=$?; wait $j1; local r1=$?
  fin $name "node0 $r0 node1 $r1"
}

nvidia-smi -L
python3 -c "import torch, numpy; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'numpy', numpy.__version__)"
ts "start; GPU apps: $(gpu_apps)"

# ---- shared inputs: a tokenizer dir (32000-line vocab + 3 added tokens), a stale copy without added_tokens.json,
#      token shards where rank 1's shard carries the tokenizer's added <pad> id 32000
python3 - <<'PY'
import json, os, torch
os.makedirs("/tmp/z78/tok-stale", exist_ok=True)
with open("/workspace/tok/vocab.txt", "w") as f:
    f.writelines(f"tok{i}\n" for i in range(32000))
with open("/workspace/tok/added_tokens.json", "w") as f:
    json.dump({"<pad>": 32000, "<|im_start|>": 32001, "<|im_end|>": 32002}, f)
with open("/tmp/z78/tok-stale/vocab.txt", "w") as f:
    f.writelines(f"tok{i}\n" for i in range(32000))
g = torch.Generator().manual_seed(0)
for r in range(2):
    ids = torch.randint(0, 32000, (16, 8, 128), generator=g)
    if r == 1:
        ids[3:, :, 120:] = 32000          # right-padded with <pad> = 32000 (tokenizer has 32003 ids)
    torch.save(ids, f"/workspace/data/shard-{r:05d}.pt")
print("inputs: /workspace/tok (32000 + 3 added), /tmp/z78/tok-stale (32000), /workspace/data shard-00000/00001")
PY
J=""

# ---- 1 communication: two nodes, CPU gloo job with GLOO_SOCKET_IFNAME=lo (copied from a single-box example)
N1A=$(node gpu-node-0 81); N1B=$(node gpu-node-1 81); HOLDERS="$HOLDERS $N1A $N1B"; sleep 0.3
python3 $D/netns.py veth $N1A 10.77.81.1 $N1B 10.77.81.2
( twonode h200-2nodes-torchrun-gloo-socket-ifname-lo 120 $N1A $N1B \
    "GLOO_SOCKET_IFNAME=lo" "GLOO_SOCKET_IFNAME=lo" \
    "--nproc_per_node 1 --master_addr 10.77.81.1 --master_port 29500 $W/cpu_sync.py --pg-timeout 30"
) &
J="$J $!"

# ---- 2 communication: two nodes, gloo; node 1's node-local tokenizer copy is stale (no added_tokens.json), so the
#      embedding is 32000 rows there and 32003 on node 0; rank 0 broadcasts its initial weights
N2A=$(node gpu-node-0 82); N2B=$(node gpu-node-1 82); HOLDERS="$HOLDERS $N2A $N2B"; sleep 0.3
python3 $D/netns.py veth $N2A 10.77.82.1 $N2B 10.77.82.2
on $N2B mount --bind $Z/tok-stale /workspace/tok && on $N2B ls /workspace/tok | sed 's/^/   node1 tokenizer: /'
( twonode h200-2nodes-torchrun-gloo-node1-stale-tokenizer-broadcast-size-mismatch 120 $N2A $N2B \
    "GLOO_SOCKET_IFNAME=eth1" "GLOO_SOCKET_IFNAME=eth1" \
    "--nproc_per_node 1 --master_addr 10.77.82.1 --master_port 29500 $W/cpu_sync.py --pg-timeout 30"
) &
J="$J $!"

# ---- 3 versions: numpy not installed in the image (overlay whiteouts in a private mount namespace); eval uses .numpy()
NPDIR=$(python3 -c "import numpy, os; print(os.path.dirname(numpy.__path__[0]))")
echo "   numpy lives in $NPDIR: $(ls $NPDIR | grep '^numpy' | tr '\n' ' ')"
cat > $Z/no_numpy.sh <<SH
set -e
mkdir -p $Z/ov && mount -t tmpfs tmpfs $Z/ov && mkdir -p $Z/ov/u $Z/ov/w
for f in \$(ls $NPDIR | grep '^numpy'); do mknod $Z/ov/u/\$f c 0 0; done
mount -t overlay overlay -o lowerdir=$NPDIR,upperdir=$Z/ov/u,workdir=$Z/ov/w $NPDIR
exec "\$@"
SH
( job h200-torchrun-nccl-numpy-not-installed-eval-metrics 150 \
    "torchrun --nproc_per_node 2 --master_port 29781 $W/train.py --steps 8 --eval-every 3 --pg-timeout 30" \
    unshare -m sh $Z/no_numpy.sh env HOSTID_PER_RANK=1 torchrun --nproc_per_node 2 --master_port 29781 $W/train.py --steps 8 --eval-every 3 --pg-timeout 30
) &
J="$J $!"

# ---- 4 network: node 1 was given node 0's address (10.77.83.1) too (cloned network config): it dials itself
N4A=$(node gpu-node-0 83); N4B=$(node gpu-node-1 83); HOLDERS="$HOLDERS $N4A $N4B"; sleep 0.3
python3 $D/netns.py veth $N4A 10.77.83.1 $N4B 10.77.83.1
( twonode h200-2nodes-torchrun-node1-duplicate-ip-of-master 150 $N4A $N4B \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" \
    "--nproc_per_node 1 --master_addr 10.77.83.1 --master_port 29500 --rdzv_conf timeout=45 $W/train.py --steps 6 --pg-timeout 30"
) &
J="$J $!"

# ---- 5 resources: node 0 runs in a container cgroup of memory.max 4G (no swap); rank 0 consolidates a 6 GiB fp32 full
#      state dict on the CPU at the first checkpoint; NCCL INFO, 30 s PG timeout
grep -q memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
CG5=/sys/fs/cgroup/z78_node0; mkdir -p $CG5; echo 4G > $CG5/memory.max; echo 0 > $CG5/memory.swap.max 2>/dev/null
echo "   $CG5 memory.max $(cat $CG5/memory.max) swap.max $(cat $CG5/memory.swap.max 2>&1)"
N5A=$(node gpu-node-0 84); N5B=$(node gpu-node-1 84); HOLDERS="$HOLDERS $N5A $N5B"; sleep 0.3
python3 $D/netns.py veth $N5A 10.77.84.1 $N5B 10.77.84.2
( twonode h200-2nodes-torchrun-nccl-node0-memory-4g-full-state-dict-gather-oom-killed 170 $N5A $N5B \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" \
    "--nproc_per_node 1 --master_addr 10.77.84.1 --master_port 29500 $W/gather_ckpt.py --steps 6 --save-every 3 --pg-timeout 30" \
    "$D/incg.sh $CG5" ""
) &
J="$J $!"

# ---- 6 visibility: a "container" whose device rules allow /dev/nvidia0 + /dev/nvidiactl but not /dev/nvidia-uvm
UVM=$(awk '$2 == "nvidia-uvm" {print $1}' /proc/devices)
CG6=/sys/fs/cgroup/z78_ctr; mkdir -p $CG6
python3 $D/devdeny.py $CG6 ${UVM:-511} | sed 's/^/   /'
( job h200-torchrun-nccl-container-nvidia-uvm-device-denied 120 \
    "nvidia-smi -L && NCCL_DEBUG=INFO torchrun --nproc_per_node 2 --master_port 29782 $W/train.py --steps 6 --pg-timeout 30" \
    $D/incg.sh $CG6 sh -c "nvidia-smi -L && exec env HOSTID_PER_RANK=1 NCCL_DEBUG=INFO torchrun --nproc_per_node 2 --master_port 29782 $W/train.py --steps 6 --pg-timeout 30"
) &
J="$J $!"

# ---- 7 other: rank 1's data shard is padded with the tokenizer's added <pad> id 32000; embedding has 32000 rows
( job h200-torchrun-nccl-rank1-pad-id-32000-embedding-32000-rows 150 \
    "NCCL_DEBUG=WARN torchrun --nproc_per_node 2 --master_port 29783 $W/train.py --data-dir /workspace/data --vocab 32000 --steps 10 --pg-timeout 20" \
    env HOSTID_PER_RANK=1 NCCL_DEBUG=WARN torchrun --nproc_per_node 2 --master_port 29783 $W/train.py --data-dir /workspace/data --vocab 32000 --steps 10 --pg-timeout 20
) &
J="$J $!"

# ---- 8 healthy: two nodes, fp16 AMP with GradScaler(init_scale=2**32): overflow / skipped-step messages, then trains
N8A=$(node gpu-node-0 85); N8B=$(node gpu-node-1 85); HOLDERS="$HOLDERS $N8A $N8B"; sleep 0.3
python3 $D/netns.py veth $N8A 10.77.85.1 $N8B 10.77.85.2
( twonode h200-2nodes-torchrun-nccl-fp16-grad-scaler-overflow-skipped-steps-ok 170 $N8A $N8B \
    "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1" \
    "--nproc_per_node 1 --master_addr 10.77.85.1 --master_port 29500 $W/train.py --amp-fp16 --init-scale 4294967296 --steps 14 --pg-timeout 60"
) &
J="$J $!"

sleep 25; ts "running; GPU apps: $(gpu_apps)"
echo "   $CG5 memory.events: $(cat $CG5/memory.events 2>/dev/null | tr '\n' ' ')"
wait $J
ts "all jobs done; GPU apps: $(gpu_apps)"
echo "   $CG5 memory.events: $(cat $CG5/memory.events 2>/dev/null | tr '\n' ' ')  peak: $(cat $CG5/memory.peak 2>/dev/null)"
killns $HOLDERS
for h in $HOLDERS; do kill $h 2>/dev/null; done
for cg in $CG5 $CG6; do for p in $(cat $cg/cgroup.procs 2>/dev/null); do kill -9 $p 2>/dev/null; done; done
sleep 0.5; for cg in $CG5 $CG6; do rmdir $cg 2>/dev/null && echo "   cgroup $cg removed"; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zq-logs.tar" logs && rm -r "$OUT/logs"
ts "end"
true
