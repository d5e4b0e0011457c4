#!/usr/bin/env bash
# Z66 capture run ZN (torch 2.11 / NCCL 2.28.9 only, no vLLM): two set-ups made on purpose.
#   timeout -k 5 200 bash .device/Z66/run_zn.sh 2>&1 | tee $OUT/run_zn.out
set -u
set -m
OUT=$(cd "$OUT" && pwd)
Z=/tmp/z66
mkdir -p $Z "$OUT/logs"
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
NSX="nsenter -n -m -t"
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
J=""
# N1 versions: libnccl.so.2 of the nvidia-nccl wheel is a 4 KiB stub (an interrupted layer extraction), torchrun
NL=$(python3 -c "import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], 'lib', 'libnccl.so.2'))")
head -c 4096 $NL > $Z/libnccl-4k.so.2; ls -la $NL $Z/libnccl-4k.so.2
( job h200-torchrun-nccl-libnccl-so-2-4k-stub 90 \
    "NCCL_DEBUG=INFO torchrun --nproc_per_node 1 --master_port 29941 train.py   # $NL only its first 4096 bytes" \
    unshare -m sh -c "mount --bind $Z/libnccl-4k.so.2 $NL && exec env NCCL_DEBUG=INFO torchrun --nproc_per_node 1 --master_port 29941 $Z/train.py" ) &
J="$J $!"
# N2 network: two nodes, c10d rendezvous at node 0's address, both launched with --rdzv_conf is_host=false (nobody hosts the store)
nodepair 21; N21A=$NA; N21B=$NB
( name=h200-2nodes-torchrun-c10d-rdzv-conf-is-host-false-on-all-nodes; log=$OUT/logs/$name.log
  S="torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 10.77.21.1:29400 --rdzv_id job7 --rdzv_conf is_host=false"
  echo "== $name"
  { echo "# node 0 (10.77.21.1): \$ NCCL_DEBUG=INFO $S train.py"; echo "# node 1 (10.77.21.2): \$ NCCL_DEBUG=INFO $S train.py"; } > $log
  $NSX $N21A env NCCL_HOSTID=node0 NCCL_DEBUG=INFO timeout -s INT -k 10 150 $S $Z/train.py >> $log 2>&1 &
  p0=$!; sleep 1
  $NSX $N21B env NCCL_HOSTID=node1 NCCL_DEBUG=INFO timeout -s INT -k 10 150 $S $Z/train.py >> $log 2>&1 &
  p1=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
wait $J
ts "done; GPU apps: $(gpu_apps)"
killns $N21A $N21B
for h in $HOLDERS; do kill $h 2>/dev/null; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zn-logs.tar" logs && rm -r "$OUT/logs"
true
