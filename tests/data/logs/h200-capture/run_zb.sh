#!/usr/bin/env bash
# Capture run ZB (session 7, collector Z41): a blind batch, torch only (no vLLM, nothing staged,
# no carry), torch 2.11.0+cu130 (NCCL 2.28.9) already on the machine. Every job is a small DDP
# training script (/tmp/zb/train.py). Ranks on the one GPU are separate "hosts" for NCCL
# (NCCL_HOSTID per rank, set by a sitecustomize on PYTHONPATH unless the launch line sets it, so
# that it does not show in the output). Two-"node" jobs that need two real network stacks run
# each node in its own network namespace (held by a sleeping process), joined by a veth pair
# (node 0 10.77.0.1, node 1 10.77.0.2; made with netlink from Python: no `ip` tool there); the
# machine's own network is not touched. Each log starts with the command(s) as typed ("$ ...").
# ZB_PART=1, in parallel:
#   1. communication: 2 nodes (netns + veth), both NCCL_SOCKET_IFNAME=lo (a single-node recipe),
#      torchrun --nnodes 2 --master_addr 10.77.0.1, NCCL_DEBUG=INFO
#   2. network: 2 nodes (netns + veth), node 0 --master_addr 10.77.0.1, node 1 --master_addr
#      127.0.0.1 (copied from a single-node command), --rdzv_conf timeout=40
#   3. resources: ulimit -n 128 with NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=16, 2 ranks,
#      NCCL_DEBUG=INFO
#   4. visibility: 2 nodes x 1 GPU (torchrun --nnodes 2 --nproc_per_node 1 on the host), the
#      script selects its GPU with the global RANK (cuda:1 on node 1), NCCL_DEBUG=INFO
#   5. versions: nvidia-nccl-cu13 removed from the venv (overlay whiteout, own mount namespace)
#      and no system libnccl (whiteouts in /usr/lib/x86_64-linux-gnu), torchrun x2
#   6. other: resume from a torch.distributed.checkpoint directory missing its largest shard
#      (an interrupted copy), 2 ranks, NCCL_DEBUG=INFO
#   7. healthy but noisy: 2 nodes (netns + veth), NCCL_SOCKET_IFNAME=eth1 (the right one), legacy
#      NCCL_ASYNC_ERROR_HANDLING=1, NCCL_IB_DISABLE=1, NCCL_DEBUG=INFO
# Calls: ZB_PART=1 timeout -k 5 130 bash tests/data/logs/h200-capture/run_zb.sh, then ZB_PART=2 with 100.
# ZB_PART=2 (same warm machine), in parallel:
#   8. communication: rank 0 alone all_reduces a grad-norm for its log (a rank-conditional
#      collective), 20 s process-group timeout, NCCL_DEBUG=INFO
#   9. communication: 2 nodes (netns + veth), node 1 lost after step 5 (its veth set down, then its
#      torchrun and worker SIGKILLed; a node losing power); node 0's console only, 20 s timeout
#  10. communication: 2 nodes (netns + veth), a gloo side group (new_group(backend="gloo")),
#      GLOO_SOCKET_IFNAME unset (the hostname does not resolve to the node's veth address)
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
ZB_PART=${ZB_PART:-1}
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/logs" /tmp/zb/site /tmp/zb/ckpt /tmp/zb/ov
export PYTHONPATH=/tmp/zb/site

cat > /tmp/zb/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None:
    os.environ.setdefault("NCCL_HOSTID", "node" + os.environ["RANK"])  # one "host" per rank
PY

# netns_link.py PID_A PID_B: veth between the network namespaces of two processes (A gets
# 10.77.0.1/24, B 10.77.0.2/24, interface eth1 on both), lo up in both
cat > /tmp/zb/netns_link.py <<'PY'
import ctypes, fcntl, os, socket, struct, sys

def setns(pid):
    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)

def up(name):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", name.encode(), 0x1 | 0x40))  # SIOCSIFFLAGS

