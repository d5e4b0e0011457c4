#!/usr/bin/env bash
# Z66 capture run ZM: faults made on purpose on the H200 (vLLM 0.26.0, Ray 2.52.1, torch 2.11 / NCCL 2.28.9).
# Call (after p00..p06 and ray r0 were copied to /tmp/stage/ by earlier calls; p07 and r1 carried in this call):
#   timeout -k 5 585 bash .device/Z66/run_zm.sh 2>&1 | tee $OUT/run_zm.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
Z=/tmp/z66
mkdir -p $Z "$OUT/logs" /tmp/stage
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }

# ---------------------------------------------------------------- install vLLM + Ray (background)
(
  cp .device/stage/parts/p07 /tmp/stage/p07; cp .device/stage/ray/r1 /tmp/stage/r1
  ls -la /tmp/stage
  cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  W=/tmp/wx/whl/ray-2.52.1-cp312-cp312-manylinux2014_x86_64.whl
  cat /tmp/stage/r0 /tmp/stage/r1 > $W
  echo "843c0108ad72bb7fc6c23a22e29e6099546a5eaad3ad675c78a146d9080f6ec6  $W" | sha256sum -c || exit 3
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl || exit 4
  echo "install ok"
) > $Z/install.out 2>&1 &
INST=$!

python3 - > $Z/prep.out 2>&1 <<'PY'
import json, os
def cfg(d, c):
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=512, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2)
cfg("/tmp/z66/tiny", TINY)
L8 = dict(TINY); L8.update(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                           num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0)
cfg("/tmp/z66/llama3-8b-shape", L8)
print("models written")
PY
cat $Z/prep.out

mkdir -p $Z/site
cat > $Z/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None and os.environ.get("Z66_HOSTID_PER_RANK") == "1":
    os.environ.setdefault("NCCL_HOSTID", "node" + os.environ["RANK"])  # one "host" per rank
PY

cat > $Z/train.py <<'PY'
import datetime, os, socket, time
import torch
import torch.distributed as dist
rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
device = torch.device("cuda", 0)
torch.cuda.set_device(device)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group("nccl", timeout=timeout, device_id=device)
log(f"process group ready: world {world}, torch {torch.__version__}, nccl {torch.cuda.nccl.version()}, host {socket.gethostname()}")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(int(os.environ.get("STEPS", "6"))):
    x = torch.randn(64, 1024, device=device)
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad(); loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad); p.grad /= world
    opt.step()
    m = loss.detach().clone(); dist.all_reduce(m)
    if rank == 0:
        log(f"step {step} loss {m.item() / world:.5f}")
if os.environ.get("CKPT_SLEEP"):
    if rank == world - 1:
        log("saving checkpoint shard")
        time.sleep(float(os.environ["CKPT_SLEEP"]))
        torch.save(model.state_dict(), f"/tmp/z66/ckpt-rank{rank}.pt")
        log("checkpoint shard saved")
log("done")
if os.environ.get("NO_DESTROY") != "1":
    dist.destroy_process_group()
PY

# netns.py veth PID_A NAME_A ADDR_A PID_B NAME_B ADDR_B   (ADDR "-" = none); lo up in both
cat > $Z/netns.py <<'PY'
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
    s.bind((0, 0)); s.send(msg); r = s.recv(4096)
    if struct.unpack("H", r[4:6])[0] == 2:
        err = struct.unpack("i", r[16:20])[0]
        if err != 0:
            raise OSError(-err, "veth: " + os.strerror(-err))
def sin(addr):
    return struct.pack("H2s4s8x", socket.AF_INET, b"\0\0", socket.inet_aton(addr))
def default_route(gw):  # struct rtentry (x86_64), SIOCADDRT, RTF_UP | RTF_GATEWAY
    rt = struct.pack("L16s16s16sHhxxxxLPhxxxxxxPLLHxxxxxx", 0, sin("0.0.0.0"), sin(gw), sin("0.0.0.0"),
                     0x1 | 0x2, 0, 0, 0, 0, 0, 0, 0, 0)
    fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x890B, rt)
_, _, pa, na, aa, pb, nb, ab = sys.argv
setns(int(pa)); make_veth(na, nb, int(pb)); up("lo")
if aa != "-": set_addr(na, aa)
up(na)
if aa != "-" and ab != "-": default_route(ab)
setns(int(pb)); up("lo")
if ab != "-": set_addr(nb, ab)
up(nb)
if aa != "-" and ab != "-": default_route(aa)
print(f"veth {pa}:{na} ({aa}) <-> {pb}:{nb} ({ab}) ok")
PY

