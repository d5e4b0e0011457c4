#!/usr/bin/env bash
# Capture run ZD (session 9, collector Z45): a blind batch, torch only (no vLLM, nothing staged,
# no carry), torch 2.11.0+cu130 (NCCL 2.28.9) already on the machine. Every job is a small
# training script (/tmp/zd/train.py, behaviour picked by MODE) under torchrun. Ranks on the one
# GPU are separate "hosts" for NCCL (NCCL_HOSTID per rank, set by a sitecustomize on PYTHONPATH,
# so that it does not show in the output). The two-"node" job of part 2 runs each node in a
# network namespace of its own joined by a veth pair (10.77.0.1 / 10.77.0.2, made with netlink
# from Python as in run_zb.sh). Each log starts with the command(s) as typed ("$ ...").
# ZD_PART=1, in parallel:
#   1. communication: DDP with uneven inputs (rank 1 has 3 batches, rank 0 has 6), then a final
#      barrier; 20 s process-group timeout, NCCL_DEBUG=INFO
#   2. communication: an AWS EFA recipe's NCCL settings (NCCL_NET_PLUGIN=ofi, NCCL_NET="AWS
#      Libfabric", FI_PROVIDER=efa) on a node without EFA or the aws-ofi-nccl plugin, NCCL_DEBUG=INFO
#   3. resources: NCCL_COMM_ID set to MASTER_ADDR:MASTER_PORT (the port torchrun's TCPStore holds)
#   4. network: two torchrun "nodes" with the c10d rendezvous, each given a different --rdzv_id
#   5. resources: NCCL_BUFFSIZE=256 GiB (a bytes value meant as 256 MiB... typed wrong), NCCL_DEBUG=INFO
#   6. visibility: torchrun --nproc_per_node gpu in a job step without GPUs (CUDA_VISIBLE_DEVICES empty)
#   7. other: DDP with a parameter (an auxiliary head) unused in the loss, find_unused_parameters off
# ZD_PART=2 (same warm machine), in parallel:
#   8. communication: both ranks dist.send() first, then dist.recv() (a pipeline send/send
#      deadlock), 15 s process-group timeout, NCCL_DEBUG=INFO
#   9. network: 2 nodes (netns + veth), --master_addr trainer-0; node 1's /etc/hosts has a stale
#      entry for trainer-0 (10.77.0.9, no such host), --rdzv_conf timeout=30
#  10. resources: torchrun --log-dir on a full volume (a 1 MiB tmpfs out of inodes)
#  11. versions: resume with torch.load (weights_only default since torch 2.6) from a checkpoint
#      that pickled an argparse.Namespace
#  12. versions: torch.compile in a container without a C compiler (PATH holds only the venv)
#  13. versions: rank 0 logs with torch.utils.tensorboard, tensorboard not installed
#  14. healthy but noisy: the deprecated python -m torch.distributed.launch --use-env, NCCL_DEBUG=INFO
#      NCCL_DEBUG_SUBSYS=INIT,ENV,NET
# Calls: ZD_PART=1 timeout -k 5 120 bash tests/data/logs/h200-capture/run_zd.sh, then ZD_PART=2.
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
ZD_PART=${ZD_PART:-1}
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/logs" /tmp/zd/site /tmp/zd/ckpt /tmp/zd/logvol
export PYTHONPATH=/tmp/zd/site

cat > /tmp/zd/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None:
    os.environ.setdefault("NCCL_HOSTID", "node" + os.environ["RANK"])  # one "host" per rank
PY

cat > /tmp/zd/train.py <<'PY'
import datetime, os, socket, time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
mode = os.environ.get("MODE", "train")


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)


device = torch.device("cuda", 0)  # one GPU per node
torch.cuda.set_device(device)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group("nccl", timeout=timeout)
nccl = ".".join(map(str, torch.cuda.nccl.version()))
log(f"process group ready: world {world}, timeout {timeout}, torch {torch.__version__}, nccl {nccl}, host {socket.gethostname()}")

