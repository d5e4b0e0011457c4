#!/usr/bin/env bash
# Capture run ZJ (session 10, collector Z52): a blind batch, real `vllm serve` (vLLM 0.26.0) with
# --distributed-executor-backend ray, and Ray 2.52.1 clusters as operators run them (`ray start
# --head`, `ray start --address=...` workers, `ray status`). Staged (the working tree is ~20 MiB
# now, so the 52 MiB z13c chunks no longer fit a call): one tar of the vLLM 0.26.0 wheel, the Ray
# 2.52.1 wheel and .device/validate/whl, split into 42 MiB pieces (.device/z52/s00..s09, git-ignored),
# one piece per call copied to /tmp; ZJ_PART=ray joins them, installs Ray into /tmp/raysite with
# only those wheels of .device/validate/raydeps whose module the node lacks (none carried when it
# lacks none), installs vLLM into /tmp/site and runs a smoke test. Every Ray "node"
# runs in a network namespace of its own, a veth pair per cluster (10.77.K.1 head, 10.77.K.2
# worker, a default route via the peer, netlink/ioctl from Python as in run_zd.sh), so that ports
# (6379, 8000) and node IPs are distinct; all nodes share the one H200. Ray nodes of one cluster
# are separate "hosts" for NCCL: NCCL_HOSTID=nodeN in each raylet's environment (vLLM's Ray
# executor v2 copies the driver's variables with setdefault, so node-local values stay); it is not
# shown in the logs. No `ray stop` (it stops every Ray process on the machine): each cluster's
# processes are killed by PID, found through their network namespace. Each log starts with the
# commands as typed ("$ ...", "# node N" for the node they ran on), then their whole output.
# Small servers: --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G (as run_zg.sh).
# ZJ_PART=ray (with the last piece): join, install Ray and vLLM, write the models, smoke test
# (2-node cluster, `ray status`). ZJ_PART=all runs parts 1 and 2 together, all jobs in parallel.
# ZJ_PART=1, in parallel:
#   11. network: `ray start --head --node-ip-address=10.77.9.15` (an address this node does not
#       have, copied from another node's runbook)
#   12. resources: `ray start --head` while port 6379 is held by another service on the head
#   13. resources: `ray start --head` with /tmp/ray on a full filesystem (a 1 MiB tmpfs, full)
#   14. network: `vllm serve ... --distributed-executor-backend ray` with RAY_ADDRESS left pointing
#       at yesterday's head (10.77.14.2:6379, the cluster torn down: nothing listens)
#   15. network: a head started with --num-gpus=0 (a "CPU-only head" recipe) and one GPU worker;
#       `ray status`; vllm serve TP 2 on Ray (the placement group waits for a second GPU)
#   16. visibility: a one-GPU head started with --num-gpus=2 (GPU count overstated), vllm serve
#       TP 2 on Ray (both bundles on the one node)
#   17. other: a real tiny Llama checkpoint copied to the head only; the worker node lacks the
#       model directory; vllm serve TP 2 on Ray (weights loaded from disk on every node)
# ZJ_PART=2, in parallel:
#   21. versions: the worker node has Ray but not vLLM (PYTHONPATH of its `ray start` holds only
#       Ray); vllm serve TP 2 on Ray
#   22. communication: head NIC ens5, worker NIC eth1; the operator exports
#       NCCL_SOCKET_IFNAME=ens5 on the head (vLLM copies it to the worker), NCCL_DEBUG=INFO, TP 2
#   23. resources: the worker node's `ray start` in a 1 GiB memory cgroup (a worker pod limit),
#       vllm serve TP 2 on Ray
#   24. healthy but noisy: 2 nodes, TP 2 on Ray, NCCL_DEBUG=INFO, `ray status`, one request, SIGINT
# Calls: ZJ_PART=ray (after the pieces), then ZJ_PART=all timeout -k 5 250 bash tests/data/logs/h200-capture/run_zj.sh
# Outcome (output/run_zj.out): 11-16 and 21 showed their fault. 24 (meant healthy) failed at torch's Gloo CPU group:
# the namespaces share the machine's hostname, which does not resolve to their eth1 address, so Gloo advertised
# 127.0.0.1 ("Gloo connectFullMesh failed ... remote=[127.0.0.1]"): kept, labelled communication/socket_ifname_wrong.
# 17, 22 and 23 failed the same way before their own fault could show (23: memory.events oom_kill 0): left out.
# A rerun would set GLOO_SOCKET_IFNAME=eth1 (ens5 on 22's head) in every raylet's environment.
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 VLLM_USE_FLASHINFER_SAMPLER=0
ZJ_PART=${ZJ_PART:-1}
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/logs" /tmp/zj
ZJ=/tmp/zj; RS=/tmp/raysite; VS=/tmp/site
export PATH=$RS/bin:$PATH
PPF=$VS:$RS   # PYTHONPATH of a node with vLLM and Ray