cat > $Z/client.py <<'PY'
import json, sys, time, urllib.request, urllib.error
import os
port, wait, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
spid = int(sys.argv[4]) if len(sys.argv) > 4 else 0
B = f"http://127.0.0.1:{port}"
ok = False
for i in range(wait):
    if spid:
        try:
            os.kill(spid, 0)
        except OSError:
            break
    try:
        urllib.request.urlopen(B + "/health", timeout=2); ok = True; break
    except Exception:
        time.sleep(1)
print(f"   [client] server on {port} healthy: {ok} after {i} s", flush=True)
if not ok:
    sys.exit(0)
for body in ({"model": model, "prompt": [1, 2, 3, 4, 5, 6, 7, 8], "max_tokens": 16},
             {"model": model, "prompt": [9, 10, 11, 12], "max_tokens": 8, "temperature": 0.7}):
    req = urllib.request.Request(B + "/v1/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        r = urllib.request.urlopen(req, timeout=60)
        print(f"   [client] /v1/completions {r.status} {r.read()[:200]!r}", flush=True)
    except urllib.error.HTTPError as e:
        print(f"   [client] /v1/completions {e.code} {e.read()[:300]!r}", flush=True)
    except Exception as e:
        print(f"   [client] /v1/completions failed: {e!r}", flush=True)
time.sleep(2)
PY

# another job on the GPU: holds GIB GiB, frees it (exits) once the vLLM log shows the weights were loaded
cat > $Z/holder.py <<'PY'
import os, sys, time, torch
gib, logf = float(sys.argv[1]), sys.argv[2]
x = torch.empty(int(gib * 2**30), dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print(f"[holder pid {os.getpid()}] holding {gib:.0f} GiB on cuda:0", flush=True)
open("/tmp/z66/holder.ready", "w").close()
t0 = time.time()
while time.time() - t0 < 150:
    try:
        if "Model loading took" in open(logf, errors="replace").read():
            break
    except FileNotFoundError:
        pass
    time.sleep(0.2)
time.sleep(1)
del x
torch.cuda.empty_cache()
print(f"[holder pid {os.getpid()}] job finished, {gib:.0f} GiB released", flush=True)
PY

VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager"
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
ROS="--object-store-memory=2000000000"
NSX="nsenter -n -m -t"
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 4 "$OUT/logs/$1.log" | cut -c1-220 | sed 's/^/      /'; }
job() {  # job NAME LIMIT SHOWN CMD...
  local name=$1 limit=$2 shown=$3; shift 3
  echo "== $name: $shown"
  echo "\$ $shown" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" "$@" >> "$OUT/logs/$name.log" 2>&1
  fin $name $?
}
# nodepair NET [SHM]: two "nodes" (network + mount namespaces, each its own /tmp/ray, optional /dev/shm size) on a veth; sets NA NB
nodepair() {
  local n=$1 shm=${2:-}
  mkdir -p /tmp/ray $Z/ray-${n}a $Z/ray-${n}b
  local extra=""; [ -n "$shm" ] && extra="&& mount -t tmpfs -o size=$shm tmpfs /dev/shm"
  unshare -n -m sh -c "mount --bind $Z/ray-${n}a /tmp/ray $extra && exec sleep 560" > /dev/null 2>&1 &
  NA=$!
  unshare -n -m sh -c "mount --bind $Z/ray-${n}b /tmp/ray && exec sleep 560" > /dev/null 2>&1 &
  NB=$!
  sleep 0.4
  python3 $Z/netns.py veth $NA eth1 10.77.$n.1 $NB eth1 10.77.$n.2
  HOLDERS="$HOLDERS $NA $NB"
}
killns() {  # kill every process in the network namespaces of the holders given
  local h ns d p
  for h in "$@"; do
    ns=$(readlink /proc/$h/ns/net) || continue
    for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$h" ] && continue
      [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null; done
  done
}
HOLDERS=""

wait $INST; cat $Z/install.out | tail -n 3
[ -d /tmp/site/vllm ] && [ -d /tmp/site/ray ] || { echo "not installed"; exit 5; }
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch, vllm, ray; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'vllm', vllm.__version__, 'ray', ray.__version__)" 2>&1 | tail -n 1
python3 -c "import opentelemetry.exporter.otlp" 2>&1 | tail -n 1
cat /sys/fs/cgroup/cgroup.subtree_control
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo +pids > /sys/fs/cgroup/cgroup.subtree_control

# ================================================================ phase A
ts "phase A"
J=""
# A1 network: TP 2 over two nodes; node 1's --master-addr is the leader's k8s headless-service DNS name, unresolvable from node 1
( name=h200-vllm026-2nodes-tp2-node1-master-addr-k8s-headless-svc-unresolvable; log=$OUT/logs/$name.log
  C="$VS /tmp/z66/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --master-port 31901"
  H=vllm-leader-0.vllm-leader.inference.svc.cluster.local
  echo "== $name"
  { echo "# node 1: \$ vllm serve /tmp/z66/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr $H --master-port 31901 --headless"
    echo "# node 0: \$ vllm serve /tmp/z66/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 31901 --port 8911"; } > $log
  NCCL_HOSTID=node1 timeout -s INT -k 10 120 $C --node-rank 1 --master-addr $H --headless >> $log 2>&1 &
  p1=$!; sleep 1
  NCCL_HOSTID=node0 timeout -s INT -k 10 120 $C --node-rank 0 --master-addr 127.0.0.1 --port 8911 >> $log 2>&1 &
  p0=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# A2 network: TP 2 over two nodes (10.77.9.1 / 10.77.9.2); node 0 started with VLLM_HOST_IP=10.77.9.2 (node 1's address)
nodepair 9; N9A=$NA; N9B=$NB
( name=h200-vllm026-2nodes-tp2-node0-vllm-host-ip-of-node1; log=$OUT/logs/$name.log
  C="$VS /tmp/z66/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --master-addr 10.77.9.1 --master-port 31909"
  echo "== $name"
  { echo "# node 1 (10.77.9.2): \$ VLLM_HOST_IP=10.77.9.2 vllm serve /tmp/z66/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 10.77.9.1 --master-port 31909 --headless"
    echo "# node 0 (10.77.9.1): \$ VLLM_HOST_IP=10.77.9.2 vllm serve /tmp/z66/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 10.77.9.1 --master-port 31909 --port 8912"; } > $log
  $NSX $N9B env NCCL_HOSTID=node1 VLLM_HOST_IP=10.77.9.2 timeout -s INT -k 10 120 $C --node-rank 1 --headless >> $log 2>&1 &
  p1=$!; sleep 1
  $NSX $N9A env NCCL_HOSTID=node0 VLLM_HOST_IP=10.77.9.2 timeout -s INT -k 10 120 $C --node-rank 0 --port 8912 >> $log 2>&1 &
  p0=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# A3 versions: tracing to an OTLP collector, image without the OTLP exporter package
( job h200-vllm026-otlp-traces-endpoint-exporter-not-installed 90 \
    "vllm serve /tmp/z66/tiny $TA $GMU --port 8913 --otlp-traces-endpoint http://otel-collector.observability:4317" \
    $VS /tmp/z66/tiny $TA $GMU --port 8913 --otlp-traces-endpoint http://otel-collector.observability:4317 ) &
J="$J $!"
# A4 versions: libnccl.so.2 of the nvidia-nccl wheel cut short (an interrupted image layer / pip install), torchrun
NL=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib', 'libnccl.so.2'))")
ls -la $NL
head -c $(( $(stat -L -c %s $NL) * 30 / 100 )) $NL > $Z/libnccl-cut.so.2
( job h200-torchrun-nccl-libnccl-so-2-truncated-copy 90 \
    "NCCL_DEBUG=INFO torchrun --nproc_per_node 1 --master_port 29921 train.py   # $NL cut to 30 %" \
    unshare -m sh -c "mount --bind $Z/libnccl-cut.so.2 $NL && exec env NCCL_DEBUG=INFO torchrun --nproc_per_node 1 --master_port 29921 $Z/train.py" ) &
J="$J $!"
# A5 resources: torchrun 2 ranks NCCL in a cgroup with a low pids.max (container --pids-limit); three limits, one kept
for PM in 40 56 72; do
  ( CG=/sys/fs/cgroup/z66_pids$PM; mkdir -p $CG; echo $PM > $CG/pids.max
    echo $BASHPID > $CG/cgroup.procs
    export PYTHONPATH=$Z/site:$PYTHONPATH Z66_HOSTID_PER_RANK=1
    job h200-torchrun-nccl-pids-max-$PM 100 \
      "NCCL_DEBUG=INFO PG_TIMEOUT_S=30 torchrun --nproc_per_node 2 --master_port 2993${PM:0:1} train.py   # container pids limit $PM" \
      env NCCL_DEBUG=INFO PG_TIMEOUT_S=30 torchrun --nproc_per_node 2 --master_port 2993${PM:0:1} $Z/train.py
    echo "   pids.events $PM: $(cat $CG/pids.events | tr '\n' ' ') peak $(cat $CG/pids.peak 2>/dev/null)" ) &
  J="$J $!"
done
# A6 healthy: two nodes, NCCL INFO, no destroy_process_group, last rank saves a checkpoint 8 s after the others finished
nodepair 6; N6A=$NA; N6B=$NB
( name=h200-2nodes-torchrun-nccl-no-destroy-process-group-slow-checkpoint-ok; log=$OUT/logs/$name.log
  S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.6.1 --master_port 29926"
  E="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth1 NO_DESTROY=1 CKPT_SLEEP=8"
  echo "== $name"
  { echo "# node 0 (10.77.6.1): \$ $E $S --node_rank 0 train.py"; echo "# node 1 (10.77.6.2): \$ $E $S --node_rank 1 train.py"; } > $log
  $NSX $N6A env NCCL_HOSTID=node0 $E timeout -s INT -k 10 100 $S --node_rank 0 $Z/train.py >> $log 2>&1 &
  p0=$!; sleep 1
  $NSX $N6B env NCCL_HOSTID=node1 $E timeout -s INT -k 10 100 $S --node_rank 1 $Z/train.py >> $log 2>&1 &
  p1=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# A7 network: Ray worker node joins the head at the wrong GCS port (6380; the head listens on 6379)
nodepair 7; N7A=$NA; N7B=$NB
( name=h200-ray-worker-joins-head-at-wrong-gcs-port-6380; log=$OUT/logs/$name.log
  echo "== $name"
  echo "# node 0 (10.77.7.1): \$ ray start --head --port=6379 --num-cpus=2 --num-gpus=1 $ROS" > $log
  $NSX $N7A env NCCL_HOSTID=node0 timeout 60 ray start --head --port=6379 --num-cpus=2 --num-gpus=1 $ROS >> $log 2>&1
  echo "# node 1 (10.77.7.2): \$ ray start --address=10.77.7.1:6380 --num-cpus=2 $ROS" >> $log
  $NSX $N7B env NCCL_HOSTID=node1 timeout -s INT -k 10 100 ray start --address=10.77.7.1:6380 --num-cpus=2 $ROS >> $log 2>&1
  r1=$?
  echo "# node 0: \$ ray status" >> $log
  $NSX $N7A env RAY_ADDRESS=10.77.7.1:6379 timeout 30 ray status >> $log 2>&1
  fin $name "worker $r1" ) &
J="$J $!"
sleep 45; ts "GPU apps at 45 s: $(gpu_apps)"
wait $J
ts "phase A done; GPU apps: $(gpu_apps)"
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
killns $N9A $N9B $N6A $N6B $N7A $N7B
sleep 2

# ================================================================ phase B
ts "phase B"
J=""
# B1 resources: --cpu-offload-gb 16 (Llama-3-8B shape) in a cgroup with memory.max 8G, no swap
( CG=/sys/fs/cgroup/z66_mem; mkdir -p $CG; echo 8G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  echo $BASHPID > $CG/cgroup.procs
  job h200-vllm026-cpu-offload-gb-16-memory-limit-8g 150 \
    "vllm serve /tmp/z66/llama3-8b-shape $TA --gpu-memory-utilization 0.3 --kv-cache-memory-bytes 2G --max-model-len 4096 --cpu-offload-gb 16 --port 8915   # container memory limit 8 GiB" \
    $VS /tmp/z66/llama3-8b-shape $TA --gpu-memory-utilization 0.3 --kv-cache-memory-bytes 2G --max-model-len 4096 --cpu-offload-gb 16 --port 8915
  echo "   memory.events: $(cat $CG/memory.events | tr '\n' ' ') peak $(cat $CG/memory.peak 2>/dev/null)" ) &
J="$J $!"
# B2 visibility: one-GPU Ray head, VLLM_RAY_BUNDLE_INDICES=1 (left from a 2-GPU launcher config), TP 1 on Ray
nodepair 12; N12A=$NA; N12B=$NB
( name=h200-vllm026-ray-bundle-indices-1-on-1-gpu-cluster; log=$OUT/logs/$name.log
  echo "== $name"
  echo "\$ ray start --head --port=6379 --num-cpus=4 --num-gpus=1 $ROS" > $log
  $NSX $N12A timeout 60 ray start --head --port=6379 --num-cpus=4 --num-gpus=1 $ROS >> $log 2>&1
  echo "\$ RAY_ADDRESS=10.77.12.1:6379 VLLM_RAY_BUNDLE_INDICES=1 vllm serve /tmp/z66/tiny $TA $GMU --distributed-executor-backend ray --port 8916" >> $log
  $NSX $N12A env RAY_ADDRESS=10.77.12.1:6379 VLLM_RAY_BUNDLE_INDICES=1 timeout -s INT -k 10 130 $VS /tmp/z66/tiny $TA $GMU \
    --distributed-executor-backend ray --port 8916 >> $log 2>&1
  fin $name $? ) &
J="$J $!"
# B3 healthy: one-GPU Ray head whose /dev/shm (512 MiB) is smaller than the object store (2 GB), TP 1 on Ray, two requests, SIGINT
nodepair 13 512m; N13A=$NA; N13B=$NB
( name=h200-vllm026-ray-tp1-dev-shm-512m-object-store-2g-served-ok; log=$OUT/logs/$name.log
  echo "== $name"
  echo "\$ ray start --head --port=6379 --num-cpus=4 --num-gpus=1 $ROS    # /dev/shm 512 MiB" > $log
  $NSX $N13A timeout 60 ray start --head --port=6379 --num-cpus=4 --num-gpus=1 $ROS >> $log 2>&1
  echo "\$ RAY_ADDRESS=10.77.13.1:6379 vllm serve /tmp/z66/tiny $TA $GMU --distributed-executor-backend ray --port 8917" >> $log
  $NSX $N13A env RAY_ADDRESS=10.77.13.1:6379 timeout -s INT -k 10 150 $VS /tmp/z66/tiny $TA $GMU \
    --distributed-executor-backend ray --port 8917 >> $log 2>&1 &
  S=$!
  $NSX $N13A python3 $Z/client.py 8917 130 /tmp/z66/tiny $S
  kill -INT $S 2>/dev/null
  wait $S; fin $name $? ) &
J="$J $!"
sleep 60; ts "GPU apps at 60 s: $(gpu_apps)"
wait $J
ts "phase B done; GPU apps: $(gpu_apps)"
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
killns $N12A $N12B $N13A $N13B
sleep 3
ts "GPU apps before phase C: $(gpu_apps)"

# ================================================================ phase C (alone on the GPU)
# C1 resources: another job holds 40 GiB when vLLM starts (gpu-memory-utilization 0.5) and frees it while vLLM profiles
( name=h200-vllm026-other-job-frees-40gib-during-profiling; log=$OUT/logs/$name.log
  echo "== $name"
  echo "# other job on the GPU: \$ python3 holder.py 40" > $log
  rm -f $Z/holder.ready
  python3 $Z/holder.py 40 $log >> $log 2>&1 &
  H=$!
  for i in $(seq 60); do [ -f $Z/holder.ready ] && break; sleep 0.5; done
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv >> $log 2>&1
  echo "\$ vllm serve /tmp/z66/tiny --load-format dummy --skip-tokenizer-init --gpu-memory-utilization 0.5 --port 8921" >> $log
  timeout -s INT -k 10 150 $VS /tmp/z66/tiny --load-format dummy --skip-tokenizer-init --gpu-memory-utilization 0.5 --port 8921 >> $log 2>&1 &
  S=$!
  python3 $Z/client.py 8921 130 /tmp/z66/tiny $S > $Z/c1-client.out 2>&1
  kill -INT $S 2>/dev/null
  wait $S; r=$?; wait $H
  cat $Z/c1-client.out
  fin $name $r )
ts "all done; GPU apps: $(gpu_apps)"
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
for h in $HOLDERS; do kill $h 2>/dev/null; done
for c in /sys/fs/cgroup/z66_*; do rmdir $c 2>/dev/null; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zm-logs.tar" logs && rm -r "$OUT/logs"
true