def set_addr(name, addr, mask="255.255.255.0"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for req, a in ((0x8916, addr), (0x891C, mask)):  # SIOCSIFADDR, SIOCSIFNETMASK
        fcntl.ioctl(s, req, struct.pack("16sH2s4s8x", name.encode(), socket.AF_INET, b"\0\0", socket.inet_aton(a)))

def rta(t, data):
    ln = 4 + len(data)
    return struct.pack("HH", ln, t) + data + b"\0" * ((4 - ln % 4) % 4)

def make_veth(name, peer, peer_pid):
    ifi = struct.pack("BxHiII", 0, 0, 0, 0, 0)
    peer_data = ifi + rta(3, peer.encode() + b"\0") + rta(19, struct.pack("I", peer_pid))
    linkinfo = rta(1, b"veth\0") + rta(2, rta(1, peer_data))
    body = ifi + rta(3, name.encode() + b"\0") + rta(18, linkinfo)
    msg = struct.pack("IHHII", 16 + len(body), 16, 0x1 | 0x4 | 0x200 | 0x400, 1, 0) + body
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.bind((0, 0))
    s.send(msg)
    r = s.recv(4096)
    if struct.unpack("H", r[4:6])[0] == 2:  # NLMSG_ERROR
        err = struct.unpack("i", r[16:20])[0]
        if err != 0:
            raise OSError(-err, "veth: " + os.strerror(-err))

if sys.argv[1] == "down":  # netns_link.py down PID: set eth1 down in PID's namespace
    setns(int(sys.argv[2]))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"eth1", 0))
    print(f"eth1 down in the namespace of {sys.argv[2]}")
    sys.exit(0)
pid_a, pid_b = int(sys.argv[1]), int(sys.argv[2])
setns(pid_a)
make_veth("eth1", "eth1", pid_b)
up("lo"); set_addr("eth1", "10.77.0.1"); up("eth1")
setns(pid_b)
up("lo"); set_addr("eth1", "10.77.0.2"); up("eth1")
print(f"netns pair {pid_a} (10.77.0.1) <-> {pid_b} (10.77.0.2): ok")
PY
# inns.py PID CMD...: run CMD in the network namespace of PID
cat > /tmp/zb/inns.py <<'PY'
import ctypes, os, sys
fd = os.open(f"/proc/{sys.argv[1]}/ns/net", os.O_RDONLY)
if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
    raise OSError(ctypes.get_errno(), "setns")
os.close(fd)
os.execvp(sys.argv[2], sys.argv[2:])
PY

cat > /tmp/zb/train.py <<'PY'
import datetime, os, socket, time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)


device = torch.device("cuda", 0)  # one GPU per node
torch.cuda.set_device(device)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group("nccl", timeout=timeout)
nccl = ".".join(map(str, torch.cuda.nccl.version()))
log(f"process group ready: world {world}, timeout {timeout}, torch {torch.__version__}, nccl {nccl}, host {socket.gethostname()}")
cpu_group = None
if os.environ.get("CPU_GROUP") == "1":
    cpu_group = dist.new_group(backend="gloo")  # CPU side group for metadata / logging
    log("gloo side group ready")

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
resume = os.environ.get("RESUME_DIR")
if resume:
    import torch.distributed.checkpoint as dcp
    log(f"resuming from {resume}")
    state = {"model": model.state_dict()}
    dcp.load(state, checkpoint_id=resume)
    model.load_state_dict(state["model"])
    log("checkpoint loaded")
ddp = DDP(model, device_ids=[0])
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
log_grad_norm = os.environ.get("LOG_GRAD_NORM") == "1"
step_sleep = float(os.environ.get("STEP_SLEEP", "0"))

