#!/usr/bin/env bash
# Capture run ZF (session 9, collector Z47): a blind batch, torch only (no vLLM, nothing staged,
# no carry), torch 2.11.0+cu130 (NCCL 2.28.9) already on the machine. Every job is a small
# training script (/tmp/zf/train.py, behaviour picked by MODE) under torchrun. Ranks on the one
# GPU are separate "hosts" for NCCL (NCCL_HOSTID per rank, set by a sitecustomize on PYTHONPATH,
# so that it does not show in the output). Two-"node" jobs of part 2 run each node in a network
# namespace of its own joined by a veth pair (made with netlink from Python as in run_zd.sh).
# Each log starts with the command(s) as typed ("$ ...").
# ZF_PART=1, in parallel:
#   1. communication: two torchrun "nodes", node 1 has NCCL_PROTO=Simple left in its environment,
#      node 0 the default protocols; 20 s process-group timeout, NCCL_DEBUG=INFO
#   2. visibility: the script sets CUDA_VISIBLE_DEVICES=$LOCAL_RANK itself (a one-GPU-per-process
#      recipe) on a node with one GPU, 2 ranks
#   3. versions: a JIT CUDA extension (load_inline) with CUDA_HOME left at /usr/local/cuda-12.4
#      (not installed on this node), 2 ranks
#   4. other: resume from a checkpoint that is a git-lfs pointer (repository cloned without git-lfs)
#   5. other: resume from a checkpoint saved with another model width (ffn 8192 vs 4096)
#   6. network: `python3 train.py` started directly instead of through torchrun (no RANK/MASTER_ADDR)
# ZF_PART=2 (same warm machine), in parallel:
#   7. communication: two "nodes" (netns + veth eth1), each with a libvirt/docker-style bridge
#      br-5d1c7a9e3f21 172.18.0.1/16 created before eth1; NCCL_SOCKET_IFNAME unset, NCCL_DEBUG=INFO
#   8. network: two "nodes", node 1's eth1 configured as 10.78.0.2/24 (typo; master 10.77.0.1)
#   9. network: node 0 `--nnodes 2`, node 1 `--nnodes 3` (static rendezvous, 127.0.0.1)
#  10. resources: torch.distributed.checkpoint save onto a full 4 MiB volume
#  11. healthy but noisy: NCCL_DEBUG=INFO, TORCH_DISTRIBUTED_DEBUG=INFO, TORCH_CPP_LOG_LEVEL=INFO,
#      NCCL_NET_PLUGIN naming a plugin that is not installed
# Calls: ZF_PART=1 timeout -k 5 150 bash tests/data/logs/h200-capture/run_zf.sh, then ZF_PART=2.
set -u
set -m
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
ZF_PART=${ZF_PART:-1}
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/logs" /tmp/zf/site /tmp/zf/ckpt /tmp/zf/ckptvol /tmp/zf/ext
export PYTHONPATH=/tmp/zf/site

cat > /tmp/zf/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None:
    os.environ.setdefault("NCCL_HOSTID", "node" + os.environ["RANK"])  # one "host" per rank
PY

cat > /tmp/zf/train.py <<'PY'
import datetime, os, socket, time
mode = os.environ.get("MODE", "train")
if mode == "one_gpu_per_proc":  # pin this process to "its" GPU before CUDA starts
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ.get("LOCAL_RANK", "0")
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ.get("RANK", "0"))
FFN = int(os.environ.get("FFN", "4096"))


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)


log(f"starting: host {socket.gethostname()}, CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '<unset>')}")
device = torch.device("cuda", 0)  # one GPU per node (or per process)
torch.cuda.set_device(device)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group("nccl", timeout=timeout)
world = dist.get_world_size()
nccl = ".".join(map(str, torch.cuda.nccl.version()))
log(f"process group ready: world {world}, timeout {timeout}, torch {torch.__version__}, nccl {nccl}")