cat > $ZJ/netns_link.py <<'PY'
# netns_link.py PID_A PID_B NET [IF_A IF_B]: a veth between the network namespaces of two processes
# (A gets NET.1/24 on IF_A, B NET.2/24 on IF_B), lo up, a default route via the peer in each.
import ctypes, fcntl, os, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def setns(pid):
    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)
def up(name):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", name.encode(), 0x1 | 0x40))  # SIOCSIFFLAGS
def set_addr(name, addr, mask="255.255.255.0"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for req, a in ((0x8916, addr), (0x891C, mask)):  # SIOCSIFADDR, SIOCSIFNETMASK
        fcntl.ioctl(s, req, struct.pack("16sH2s4s8x", name.encode(), socket.AF_INET, b"\0\0", socket.inet_aton(a)))
def sin(addr):
    return struct.pack("H2s4s8x", socket.AF_INET, b"\0\0", socket.inet_aton(addr))
def default_route(gw):  # struct rtentry (x86_64), SIOCADDRT, RTF_UP | RTF_GATEWAY
    rt = struct.pack("L16s16s16sHhxxxxLPhxxxxxxPLLHxxxxxx", 0, sin("0.0.0.0"), sin(gw), sin("0.0.0.0"),
                     0x1 | 0x2, 0, 0, 0, 0, 0, 0, 0, 0)
    fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x890B, rt)
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
    if struct.unpack("H", r[4:6])[0] == 2:  # NLMSG_ERROR
        err = struct.unpack("i", r[16:20])[0]
        if err != 0:
            raise OSError(-err, "veth: " + os.strerror(-err))
pid_a, pid_b, net = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if_a = sys.argv[4] if len(sys.argv) > 4 else "eth1"
if_b = sys.argv[5] if len(sys.argv) > 5 else "eth1"
setns(pid_a); make_veth(if_a, if_b, pid_b)
up("lo"); set_addr(if_a, net + ".1"); up(if_a); default_route(net + ".2")
setns(pid_b)
up("lo"); set_addr(if_b, net + ".2"); up(if_b); default_route(net + ".1")
print(f"   netns pair {pid_a} ({if_a} {net}.1) <-> {pid_b} ({if_b} {net}.2): ok")
PY
cat > $ZJ/inns.py <<'PY'
# inns.py PID CMD... (not used since the nodes got mount namespaces: nsenter): run CMD in the network namespace of PID
import ctypes, os, sys
fd = os.open(f"/proc/{sys.argv[1]}/ns/net", os.O_RDONLY)
if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
    raise OSError(ctypes.get_errno(), "setns")
os.close(fd)
os.execvp(sys.argv[2], sys.argv[2:])
PY