if mode == "sendsend":  # stage r sends its activations to the other stage, then receives
    act = torch.randn(64 * 1024 * 1024 // 4, device=device)
    buf = torch.empty_like(act)
    peer = 1 - rank
    log(f"sending {act.numel() * 4 >> 20} MiB of activations to rank {peer}")
    dist.send(act, peer)
    dist.recv(buf, peer)
    log(f"received from rank {peer}: {buf.sum().item():.3f}")
    dist.destroy_process_group()
    raise SystemExit(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
        self.aux_head = torch.nn.Linear(1024, 10)  # auxiliary classifier, only some configs use it

    def forward(self, x):
        h = self.body(x)
        if os.environ.get("USE_AUX", "1") == "1":
            return h + self.aux_head(h).mean(dim=-1, keepdim=True)
        return h


torch.manual_seed(0)
model = Net().to(device)
if mode == "unused":
    os.environ["USE_AUX"] = "0"
resume = os.environ.get("RESUME")
if resume:
    log(f"resuming from {resume}")
    state = torch.load(resume, map_location=device)
    model.load_state_dict(state["model"])
    log(f"resumed at step {state['step']}")
writer = None
if mode == "tb" and rank == 0:
    from torch.utils.tensorboard import SummaryWriter
    writer = SummaryWriter("/tmp/zd/tb")
ddp = DDP(model, device_ids=[0])
if mode == "compile":
    ddp = torch.compile(ddp)
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
steps = int(os.environ.get("STEPS", "6"))
if mode == "uneven":  # each rank iterates over its own shard; rank 1's shard is shorter
    steps = 6 if rank == 0 else 3
    log(f"data shard: {steps} batches")

for step in range(steps):
    x = torch.randn(64, 1024, device=device)
    loss = (ddp(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    log(f"step {step} loss {loss.item():.5f}")
    if writer is not None:
        writer.add_scalar("loss", loss.item(), step)

dist.barrier()
dist.destroy_process_group()
log("done")
PY
# a checkpoint that pickles the run's argparse.Namespace beside the weights (as many trainers do)
cat > /tmp/zd/save_ns.py <<'PY'
import argparse, torch
import sys
sys.argv = ["train.py"]
sys.path.insert(0, "/tmp/zd")
torch.manual_seed(0)
body = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
aux = torch.nn.Linear(1024, 10)
sd = {f"body.{k}": v for k, v in body.state_dict().items()}
sd.update({f"aux_head.{k}": v for k, v in aux.state_dict().items()})
args = argparse.Namespace(lr=1e-4, batch_size=64, steps=1000, out="/tmp/zd/ckpt")
torch.save({"model": sd, "step": 200, "args": args}, "/tmp/zd/ckpt/step_200.pt")
print("saved /tmp/zd/ckpt/step_200.pt")
PY

# netns_link.py PID_A PID_B: veth between the network namespaces of two processes (A gets
# 10.77.0.1/24, B 10.77.0.2/24, interface eth1 on both), lo up in both (as in run_zb.sh)
cat > /tmp/zd/netns_link.py <<'PY'
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

pid_a, pid_b = int(sys.argv[1]), int(sys.argv[2])
setns(pid_a)
make_veth("eth1", "eth1", pid_b)
up("lo"); set_addr("eth1", "10.77.0.1"); up("eth1")
setns(pid_b)
up("lo"); set_addr("eth1", "10.77.0.2"); up("eth1")
print(f"netns pair {pid_a} (10.77.0.1) <-> {pid_b} (10.77.0.2): ok")
PY
# inns.py PID CMD...: run CMD in the network namespace of PID
cat > /tmp/zd/inns.py <<'PY'
import ctypes, os, sys
fd = os.open(f"/proc/{sys.argv[1]}/ns/net", os.O_RDONLY)
if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
    raise OSError(ctypes.get_errno(), "setns")
os.close(fd)
os.execvp(sys.argv[2], sys.argv[2:])
PY

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
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
TR="torchrun --nproc_per_node 2"
T=/tmp/zd/train.py
HOLDERS=""

if [ "$ZD_PART" = 1 ]; then
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"
python3 -c "import tensorboard" 2>&1 | tail -n 1
echo "compilers: $(command -v gcc cc clang g++ | tr '\n' ' ') torchrun: $(command -v torchrun)"
ls /opt/amazon/efa /opt/aws-ofi-nccl 2>&1 | head -n 2; hostname

# 1. uneven inputs
job torchrun-nccl-ddp-uneven-inputs-pg-timeout-20s 75 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=20 MODE=uneven $TR --master_port 29701 $T" \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=20 MODE=uneven $TR --master_port 29701 $T &
J="$!"
# 2. AWS EFA settings without EFA or the OFI plugin
job torchrun-nccl-net-aws-libfabric-no-efa 60 \
  "NCCL_DEBUG=INFO FI_PROVIDER=efa FI_EFA_USE_DEVICE_RDMA=1 NCCL_NET_PLUGIN=ofi NCCL_NET=\"AWS Libfabric\" PG_TIMEOUT_S=30 $TR --master_port 29702 $T" \
  env NCCL_DEBUG=INFO FI_PROVIDER=efa FI_EFA_USE_DEVICE_RDMA=1 NCCL_NET_PLUGIN=ofi "NCCL_NET=AWS Libfabric" PG_TIMEOUT_S=30 $TR --master_port 29702 $T &
J="$J $!"
# 3. NCCL_COMM_ID on the TCPStore's own port
job torchrun-nccl-comm-id-on-master-port 60 \
  "NCCL_DEBUG=INFO NCCL_COMM_ID=127.0.0.1:29703 PG_TIMEOUT_S=30 $TR --master_addr 127.0.0.1 --master_port 29703 $T" \
  env NCCL_DEBUG=INFO NCCL_COMM_ID=127.0.0.1:29703 PG_TIMEOUT_S=30 $TR --master_addr 127.0.0.1 --master_port 29703 $T &
J="$J $!"
# 4. c10d rendezvous, the two nodes given different --rdzv_id
S="torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29704 --rdzv_conf join_timeout=30"
job2 2nodes-torchrun-c10d-rdzv-id-differs 75 \
  "NCCL_DEBUG=INFO $S --rdzv_id ft-run-4821 $T" \
  "NCCL_DEBUG=INFO $S --rdzv_id ft-run-4822 $T" \
  env NCCL_DEBUG=INFO $S --rdzv_id ft-run-4821 $T -- \
  env NCCL_DEBUG=INFO $S --rdzv_id ft-run-4822 $T &
J="$J $!"
# 5. NCCL_BUFFSIZE of 256 GiB
job torchrun-nccl-buffsize-256g 60 \
  "NCCL_DEBUG=INFO NCCL_BUFFSIZE=274877906944 PG_TIMEOUT_S=30 $TR --master_port 29705 $T" \
  env NCCL_DEBUG=INFO NCCL_BUFFSIZE=274877906944 PG_TIMEOUT_S=30 $TR --master_port 29705 $T &
J="$J $!"
# 6. --nproc_per_node gpu without GPUs
job torchrun-nproc-per-node-gpu-no-gpus 40 \
  "CUDA_VISIBLE_DEVICES= NCCL_DEBUG=INFO torchrun --nproc_per_node gpu --master_port 29706 $T" \
  env CUDA_VISIBLE_DEVICES= NCCL_DEBUG=INFO torchrun --nproc_per_node gpu --master_port 29706 $T &
J="$J $!"
# 7. a parameter unused in the loss
job torchrun-nccl-ddp-unused-parameter 60 \
  "NCCL_DEBUG=INFO MODE=unused PG_TIMEOUT_S=30 $TR --master_port 29707 $T" \
  env NCCL_DEBUG=INFO MODE=unused PG_TIMEOUT_S=30 $TR --master_port 29707 $T &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$ZD_PART" = 2 ]; then
python3 /tmp/zd/save_ns.py
VENV_BIN=$(dirname "$(command -v torchrun)")
# node 0 and node 1 /etc/hosts: node 1 keeps an old address for trainer-0
{ cat /etc/hosts; echo "10.77.0.1 trainer-0"; echo "10.77.0.2 trainer-1"; } > /tmp/zd/hosts0
{ cat /etc/hosts; echo "10.77.0.9 trainer-0"; echo "10.77.0.2 trainer-1"; } > /tmp/zd/hosts1
unshare -n sleep 300 > /dev/null 2>&1 &
NA=$!
unshare -n sleep 300 > /dev/null 2>&1 &
NB=$!
HOLDERS="$NA $NB"
sleep 0.5
python3 /tmp/zd/netns_link.py $NA $NB || echo "netns pair FAILED"

# 8. send/send deadlock
job torchrun-nccl-send-send-deadlock-pg-timeout-15s 70 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=15 MODE=sendsend $TR --master_port 29711 $T" \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=15 MODE=sendsend $TR --master_port 29711 $T &
J="$!"
# 9. node 1's /etc/hosts has a stale address for the master's name
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr trainer-0 --master_port 29712 --rdzv_conf timeout=30"
E="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1"
job2 2nodes-torchrun-node1-stale-etc-hosts-master 75 "$E $S --node_rank 0 $T" "$E $S --node_rank 1 $T" \
  unshare -m bash -c "mount --bind /tmp/zd/hosts0 /etc/hosts && exec python3 /tmp/zd/inns.py $NA env $E $S --node_rank 0 $T" -- \
  unshare -m bash -c "mount --bind /tmp/zd/hosts1 /etc/hosts && getent hosts trainer-0 > /tmp/zd/node1-getent.txt; exec python3 /tmp/zd/inns.py $NB env $E $S --node_rank 1 $T" &
J="$J $!"
# 10. --log-dir on a full volume
cat > /tmp/zd/full_logvol.sh <<'SH'
mount -t tmpfs -o size=1m,nr_inodes=32 tmpfs /tmp/zd/logvol || exit 3
mkdir -p /tmp/zd/logvol/torchrun
i=0; while touch /tmp/zd/logvol/old-run-$i.log 2>/dev/null; do i=$((i+1)); done
dd if=/dev/zero of=/tmp/zd/logvol/old-run-0.log bs=64k count=32 2>/dev/null
echo "log volume: $i files, $(df -h /tmp/zd/logvol | tail -n 1)" > /tmp/zd/logvol-check.txt
exec "$@"
SH
job torchrun-log-dir-volume-full 40 \
  "NCCL_DEBUG=INFO $TR --log-dir /tmp/zd/logvol/torchrun --tee 3 --master_port 29713 $T" \
  unshare -m bash /tmp/zd/full_logvol.sh env NCCL_DEBUG=INFO $TR --log-dir /tmp/zd/logvol/torchrun --tee 3 --master_port 29713 $T &
J="$J $!"
# 11. torch.load weights_only default vs a pickled argparse.Namespace
job torchrun-nccl-resume-weights-only-namespace 60 \
  "NCCL_DEBUG=INFO RESUME=/tmp/zd/ckpt/step_200.pt PG_TIMEOUT_S=30 $TR --master_port 29714 $T" \
  env NCCL_DEBUG=INFO RESUME=/tmp/zd/ckpt/step_200.pt PG_TIMEOUT_S=30 $TR --master_port 29714 $T &
J="$J $!"
# 12. torch.compile without a C compiler
job torchrun-nccl-compile-no-c-compiler 90 \
  "PATH=$VENV_BIN NCCL_DEBUG=INFO MODE=compile PG_TIMEOUT_S=60 $TR --master_port 29715 $T" \
  env PATH=$VENV_BIN TRITON_CACHE_DIR=/tmp/zd/triton-cache TORCHINDUCTOR_CACHE_DIR=/tmp/zd/inductor-cache NCCL_DEBUG=INFO MODE=compile PG_TIMEOUT_S=60 $TR --master_port 29715 $T &
J="$J $!"
# 13. tensorboard not installed
job torchrun-nccl-tensorboard-not-installed 60 \
  "NCCL_DEBUG=INFO MODE=tb PG_TIMEOUT_S=30 $TR --master_port 29716 $T" \
  env NCCL_DEBUG=INFO MODE=tb PG_TIMEOUT_S=30 $TR --master_port 29716 $T &
J="$J $!"
# 14. healthy: deprecated launcher, NCCL INFO
job torch-distributed-launch-use-env-nccl-info-ok 60 \
  "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET python3 -m torch.distributed.launch --use-env --nproc_per_node 2 --master_port 29717 $T" \
  env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET python3 -m torch.distributed.launch --use-env --nproc_per_node 2 --master_port 29717 $T &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
echo "node 1 getent trainer-0: $(cat /tmp/zd/node1-getent.txt 2>/dev/null)"
echo "$(cat /tmp/zd/logvol-check.txt 2>/dev/null)"
fi
for p in $HOLDERS; do kill "$p" 2>/dev/null; done
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