if mode == "ext":
    from torch.utils.cpp_extension import load_inline
    cuda_src = r"""
#include <torch/extension.h>
__global__ void gelu_k(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))); }
}
torch::Tensor fused_gelu(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  gelu_k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
    log("building the fused_gelu extension")
    ext = load_inline(name=f"fused_gelu_r{rank}", cpp_sources="torch::Tensor fused_gelu(torch::Tensor x);",
                      cuda_sources=cuda_src, functions=["fused_gelu"], verbose=True)
    log("extension loaded")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(1024, FFN), torch.nn.GELU(), torch.nn.Linear(FFN, 1024))

    def forward(self, x):
        return self.body(x)


torch.manual_seed(0)
model = Net().to(device)
resume = os.environ.get("RESUME")
if resume:
    log(f"resuming from {resume}")
    state = torch.load(resume, map_location=device)
    model.load_state_dict(state["model"])
    log(f"resumed at step {state['step']}")
ddp = DDP(model, device_ids=[0])
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
steps = int(os.environ.get("STEPS", "6"))
for step in range(steps):
    x = torch.randn(64, 1024, device=device)
    loss = (ddp(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    log(f"step {step} loss {loss.item():.5f}")

ckpt = os.environ.get("CKPT_DIR")
if ckpt:
    import torch.distributed.checkpoint as dcp
    path = os.path.join(ckpt, f"step_{steps}")
    log(f"saving distributed checkpoint to {path}")
    dcp.save({"model": model.state_dict(), "optim": opt.state_dict()}, checkpoint_id=path)
    log("checkpoint saved")
dist.barrier()
dist.destroy_process_group()
log("done")
PY

cat > /tmp/zf/make_ckpts.py <<'PY'
import torch
torch.manual_seed(0)
ffn = 8192  # the run that wrote it used --ffn 8192
body = torch.nn.Sequential(torch.nn.Linear(1024, ffn), torch.nn.GELU(), torch.nn.Linear(ffn, 1024))
torch.save({"model": {f"body.{k}": v for k, v in body.state_dict().items()}, "step": 200}, "/tmp/zf/ckpt/ffn8192_step_200.pt")
with open("/tmp/zf/ckpt/step_1000.pt", "w") as f:  # what `git clone` without git-lfs leaves
    f.write("version https://git-lfs.github.com/spec/v1\n"
            "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
            "size 33562738\n")
print("checkpoints written:", sorted(__import__("os").listdir("/tmp/zf/ckpt")))
PY

# netns_link.py PID_A PID_B ADDR_A ADDR_B [bridge]: veth eth1 between the network namespaces of
# two processes, lo up in both; with "bridge", first a veth pair br-5d1c7a9e3f21/veth3a9f0c1 inside
# each namespace with 172.18.0.1/16 on br-5d1c7a9e3f21 (as docker/libvirt leave on every host)
cat > /tmp/zf/netns_link.py <<'PY'
import ctypes, fcntl, os, socket, struct, sys

def setns(pid):
    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)

def up(name):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", name.encode(), 0x1 | 0x40))

def set_addr(name, addr, mask="255.255.255.0"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for req, a in ((0x8916, addr), (0x891C, mask)):
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
    if struct.unpack("H", r[4:6])[0] == 2:
        err = struct.unpack("i", r[16:20])[0]
        if err != 0:
            raise OSError(-err, "veth: " + os.strerror(-err))

pid_a, pid_b, addr_a, addr_b = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
bridge = len(sys.argv) > 5 and sys.argv[5] == "bridge"
if bridge:
    for pid in (pid_a, pid_b):
        setns(pid)
        make_veth("br-5d1c7a9e3f21", "veth3a9f0c1", pid)
        set_addr("br-5d1c7a9e3f21", "172.18.0.1", "255.255.0.0")
        up("br-5d1c7a9e3f21"); up("veth3a9f0c1")
setns(pid_a)
make_veth("eth1", "eth1", pid_b)
up("lo"); set_addr("eth1", addr_a); up("eth1")
setns(pid_b)
up("lo"); set_addr("eth1", addr_b); up("eth1")
print(f"netns pair {pid_a} ({addr_a}) <-> {pid_b} ({addr_b}){' with bridges' if bridge else ''}: ok")
PY
cat > /tmp/zf/inns.py <<'PY'
import ctypes, os, sys
fd = os.open(f"/proc/{sys.argv[1]}/ns/net", os.O_RDONLY)
if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
    raise OSError(ctypes.get_errno(), "setns")
os.close(fd)
os.execvp(sys.argv[2], sys.argv[2:])
PY

job() {
  local name=$1 limit=$2 shown=$3; shift 3
  local log="$OUT/logs/$name.log" t0=$SECONDS
  echo "== $name: $shown"
  { echo "\$ $shown"; timeout -s INT -k 10 "$limit" "$@"; } > "$log" 2>&1
  local rc=$?
  echo "   $name rc $rc  wall $((SECONDS - t0)) s  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-220
}
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
T=/tmp/zf/train.py
HOLDERS=""

if [ "$ZF_PART" = 1 ]; then
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())"
ls -d /usr/local/cuda* 2>&1 | tr '\n' ' '; echo; command -v nvcc ninja; hostname
python3 /tmp/zf/make_ckpts.py

# 1. node 1 with NCCL_PROTO=Simple, node 0 default
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 127.0.0.1 --master_port 29721"
job2 2nodes-torchrun-nccl-proto-simple-on-node1-only 75 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=20 $S --node_rank 0 $T" \
  "NCCL_DEBUG=INFO NCCL_PROTO=Simple PG_TIMEOUT_S=20 $S --node_rank 1 $T" \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=20 $S --node_rank 0 $T -- \
  env NCCL_DEBUG=INFO NCCL_PROTO=Simple PG_TIMEOUT_S=20 $S --node_rank 1 $T &
J="$!"
# 2. CUDA_VISIBLE_DEVICES=$LOCAL_RANK set by the script on a one-GPU node
job torchrun-nccl-script-sets-cuda-visible-devices-local-rank 50 \
  "NCCL_DEBUG=INFO MODE=one_gpu_per_proc PG_TIMEOUT_S=30 $TR --master_port 29722 $T" \
  env NCCL_DEBUG=INFO MODE=one_gpu_per_proc PG_TIMEOUT_S=30 $TR --master_port 29722 $T &
J="$J $!"
# 3. CUDA_HOME at a CUDA toolkit that is not installed
job torchrun-nccl-load-inline-cuda-home-12.4-missing 100 \
  "CUDA_HOME=/usr/local/cuda-12.4 TORCH_EXTENSIONS_DIR=/tmp/zf/ext NCCL_DEBUG=INFO MODE=ext PG_TIMEOUT_S=90 $TR --master_port 29723 $T" \
  env CUDA_HOME=/usr/local/cuda-12.4 TORCH_EXTENSIONS_DIR=/tmp/zf/ext MAX_JOBS=8 NCCL_DEBUG=INFO MODE=ext PG_TIMEOUT_S=90 $TR --master_port 29723 $T &
J="$J $!"
# 4. checkpoint is a git-lfs pointer
job torchrun-nccl-resume-git-lfs-pointer-checkpoint 50 \
  "NCCL_DEBUG=INFO RESUME=/tmp/zf/ckpt/step_1000.pt PG_TIMEOUT_S=30 $TR --master_port 29724 $T" \
  env NCCL_DEBUG=INFO RESUME=/tmp/zf/ckpt/step_1000.pt PG_TIMEOUT_S=30 $TR --master_port 29724 $T &
J="$J $!"
# 5. checkpoint from a wider model
job torchrun-nccl-resume-checkpoint-ffn-8192-model-4096 50 \
  "NCCL_DEBUG=INFO RESUME=/tmp/zf/ckpt/ffn8192_step_200.pt PG_TIMEOUT_S=30 $TR --master_port 29725 $T" \
  env NCCL_DEBUG=INFO RESUME=/tmp/zf/ckpt/ffn8192_step_200.pt PG_TIMEOUT_S=30 $TR --master_port 29725 $T &
J="$J $!"
# 6. started with python3 instead of torchrun
job python-train-without-torchrun-env-unset 40 \
  "NCCL_DEBUG=INFO python3 $T" \
  env NCCL_DEBUG=INFO python3 $T &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$ZF_PART" = 2 ]; then
unshare -n sleep 300 > /dev/null 2>&1 &
NA=$!
unshare -n sleep 300 > /dev/null 2>&1 &
NB=$!
unshare -n sleep 300 > /dev/null 2>&1 &
NC=$!
unshare -n sleep 300 > /dev/null 2>&1 &
ND=$!
HOLDERS="$NA $NB $NC $ND"
sleep 0.5
python3 /tmp/zf/netns_link.py $NA $NB 10.77.0.1 10.77.0.2 bridge || echo "netns pair 1 FAILED"
python3 /tmp/zf/netns_link.py $NC $ND 10.77.0.1 10.78.0.2 || echo "netns pair 2 FAILED"

# 7. a bridge with the same address on both nodes, NCCL picks its interface itself
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29731"
job2 2nodes-torchrun-nccl-autoselects-bridge-172.18.0.1 95 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 0 $T" \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 1 $T" \
  python3 /tmp/zf/inns.py $NA env NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 0 $T -- \
  python3 /tmp/zf/inns.py $NB env NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $S --node_rank 1 $T &
J="$!"
# 8. node 1's address in the wrong subnet
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29732 --rdzv_conf timeout=30"
job2 2nodes-torchrun-node1-eth1-wrong-subnet-10.78 75 \
  "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 $S --node_rank 0 $T" \
  "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 $S --node_rank 1 $T" \
  python3 /tmp/zf/inns.py $NC env NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 $S --node_rank 0 $T -- \
  python3 /tmp/zf/inns.py $ND env NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 $S --node_rank 1 $T &
J="$J $!"
# 9. --nnodes differs between the nodes
S="--nproc_per_node 1 --master_addr 127.0.0.1 --master_port 29733 --rdzv_conf timeout=30"
job2 2nodes-torchrun-nnodes-2-vs-3 75 \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 torchrun --nnodes 2 --node_rank 0 $S $T" \
  "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 torchrun --nnodes 3 --node_rank 1 $S $T" \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=30 torchrun --nnodes 2 --node_rank 0 $S $T -- \
  env NCCL_DEBUG=INFO PG_TIMEOUT_S=30 torchrun --nnodes 3 --node_rank 1 $S $T &
J="$J $!"
# 10. distributed checkpoint onto a full volume
cat > /tmp/zf/full_ckptvol.sh <<'SH'
mount -t tmpfs -o size=4m tmpfs /tmp/zf/ckptvol || exit 3
dd if=/dev/zero of=/tmp/zf/ckptvol/old-step_3.distcp bs=64k count=60 2>/dev/null
echo "ckpt volume: $(df -h /tmp/zf/ckptvol | tail -n 1)" > /tmp/zf/ckptvol-check.txt
exec "$@"
SH
job torchrun-nccl-dcp-save-volume-full 60 \
  "NCCL_DEBUG=INFO CKPT_DIR=/tmp/zf/ckptvol PG_TIMEOUT_S=30 $TR --master_port 29734 $T" \
  unshare -m bash /tmp/zf/full_ckptvol.sh env NCCL_DEBUG=INFO CKPT_DIR=/tmp/zf/ckptvol PG_TIMEOUT_S=30 $TR --master_port 29734 $T &
J="$J $!"
# 11. healthy, noisy
job torchrun-nccl-info-cpp-log-missing-net-plugin-ok 60 \
  "NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO NCCL_NET_PLUGIN=gcpfastrak $TR --master_port 29735 $T" \
  env NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=INFO TORCH_CPP_LOG_LEVEL=INFO NCCL_NET_PLUGIN=gcpfastrak $TR --master_port 29735 $T &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
echo "$(cat /tmp/zf/ckptvol-check.txt 2>/dev/null)"
fi
for p in $HOLDERS; do kill "$p" 2>/dev/null; done
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