# netpair K [IF_A IF_B]: two "nodes" (network + mount namespaces held by sleeping processes, each
# with a /tmp/ray of its own), joined by a veth; sets NA NB
netpair() {
  mkdir -p /tmp/ray /tmp/zj/ray-$1a /tmp/zj/ray-$1b
  unshare -n -m sh -c "mount --bind /tmp/zj/ray-$1a /tmp/ray && exec sleep 900" > /dev/null 2>&1 &
  NA=$!
  unshare -n -m sh -c "mount --bind /tmp/zj/ray-$1b /tmp/ray && exec sleep 900" > /dev/null 2>&1 &
  NB=$!
  sleep 0.3
  python3 $ZJ/netns_link.py $NA $NB 10.77.$1 ${2:-eth1} ${3:-eth1}
}
# killns PID...: kill (by PID) every process in the network namespaces of the holders, then them
killns() {
  local h ns d p
  for h in "$@"; do
    ns=$(readlink /proc/$h/ns/net) || continue
    for d in /proc/[0-9]*; do
      p=${d#/proc/}
      [ "$p" = "$h" ] && continue
      [ "$(readlink $d/ns/net 2>/dev/null)" = "$ns" ] && kill -9 "$p" 2>/dev/null
    done
  done
  sleep 0.5
  for h in "$@"; do kill "$h" 2>/dev/null; done
}
# $NSX HOLDER CMD...: run CMD on that "node" (its network and mount namespaces)
NSX="nsenter -n -m -t"
done_msg() {  # done_msg NAME LOG T0
  echo "   $1 done, wall $((SECONDS - $3)) s, lines $(wc -l < "$2")"
  tail -n 4 "$2" | cut -c1-220 | sed 's/^/      /'
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
cleanup_gpu() {  # everything on this machine was started by this script
  for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
}
ROS="--object-store-memory=2000000000"
TINYA="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VSERVE="python3 -m vllm.entrypoints.cli.main serve"

if [ "$ZJ_PART" = ray ]; then
  # the staged tar (vLLM wheel, Ray wheel, whl/), sent as 42 MiB pieces /tmp/s00..s09
  cat /tmp/s0? > /tmp/z52.tar && rm -f /tmp/s0?
  echo "52148e44fe5f9b3abfe745311dcee0794a7194a38358e453a8fd07f4654fbfaf  /tmp/z52.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/stage && tar xf /tmp/z52.tar -C /tmp/stage && rm /tmp/z52.tar
  W=/tmp/stage/ray-2.52.1-cp312-cp312-manylinux2014_x86_64.whl
  echo "843c0108ad72bb7fc6c23a22e29e6099546a5eaad3ad675c78a146d9080f6ec6  $W" | sha256sum -c || exit 3
  D=/tmp/raydeps
  WANT=""
  for pair in msgpack:msgpack google.protobuf:protobuf click:click filelock:filelock requests:requests \
              grpc:grpcio aiohttp:aiohttp,aiohappyeyeballs,aiosignal,attrs,frozenlist,multidict,propcache,yarl; do
    mod=${pair%%:*}; whls=${pair#*:}
    if PYTHONPATH= python3 -c "import $mod" 2>/dev/null; then echo "   node has $mod"; else
      echo "   node lacks $mod: installing ${whls}"
      for w in ${whls//,/ }; do WANT="$WANT $(ls $D/${w}-[0-9]*.whl)"; done
    fi
  done
  # jsonschema (Ray requires it; the node lacks it): the vLLM deps' copies, so that a node with Ray
  # alone (set-up 21) has what `pip install ray` brings
  for w in jsonschema jsonschema_specifications referencing rpds_py; do WANT="$WANT $(ls /tmp/stage/whl/${w}-[0-9]*.whl)"; done
  python3 -m pip install -q --no-index --no-deps --no-compile --target $RS $W $WANT || exit 4
  # vLLM 0.26.0 into /tmp/site; model directories (node's own transformers/torch) beside it
  python3 - > $ZJ/prep.out 2>&1 <<'PY' &
import json, os
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=512, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16")
os.makedirs("/tmp/zj/tiny", exist_ok=True)
json.dump(TINY, open("/tmp/zj/tiny/config.json", "w"), indent=2)
import torch
from transformers import LlamaConfig, LlamaForCausalLM
c = LlamaConfig(**{k: v for k, v in TINY.items() if k not in ("model_type", "torch_dtype")})
LlamaForCausalLM(c).to(torch.bfloat16).save_pretrained("/tmp/zj/models/tiny-llama-chat")
print("written:", sorted(os.listdir("/tmp/zj/models/tiny-llama-chat")))
PY
  PREP=$!
  VW=/tmp/stage/vllm-0.26.0-cp38-abi3-manylinux_2_28_x86_64.whl
  echo "adb1e4c9b46d0dfdb094121ae5aad670a42412dd813ed4e5db069ed6a15006de  $VW" | sha256sum -c || exit 3
  python3 -m pip install -q --no-index --no-deps --no-compile --target $VS $VW /tmp/stage/whl/*.whl || exit 4
  ls $RS/bin | tr '\n' ' '; echo
  PYTHONPATH=$RS python3 -c "import ray, sys; print('   ray', ray.__version__, 'python', sys.version.split()[0])"
  for m in jsonschema packaging yaml psutil; do PYTHONPATH=$RS python3 -c "import $m" 2>/dev/null && echo "   has $m" || echo "   LACKS $m"; done
  # smoke test: a 2-node cluster (head 10.77.1.1, worker 10.77.1.2), ray status
  netpair 1
  t0=$SECONDS
  $NSX $NA env PYTHONPATH=$PPF NCCL_HOSTID=node0 timeout 60 ray start --head --port=6379 --num-cpus=2 $ROS 2>&1 | tail -n 4
  $NSX $NB env PYTHONPATH=$PPF NCCL_HOSTID=node1 timeout 60 ray start --address=10.77.1.1:6379 --num-cpus=2 $ROS 2>&1 | tail -n 3
  $NSX $NA env PYTHONPATH=$PPF timeout 30 ray status --address=10.77.1.1:6379 2>&1 | head -n 22
  echo "   smoke test wall $((SECONDS - t0)) s"
  killns $NA $NB
  wait $PREP; cat $ZJ/prep.out
  exit 0
fi

J=""
[ -d $VS/vllm ] || { echo "vLLM not installed (machine not warm?)"; exit 5; }
if [ "$ZJ_PART" = 1 ] || [ "$ZJ_PART" = all ]; then
  nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader

  # 11. --node-ip-address not on this node
  (
    name=h200-ray-head-node-ip-address-not-on-this-node; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 11
    C="ray start --head --port=6379 --node-ip-address=10.77.9.15 --num-cpus=2 $ROS"
    echo "\$ $C    # node 0 (10.77.11.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF timeout -s INT -k 45 50 $C >> $L 2>&1
    echo "   rc $?"; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 12. GCS port 6379 held by another service
  (
    name=h200-ray-head-gcs-port-6379-taken; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 12
    $NSX $NA python3 -m http.server 6379 --bind 0.0.0.0 > $ZJ/http-6379.log 2>&1 &
    sleep 2
    C="ray start --head --port=6379 --num-cpus=2 $ROS"
    echo "\$ $C    # node 0 (10.77.12.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF timeout -s INT -k 10 80 $C >> $L 2>&1
    echo "   rc $?"; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 13. /tmp/ray on a full filesystem
  (
    name=h200-ray-head-tmp-ray-filesystem-full; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 13
    C="ray start --head --port=6379 --num-cpus=2 $ROS"
    echo "\$ $C    # node 0 (10.77.13.1)" > $L
    $NSX $NA sh -c 'mount -t tmpfs -o size=1m tmpfs /tmp/ray &&
      dd if=/dev/zero of=/tmp/ray/.fill bs=64k 2>/dev/null; df -h /tmp/ray > /tmp/zj/df13.txt; exec "$@"' sh \
      env PYTHONPATH=$PPF timeout -s INT -k 10 60 $C >> $L 2>&1
    echo "   rc $?"; sed "s/^/   /" /tmp/zj/df13.txt; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 14. RAY_ADDRESS at a torn-down cluster
  (
    name=h200-vllm026-ray-address-stale-cluster-gone; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 14
    C="vllm serve /tmp/zj/tiny $TINYA --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000"
    echo "\$ RAY_ADDRESS=10.77.14.2:6379 $C    # node 0 (10.77.14.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.14.2:6379 timeout -s INT -k 45 80 $VSERVE /tmp/zj/tiny $TINYA \
      --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000 >> $L 2>&1
    echo "   rc $?"; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 15. head --num-gpus=0, one GPU worker, TP 2
  (
    name=h200-vllm026-ray-head-num-gpus-0-tp2; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 15
    C0="ray start --head --port=6379 --num-gpus=0 --num-cpus=2 $ROS"; C1="ray start --address=10.77.15.1:6379 --num-cpus=2 $ROS"
    echo "\$ $C0    # node 0 (10.77.15.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF NCCL_HOSTID=node0 timeout -s INT -k 10 60 $C0 >> $L 2>&1
    echo "\$ $C1    # node 1 (10.77.15.2)" >> $L
    $NSX $NB env PYTHONPATH=$PPF NCCL_HOSTID=node1 timeout -s INT -k 10 60 $C1 >> $L 2>&1
    sleep 6
    echo "\$ ray status    # node 0" >> $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.15.1:6379 timeout 30 ray status >> $L 2>&1
    echo "\$ RAY_ADDRESS=10.77.15.1:6379 vllm serve /tmp/zj/tiny $TINYA --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000    # node 0" >> $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.15.1:6379 timeout -s INT -k 10 95 $VSERVE /tmp/zj/tiny $TINYA \
      --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000 >> $L 2>&1
    echo "   rc $?"; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 16. one-GPU head started with --num-gpus=2, TP 2
  (
    name=h200-vllm026-ray-head-num-gpus-2-on-1-gpu-tp2; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 16
    C0="ray start --head --port=6379 --num-gpus=2 --num-cpus=2 $ROS"
    echo "\$ $C0    # node 0 (10.77.16.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF timeout -s INT -k 10 60 $C0 >> $L 2>&1
    echo "\$ RAY_ADDRESS=10.77.16.1:6379 vllm serve /tmp/zj/tiny $TINYA --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000    # node 0" >> $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.16.1:6379 timeout -s INT -k 10 110 $VSERVE /tmp/zj/tiny $TINYA \
      --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000 >> $L 2>&1
    echo "   rc $?"; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 17. the model directory only on the head
  (
    name=h200-vllm026-ray-tp2-model-dir-missing-on-worker-node; L=$OUT/logs/$name.log; t0=$SECONDS
    netpair 17
    M=/tmp/zj/models/tiny-llama-chat
    C0="ray start --head --port=6379 --num-cpus=2 $ROS"; C1="ray start --address=10.77.17.1:6379 --num-cpus=2 $ROS"
    $NSX $NB mount -t tmpfs -o size=1m tmpfs /tmp/zj/models   # node 1 has no copy of the model
    echo "\$ $C0    # node 0 (10.77.17.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF NCCL_HOSTID=node0 timeout -s INT -k 10 60 $C0 >> $L 2>&1
    echo "\$ $C1    # node 1 (10.77.17.2)" >> $L
    $NSX $NB env PYTHONPATH=$PPF NCCL_HOSTID=node1 timeout -s INT -k 10 60 $C1 >> $L 2>&1
    echo "   node 1 sees: $($NSX $NB ls $M 2>&1)"
    echo "\$ RAY_ADDRESS=10.77.17.1:6379 vllm serve $M --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000    # node 0" >> $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.17.1:6379 timeout -s INT -k 10 120 $VSERVE $M --skip-tokenizer-init \
      --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G --tensor-parallel-size 2 \
      --distributed-executor-backend ray --port 8000 >> $L 2>&1
    echo "   rc $?"; done_msg $name $L $t0; killns $NA $NB
  ) &
  J="$J $!"
fi

if [ "$ZJ_PART" = 2 ] || [ "$ZJ_PART" = all ]; then
  # two_nodes K NAME ENV0 ENV1 WRAP1 PP1 C_SHOWN_PREFIX VLLM_ENV LIMIT [IF_A IF_B]: head + worker, ray status,
  # vllm serve TP 2 on Ray; WRAP1 wraps node 1's ray start, PP1 is node 1's PYTHONPATH
  two_nodes() {
    local k=$1 name=$2 env0=$3 env1=$4 wrap1=$5 pp1=$6 shown=$7 venv=$8 lim=$9; shift 9
    L=$OUT/logs/$name.log; t0=$SECONDS
    netpair $k "$@"
    local C0="ray start --head --port=6379 --num-cpus=2 $ROS" C1="ray start --address=10.77.$k.1:6379 --num-cpus=2 $ROS"
    echo "\$ $C0    # node 0 (10.77.$k.1)" > $L
    $NSX $NA env PYTHONPATH=$PPF $env0 timeout -s INT -k 10 60 $C0 >> $L 2>&1
    echo "\$ $C1    # node 1 (10.77.$k.2)" >> $L
    $NSX $NB env PYTHONPATH=$pp1 $env1 $wrap1 timeout -s INT -k 10 60 $C1 >> $L 2>&1
    sleep 6
    echo "\$ ray status    # node 0" >> $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.$k.1:6379 timeout 30 ray status >> $L 2>&1
    echo "\$ ${shown}vllm serve /tmp/zj/tiny $TINYA --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000    # node 0" >> $L
    $NSX $NA env PYTHONPATH=$PPF RAY_ADDRESS=10.77.$k.1:6379 $venv timeout -s INT -k 10 $lim $VSERVE /tmp/zj/tiny $TINYA \
      --tensor-parallel-size 2 --distributed-executor-backend ray --port 8000 >> $L 2>&1 &
    SRV=$!
  }
  # 21. worker node without vLLM
  (
    two_nodes 21 h200-vllm026-ray-tp2-worker-node-without-vllm NCCL_HOSTID=node0 NCCL_HOSTID=node1 "" $RS \
      "RAY_ADDRESS=10.77.21.1:6379 " "" 120
    wait $SRV; echo "   rc $?"; done_msg h200-vllm026-ray-tp2-worker-node-without-vllm $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 22. NCCL_SOCKET_IFNAME=ens5 exported on the head, the worker's NIC is eth1
  (
    two_nodes 22 h200-vllm026-ray-tp2-nccl-socket-ifname-ens5-head-only NCCL_HOSTID=node0 NCCL_HOSTID=node1 "" $PPF \
      "RAY_ADDRESS=10.77.22.1:6379 NCCL_SOCKET_IFNAME=ens5 NCCL_DEBUG=INFO " "NCCL_SOCKET_IFNAME=ens5 NCCL_DEBUG=INFO" 130 ens5 eth1
    wait $SRV; echo "   rc $?"; done_msg h200-vllm026-ray-tp2-nccl-socket-ifname-ens5-head-only $L $t0; killns $NA $NB
  ) &
  J="$J $!"
  # 23. worker node in a 1 GiB memory cgroup
  (
    CG=/sys/fs/cgroup/zj_node1
    mkdir -p $CG && echo 1G > $CG/memory.max && { echo 0 > $CG/memory.swap.max; } 2>/dev/null
    echo "   $CG memory.max = $(cat $CG/memory.max)"
    printf '#!/bin/sh\necho $$ > %s/cgroup.procs || exit 90\nexec "$@"\n' $CG > $ZJ/incg.sh; chmod +x $ZJ/incg.sh
    two_nodes 23 h200-vllm026-ray-tp2-worker-node-memory-limit-1g NCCL_HOSTID=node0 NCCL_HOSTID=node1 $ZJ/incg.sh $PPF \
      "RAY_ADDRESS=10.77.23.1:6379 " "" 120
    wait $SRV; echo "   rc $?"; done_msg h200-vllm026-ray-tp2-worker-node-memory-limit-1g $L $t0
    echo "   memory.events: $(tr '\n' ' ' < $CG/memory.events)"
    killns $NA $NB; sleep 1; rmdir $CG 2>/dev/null || echo "   $CG not removed: $(cat $CG/cgroup.procs | tr '\n' ' ')"
  ) &
  J="$J $!"
  # 24. healthy: 2 nodes, TP 2 on Ray, NCCL_DEBUG=INFO, one request
  (
    two_nodes 24 h200-vllm026-ray-2nodes-tp2-nccl-info-served-ok NCCL_HOSTID=node0 NCCL_HOSTID=node1 "" $PPF \
      "RAY_ADDRESS=10.77.24.1:6379 NCCL_DEBUG=INFO " "NCCL_DEBUG=INFO" 200
    $NSX $NA python3 -c "
import json, time, urllib.request, urllib.error
B = 'http://127.0.0.1:8000'
ok = False
for i in range(190):
    try:
        urllib.request.urlopen(B + '/health', timeout=2); ok = True; break
    except Exception:
        time.sleep(1)
print('   healthy:', ok, 'after', i, 's')
if ok:
    req = urllib.request.Request(B + '/v1/completions', data=json.dumps({'model': '/tmp/zj/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
    try:
        print('   ', urllib.request.urlopen(req, timeout=30).read()[:200])
    except urllib.error.HTTPError as e:
        print('   ', e.code, e.read()[:200])
    except Exception as e:
        print('   request failed:', e)
    time.sleep(2)" || true
    kill -INT $SRV 2>/dev/null; wait $SRV; echo "   rc $?"; done_msg h200-vllm026-ray-2nodes-tp2-nccl-info-served-ok $L $t0
    killns $NA $NB
  ) &
  J="$J $!"
fi
sleep 60; echo "GPU apps at 60 s: $(gpu_apps)"
wait $J
sleep 1
echo "GPU apps left: $(gpu_apps)"
cleanup_gpu
true