for step in range(int(os.environ.get("STEPS", "6"))):
    x = torch.randn(64, 1024, device=device)
    loss = (ddp(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    time.sleep(step_sleep)
    if rank == 0 and log_grad_norm and step == 2:
        gn = torch.nn.utils.get_total_norm([p.grad for p in ddp.parameters()]).to(device)
        dist.all_reduce(gn)
        log(f"step {step} grad norm {gn.item() / world:.5f}")
    metrics = torch.stack([loss.detach()])
    dist.all_reduce(metrics)
    if rank == 0:
        log(f"step {step} loss {metrics[0].item() / world:.5f}")

if cpu_group is not None:
    hosts = [None] * world
    dist.all_gather_object(hosts, socket.gethostname(), group=cpu_group)
    log(f"hosts {hosts}")
save = os.environ.get("SAVE_DIR")
if save:
    import torch.distributed.checkpoint as dcp
    dcp.save({"model": model.state_dict()}, checkpoint_id=save)
    log(f"checkpoint saved to {save}")
dist.barrier()
dist.destroy_process_group()
log("done")
PY
# the same script selecting its GPU by the global rank
sed 's/^device = torch.device("cuda", 0)  # one GPU per node$/device = torch.device("cuda", rank)/' /tmp/zb/train.py > /tmp/zb/train_gpu_by_rank.py
grep -n '^device =' /tmp/zb/train_gpu_by_rank.py

# job NAME LIMIT SHOWN CMD...: one fault; its log starts with "$ SHOWN", then the whole output of CMD
job() {
  local name=$1 limit=$2 shown=$3; shift 3
  local log="$OUT/logs/$name.log" t0=$SECONDS
  echo "== $name: $shown"
  { echo "\$ $shown"; timeout -s INT -k 10 "$limit" "$@"; } > "$log" 2>&1
  local rc=$?
  echo "   $name rc $rc  wall $((SECONDS - t0)) s  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-220
}
# job2 NAME LIMIT SHOWN0 SHOWN1 CMD0 -- CMD1: two "nodes" writing to one log (a shared console)
job2() {
  local name=$1 limit=$2 shown0=$3 shown1=$4; shift 4
  local log="$OUT/logs/$name.log" t0=$SECONDS c0=() c1=()
  while [ "$1" != "--" ]; do c0+=("$1"); shift; done; shift; c1=("$@")
  echo "== $name: node0: $shown0"; echo "   node1: $shown1"
  { echo "\$ $shown0    # node 0"; echo "\$ $shown1    # node 1"; } > "$log"
  timeout -s INT -k 10 "$limit" "${c0[@]}" >> "$log" 2>&1 &
  local p0=$!
  sleep 1
  timeout -s INT -k 10 "$limit" "${c1[@]}" >> "$log" 2>&1 &
  local p1=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  wall $((SECONDS - t0)) s  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-220
}
# netpair: two network namespaces held by sleeping processes, joined by a veth; sets NA NB
netpair() {
  unshare -n sleep 400 > /dev/null 2>&1 &
  NA=$!
  unshare -n sleep 400 > /dev/null 2>&1 &
  NB=$!
  sleep 0.5
  python3 /tmp/zb/netns_link.py $NA $NB
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
TR="torchrun --nproc_per_node 2"
T=/tmp/zb/train.py
HOLDERS=""

if [ "$ZB_PART" = 1 ]; then
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"
NV=$(python3 -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__path__[0]))")
echo "nvidia dir: $NV: $(ls $NV | tr '\n' ' ')"
ls -la /usr/lib/x86_64-linux-gnu/ | grep -i nccl; ls -ld /lib; cat /etc/hosts; hostname
# the checkpoint to resume from: 2 ranks save one, then the largest shard is dropped (a copy cut short)
( PG_TIMEOUT_S=60 STEPS=2 SAVE_DIR=/tmp/zb/ckpt/step_200 timeout 60 $TR --master_port 29980 $T > /tmp/zb/ckpt-save.txt 2>&1
  echo "checkpoint save rc $?: $(tail -n 2 /tmp/zb/ckpt-save.txt | tr '\n' ' ')"
  ls -la /tmp/zb/ckpt/step_200; BIG=$(ls -S /tmp/zb/ckpt/step_200/*.distcp | head -n 1); rm -v "$BIG" ) &
PRE=$!
# the nvidia-nccl-cu13 package gone from the venv, and no system NCCL
cat > /tmp/zb/no_nccl.sh <<SH
set -e
mount -t tmpfs tmpfs /tmp/zb/ov
mkdir -p /tmp/zb/ov/u1 /tmp/zb/ov/w1 /tmp/zb/ov/u2 /tmp/zb/ov/w2
mknod /tmp/zb/ov/u1/nccl c 0 0
mount -t overlay overlay -o lowerdir=$NV,upperdir=/tmp/zb/ov/u1,workdir=/tmp/zb/ov/w1 $NV
for f in \$(ls /usr/lib/x86_64-linux-gnu | grep '^libnccl'); do mknod /tmp/zb/ov/u2/\$f c 0 0; done
mount -t overlay overlay -o lowerdir=/usr/lib/x86_64-linux-gnu,upperdir=/tmp/zb/ov/u2,workdir=/tmp/zb/ov/w2 /usr/lib/x86_64-linux-gnu
if [ "\$(readlink -f /lib/x86_64-linux-gnu)" != /usr/lib/x86_64-linux-gnu ]; then
  mkdir -p /tmp/zb/ov/u3 /tmp/zb/ov/w3
  for f in \$(ls /lib/x86_64-linux-gnu | grep '^libnccl'); do mknod /tmp/zb/ov/u3/\$f c 0 0; done
  mount -t overlay overlay -o lowerdir=/lib/x86_64-linux-gnu,upperdir=/tmp/zb/ov/u3,workdir=/tmp/zb/ov/w3 /lib/x86_64-linux-gnu
fi
{ ls $NV; ls /usr/lib/x86_64-linux-gnu | grep -c nccl || true; } > /tmp/zb/no_nccl-check.txt 2>&1
exec "\$@"
SH
netpair || echo "netns pair 1 FAILED"; A1=$NA; B1=$NB
netpair || echo "netns pair 2 FAILED"; A2=$NA; B2=$NB
netpair || echo "netns pair 3 FAILED"; A3=$NA; B3=$NB
HOLDERS="$A1 $B1 $A2 $B2 $A3 $B3"

# 1. NCCL_SOCKET_IFNAME=lo on both nodes of a 2-node job
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29981"
job2 2nodes-torchrun-nccl-socket-ifname-lo 90 \
  "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=lo $S --node_rank 0 $T" \
  "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=lo $S --node_rank 1 $T" \
  python3 /tmp/zb/inns.py $A1 env NCCL_HOSTID=node0 NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=lo $S --node_rank 0 $T -- \
  python3 /tmp/zb/inns.py $B1 env NCCL_HOSTID=node1 NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=lo $S --node_rank 1 $T &
J="$!"
# 2. node 1 pointed at 127.0.0.1 as master
S="torchrun --nnodes 2 --nproc_per_node 1 --master_port 29982 --rdzv_conf timeout=40"
job2 2nodes-torchrun-node1-master-addr-127.0.0.1 70 \
  "NCCL_DEBUG=INFO $S --node_rank 0 --master_addr 10.77.0.1 $T" \
  "NCCL_DEBUG=INFO $S --node_rank 1 --master_addr 127.0.0.1 $T" \
  python3 /tmp/zb/inns.py $A2 env NCCL_HOSTID=node0 NCCL_DEBUG=INFO $S --node_rank 0 --master_addr 10.77.0.1 $T -- \
  python3 /tmp/zb/inns.py $B2 env NCCL_HOSTID=node1 NCCL_DEBUG=INFO $S --node_rank 1 --master_addr 127.0.0.1 $T &
J="$J $!"
# 3. open-file limit 128 with many NCCL sockets per connection
job torchrun-nccl-ulimit-n-128-nsocks-64 60 \
  "ulimit -n 128; NCCL_DEBUG=INFO NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=16 $TR --master_port 29983 $T" \
  bash -c "ulimit -n 128 && exec env NCCL_DEBUG=INFO NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=16 $TR --master_port 29983 $T" &
J="$J $!"
# 4. GPU chosen by the global rank, 2 nodes x 1 GPU
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 127.0.0.1 --master_port 29984"
job2 2nodes-torchrun-cuda-device-global-rank 50 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 0 /tmp/zb/train_gpu_by_rank.py" \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 1 /tmp/zb/train_gpu_by_rank.py" \
  env NCCL_HOSTID=node0 NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 0 /tmp/zb/train_gpu_by_rank.py -- \
  env NCCL_HOSTID=node1 NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 1 /tmp/zb/train_gpu_by_rank.py &
J="$J $!"
# 5. no NCCL library at all (package removed, no system copy)
job torchrun-nccl-package-removed-no-system-nccl 40 \
  "NCCL_DEBUG=INFO $TR --master_port 29985 $T" \
  unshare -m bash /tmp/zb/no_nccl.sh env NCCL_DEBUG=INFO $TR --master_port 29985 $T &
J="$J $!"
# 7. healthy: 2 nodes over the veth with the right interface, legacy env variables
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29987"
E="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 GLOO_SOCKET_IFNAME=eth1 NCCL_IB_DISABLE=1 NCCL_ASYNC_ERROR_HANDLING=1 STEPS=8"
job2 2nodes-torchrun-nccl-eth1-legacy-env-ok 60 "$E $S --node_rank 0 $T" "$E $S --node_rank 1 $T" \
  python3 /tmp/zb/inns.py $A3 env NCCL_HOSTID=node0 $E $S --node_rank 0 $T -- \
  python3 /tmp/zb/inns.py $B3 env NCCL_HOSTID=node1 $E $S --node_rank 1 $T &
J="$J $!"
# 6. resume from the checkpoint missing a shard (after the save above)
wait $PRE
job torchrun-nccl-dcp-resume-missing-shard 60 \
  "NCCL_DEBUG=INFO RESUME_DIR=/tmp/zb/ckpt/step_200 $TR --master_port 29986 $T" \
  env NCCL_DEBUG=INFO RESUME_DIR=/tmp/zb/ckpt/step_200 $TR --master_port 29986 $T &
J="$J $!"
sleep 30; echo "GPU apps at 30 s: $(gpu_apps | tr '\n' ' ')"
wait $J
echo "no_nccl check: $(tr '\n' ' ' < /tmp/zb/no_nccl-check.txt 2>/dev/null)"
fi

if [ "$ZB_PART" = 2 ]; then
netpair || echo "netns pair 4 FAILED"; A4=$NA; B4=$NB
netpair || echo "netns pair 5 FAILED"; A5=$NA; B5=$NB
HOLDERS="$A4 $B4 $A5 $B5"
# 8. rank 0 alone all_reduces its grad norm
job torchrun-nccl-rank0-only-allreduce-pg-timeout-20s 75 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=20 LOG_GRAD_NORM=1 $TR --master_port 29991 $T" \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=20 LOG_GRAD_NORM=1 $TR --master_port 29991 $T &
J="$!"
# 10. gloo side group across 2 nodes, GLOO_SOCKET_IFNAME unset
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29992"
E="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 CPU_GROUP=1 PG_TIMEOUT_S=30"
job2 2nodes-torchrun-gloo-side-group-no-ifname 75 "$E $S --node_rank 0 $T" "$E $S --node_rank 1 $T" \
  python3 /tmp/zb/inns.py $A5 env NCCL_HOSTID=node0 $E $S --node_rank 0 $T -- \
  python3 /tmp/zb/inns.py $B5 env NCCL_HOSTID=node1 $E $S --node_rank 1 $T &
J="$J $!"
# 9. node 1 lost after step 5: its link goes down, then its processes are SIGKILLed; node 0's console only
(
  name=2nodes-torchrun-node1-lost-pg-timeout-20s
  log="$OUT/logs/$name.log" t0=$SECONDS
  S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29993"
  E="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=20 STEPS=300 STEP_SLEEP=0.2"
  echo "== $name: node0: $E $S --node_rank 0 $T (node 1 the same with --node_rank 1, its console not kept)"
  echo "\$ $E $S --node_rank 0 $T" > "$log"
  timeout -s INT -k 10 80 python3 /tmp/zb/inns.py $A4 env NCCL_HOSTID=node0 $E $S --node_rank 0 $T >> "$log" 2>&1 &
  p0=$!
  sleep 1
  timeout -s KILL 80 python3 /tmp/zb/inns.py $B4 env NCCL_HOSTID=node1 $E $S --node_rank 1 $T > /tmp/zb/node1-lost.txt 2>&1 &
  sleep 1
  p1=$(cat /proc/$!/task/*/children | tr ' ' '\n' | head -n 1)  # node 1's torchrun (the child of timeout)
  for i in $(seq 80); do grep -q "step 5 loss" "$log" && break; sleep 0.5; done
  python3 /tmp/zb/netns_link.py down $B4
  kids=$(cat /proc/$p1/task/*/children 2>/dev/null)
  kill -9 $kids $p1 2>/dev/null
  echo "   node 1 (torchrun $p1, workers $kids) cut at $((SECONDS - t0)) s"
  wait $p0; r0=$?
  echo "   $name rc node0 $r0  wall $((SECONDS - t0)) s  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-220
  echo "   node 1's console (not kept): $(wc -l < /tmp/zb/node1-lost.txt) lines"; tail -n 2 /tmp/zb/node1-lost.txt | cut -c1-200
) &
J="$J $!"
wait $J
fi
for p in $HOLDERS; do kill "$p" 2>/dev/null; done
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
