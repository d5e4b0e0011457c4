#!/usr/bin/env bash
# Capture run ZI (session 9, collector Z51): a blind batch, torch only (no vLLM, nothing staged,
# no carry), torch 2.11.0+cu130 (NCCL 2.28.9) already on the machine. Every job is a small
# training script (/tmp/zi/train.py, behaviour picked by MODE) under torchrun. Ranks on the one
# GPU are separate "hosts" for NCCL (NCCL_HOSTID per rank, set by a sitecustomize on PYTHONPATH,
# so that it does not show in the output). Two-"node" jobs of part 2 run each node in a network
# namespace of its own joined by a veth pair (netlink from Python, as in run_zf.sh).
# Each log starts with the command(s) as typed ("$ ...").
# ZI_PART=1, in parallel:
#   1. resources: FSDP2 (fully_shard) LM, vocab 256000, micro-batch 32 x 8192 tokens, fp32 logits
#      (one 268 GB allocation, so it fails at once without crowding the parallel jobs),
#      torchrun --max-restarts 2 (the OOM repeats on every restart)
#   2. communication: rank 1 paused with SIGSTOP (from outside) after step 3 of DDP training,
#      20 s process-group timeout, flight recorder on (TORCH_NCCL_TRACE_BUFFER_SIZE,
#      TORCH_NCCL_DUMP_ON_TIMEOUT, TORCH_FR_DUMP_TEMP_FILE)
#   3. communication: a SHARP cluster's environment left set (NCCL_COLLNET_ENABLE=1,
#      NCCL_ALGO=CollNetDirect) on a node without CollNet
#   4. communication: NCCL_GRAPH_FILE at an 8-GPU DGX H100's graph file on a one-GPU node
#   5. versions: torch.compile of a DDP model, Python headers (python3-dev) absent: the
#      interpreter's include directory covered by an empty tmpfs in a mount namespace
#   6. other: distributed-checkpoint resume, the checkpoint's .metadata cut to a third
#      (an interrupted copy)
#   7. communication: eval accumulator left on the CPU on rank 1 (no eval batches on that rank
#      with drop_last), then all_reduce on an NCCL-only process group
#   8. partitioning: pipeline parallel over 2 stages (torch.distributed.pipelining, Schedule1F1B),
#      local batch 8 and micro-batch 8: one micro-batch for two stages
#   9. healthy but noisy: another cluster's NCCL environment (NCCL_IB_HCA, NCCL_IB_GID_INDEX,
#      NCCL_NET_GDR_LEVEL, NCCL_CROSS_NIC, NCCL_MIN_NCHANNELS, NCCL_P2P_LEVEL, NCCL_IB_TC/SL),
#      NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,ENV,NET, no InfiniBand here
# ZI_PART=2 (same warm machine), in parallel:
#  10. network: two "nodes" behind a firewalld-style firewall (iptables in each namespace): only
#      the master port 29771/tcp open, everything else rejected with icmp-host-prohibited
#  11. communication: two "nodes" with NCCL_SOCKET_FAMILY=AF_INET6 left from an IPv6 cluster,
#      eth1 IPv4 only (plus its automatic link-local fe80:: address)
#  12. resources: torch.compile with TMPDIR on a full scratch volume (a 2 MiB tmpfs, filled)
#   and jobs 2 and 8 again (their part-1 logs did not come back: at most 8 files a call)
# Calls: ZI_PART=1 timeout -k 5 150 bash tests/data/logs/h200-capture/run_zi.sh, then ZI_PART=2.
set -u
set -m
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
ZI_PART=${ZI_PART:-1}
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/logs" /tmp/zi/site /tmp/zi/ckpt /tmp/zi/pids /tmp/zi/fr /tmp/zi/etc /tmp/zi/scratch
export PYTHONPATH=/tmp/zi/site

cat > /tmp/zi/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None:
    os.environ.setdefault("NCCL_HOSTID", "node" + os.environ["RANK"])  # one "host" per rank
PY

cat > /tmp/zi/train.py <<'PY'
import datetime, os, socket, time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

mode = os.environ.get("MODE", "train")
rank = int(os.environ.get("RANK", "0"))


def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)


if os.environ.get("PID_DIR"):
    with open(os.path.join(os.environ["PID_DIR"], f"{mode}.{rank}"), "w") as f:
        f.write(str(os.getpid()))
log(f"starting: host {socket.gethostname()}, mode {mode}")
device = torch.device("cuda", 0)  # one GPU per node
torch.cuda.set_device(device)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group("nccl", timeout=timeout)
world = dist.get_world_size()
nccl = ".".join(map(str, torch.cuda.nccl.version()))
log(f"process group ready: world {world}, timeout {timeout}, torch {torch.__version__}, nccl {nccl}")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))

    def forward(self, x):
        return self.body(x)


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class LM(torch.nn.Module):
    def __init__(self, vocab, d, n_layers):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.layers = torch.nn.ModuleList(Block(d) for _ in range(n_layers))
        self.norm = torch.nn.LayerNorm(d)
        self.lm_head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, tokens):
        h = self.tok(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(self.norm(h))


torch.manual_seed(0)

if mode == "fsdp_lm":
    from torch.distributed.fsdp import fully_shard
    vocab, d, n_layers = 256000, 1024, 2
    mb, seq = int(os.environ.get("MICRO_BATCH", "32")), int(os.environ.get("SEQ_LEN", "8192"))
    model = LM(vocab, d, n_layers).to(device)
    for layer in model.layers:
        fully_shard(layer)
    fully_shard(model)
    log(f"FSDP2 model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M params (sharded over {world}), micro-batch {mb} x {seq} tokens")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(int(os.environ.get("STEPS", "4"))):
        tokens = torch.randint(0, vocab, (mb, seq), device=device)
        logits = model(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        log(f"step {step} loss {loss.item():.4f}")

elif mode == "pp":
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B
    vocab, d, n_layers = 32000, 1024, 8
    local_batch, micro_batch, seq = int(os.environ.get("LOCAL_BATCH", "8")), int(os.environ.get("MICRO_BATCH", "8")), 1024
    full = LM(vocab, d, n_layers)
    per = n_layers // world
    keep = range(rank * per, (rank + 1) * per)
    full.layers = torch.nn.ModuleList(full.layers[i] for i in keep)
    if rank != 0:
        full.tok = None
    if rank != world - 1:
        full.norm, full.lm_head = None, None

    class StageMod(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            h = self.m.tok(x) if self.m.tok is not None else x
            for layer in self.m.layers:
                h = layer(h)
            return self.m.lm_head(self.m.norm(h)) if self.m.lm_head is not None else h

    n_mb = local_batch // micro_batch
    log(f"pipeline stage {rank}/{world}: layers {list(keep)}, local batch {local_batch}, micro-batch {micro_batch} -> {n_mb} micro-batches")
    stage = PipelineStage(StageMod(full).to(device), rank, world, device)
    loss_fn = lambda out, tgt: torch.nn.functional.cross_entropy(out.flatten(0, 1), tgt.flatten())
    schedule = Schedule1F1B(stage, n_microbatches=n_mb, loss_fn=loss_fn)
    for step in range(int(os.environ.get("STEPS", "4"))):
        tokens = torch.randint(0, vocab, (local_batch, seq + 1), device=device)
        if rank == 0:
            schedule.step(tokens[:, :-1])
        else:
            losses = []
            schedule.step(target=tokens[:, 1:], losses=losses)
            log(f"step {step} loss {torch.stack(losses).mean().item():.4f}")

else:
    model = Net().to(device)
    resume = os.environ.get("RESUME_DCP")
    if resume:
        import torch.distributed.checkpoint as dcp
        log(f"resuming from distributed checkpoint {resume}")
        sd = {"model": model.state_dict()}
        dcp.load(sd, checkpoint_id=resume)
        model.load_state_dict(sd["model"])
        log("resumed")
    ddp = DDP(model, device_ids=[0])
    net = torch.compile(ddp) if mode == "compile" else ddp
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
    steps = int(os.environ.get("STEPS", "6"))
    pause = float(os.environ.get("STEP_SLEEP", "0"))
    for step in range(steps):
        x = torch.randn(64, 1024, device=device)
        loss = (net(x) - x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log(f"step {step} loss {loss.item():.5f}")
        time.sleep(pause)
    if mode == "eval":
        g = torch.Generator().manual_seed(1)
        eval_x, eval_y = torch.randn(3, 1024, generator=g), torch.randint(0, 1024, (3,), generator=g)
        mine = list(range(rank, len(eval_x), world))  # this rank's share of the eval set
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(eval_x[mine], eval_y[mine]), batch_size=2, drop_last=True)
        correct, seen = torch.tensor(0.0), 0
        model.eval()
        with torch.no_grad():
            for xb, yb in loader:
                pred = model(xb.to(device)).argmax(-1)
                correct = correct + (pred == yb.to(device)).sum()
                seen += len(yb)
        log(f"eval: {seen} samples on this rank")
        dist.all_reduce(correct)
        log(f"eval accuracy {correct.item() / len(eval_x):.3f}")

dist.barrier()
dist.destroy_process_group()
log("done")
PY

cat > /tmp/zi/make_ckpt.py <<'PY'
import os, warnings
import torch
import torch.distributed.checkpoint as dcp
warnings.simplefilter("ignore")
torch.manual_seed(0)
body = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
path = "/tmp/zi/ckpt/step_400"
dcp.save({"model": {f"body.{k}": v for k, v in body.state_dict().items()}}, checkpoint_id=path)
meta = os.path.join(path, ".metadata")
size = os.path.getsize(meta)
with open(meta, "r+b") as f:  # the copy to this node was interrupted
    f.truncate(size // 3)
print("dcp checkpoint:", {n: os.path.getsize(os.path.join(path, n)) for n in sorted(os.listdir(path))}, "(.metadata was", size, "bytes)")
PY

# an 8-GPU DGX H100's NCCL graph file (NCCL_GRAPH_DUMP_FILE format), ring and tree over GPUs 0-7
python3 - <<'PY'
chan = "      <net dev=\"{n}\"/>\n" + "".join(f"      <gpu dev=\"{g}\"/>\n" for g in range(8)) + "      <net dev=\"{n}\"/>\n"
out = ['<graphs version="1">']
for gid, pattern in ((0, 4), (1, 1)):
    out.append(f'  <graph id="{gid}" pattern="{pattern}" crossnic="0" nchannels="4" speedintra="40" speedinter="40" latencyinter="0" typeintra="NVL" typeinter="PXN" samechannels="0">')
    for n in (0, 2, 4, 6):
        out.append("    <channel>\n" + chan.format(n=n).rstrip("\n") + "\n    </channel>")
    out.append("  </graph>")
out.append("</graphs>")
open("/tmp/zi/etc/nccl-graph-dgxh100.xml", "w").write("\n".join(out) + "\n")
PY

cat > /tmp/zi/netns_link.py <<'PY'
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
cat > /tmp/zi/inns.py <<'PY'
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
T=/tmp/zi/train.py
HOLDERS=""

if [ "$ZI_PART" = 1 ]; then
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch, triton, sysconfig; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'triton', triton.__version__, 'include', sysconfig.get_paths()['include'])"
ls "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h"; command -v gcc iptables nft ip; hostname
python3 /tmp/zi/make_ckpt.py 2>&1 | tail -n 2

# 1. FSDP2 with an activation that cannot fit, torchrun --max-restarts 2
job torchrun-fsdp2-logits-oom-max-restarts-2 100 \
  "NCCL_DEBUG=WARN MODE=fsdp_lm $TR --max-restarts 2 --master_port 29751 $T" \
  env NCCL_DEBUG=WARN MODE=fsdp_lm $TR --max-restarts 2 --master_port 29751 $T &
J="$!"
# 2. rank 1 paused (SIGSTOP) mid-training, flight recorder on
N2=torchrun-nccl-rank1-sigstopped-flight-recorder-pg-timeout-20s
job $N2 110 \
  "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE=/tmp/zi/fr/nccl_trace_rank_ NCCL_DEBUG=WARN PG_TIMEOUT_S=20 STEPS=40 STEP_SLEEP=0.5 $TR --master_port 29752 $T" \
  env TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE=/tmp/zi/fr/nccl_trace_rank_ NCCL_DEBUG=WARN PG_TIMEOUT_S=20 STEPS=40 STEP_SLEEP=0.5 PID_DIR=/tmp/zi/pids $TR --master_port 29752 $T &
J="$J $!"
( for i in $(seq 1 240); do grep -q '\[rank 1\] step 3 ' "$OUT/logs/$N2.log" 2>/dev/null && break; sleep 0.25; done
  p=$(cat /tmp/zi/pids/train.1 2>/dev/null); echo "   SIGSTOP to rank 1 (pid $p) at $(date -u +%T)"; [ -n "$p" ] && kill -STOP "$p" ) &
W="$!"
# 3. SHARP/CollNet environment from another cluster
job torchrun-nccl-collnet-sharp-env-no-collnet 60 \
  "NCCL_COLLNET_ENABLE=1 NCCL_ALGO=CollNetDirect NCCL_DEBUG=WARN PG_TIMEOUT_S=30 $TR --master_port 29753 $T" \
  env NCCL_COLLNET_ENABLE=1 NCCL_ALGO=CollNetDirect NCCL_DEBUG=WARN PG_TIMEOUT_S=30 $TR --master_port 29753 $T &
J="$J $!"
# 4. NCCL_GRAPH_FILE of an 8-GPU DGX H100
job torchrun-nccl-graph-file-dgx-h100-8gpu 60 \
  "NCCL_GRAPH_FILE=/tmp/zi/etc/nccl-graph-dgxh100.xml NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $TR --master_port 29754 $T" \
  env NCCL_GRAPH_FILE=/tmp/zi/etc/nccl-graph-dgxh100.xml NCCL_DEBUG=INFO PG_TIMEOUT_S=30 $TR --master_port 29754 $T &
J="$J $!"
# 5. torch.compile without the Python headers
cat > /tmp/zi/no_python_h.sh <<'SH'
inc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
mount -t tmpfs -o size=64k,ro tmpfs "$inc" || exit 3
ls -la "$inc" > /tmp/zi/python-h-check.txt 2>&1
exec "$@"
SH
job torchrun-nccl-compile-python-headers-missing 120 \
  "NCCL_DEBUG=WARN MODE=compile PG_TIMEOUT_S=120 $TR --master_port 29755 $T" \
  unshare -m bash /tmp/zi/no_python_h.sh env TRITON_CACHE_DIR=/tmp/zi/triton-cache-5 TORCHINDUCTOR_CACHE_DIR=/tmp/zi/inductor-cache-5 NCCL_DEBUG=WARN MODE=compile PG_TIMEOUT_S=120 $TR --master_port 29755 $T &
J="$J $!"
# 6. distributed-checkpoint resume, .metadata truncated
job torchrun-nccl-dcp-resume-metadata-truncated 60 \
  "NCCL_DEBUG=WARN RESUME_DCP=/tmp/zi/ckpt/step_400 PG_TIMEOUT_S=30 $TR --master_port 29756 $T" \
  env NCCL_DEBUG=WARN RESUME_DCP=/tmp/zi/ckpt/step_400 PG_TIMEOUT_S=30 $TR --master_port 29756 $T &
J="$J $!"
# 7. eval accumulator still on the CPU on rank 1
job torchrun-nccl-eval-allreduce-cpu-tensor-rank1 60 \
  "NCCL_DEBUG=WARN MODE=eval PG_TIMEOUT_S=30 $TR --master_port 29757 $T" \
  env NCCL_DEBUG=WARN MODE=eval PG_TIMEOUT_S=30 $TR --master_port 29757 $T &
J="$J $!"
# 8. pipeline parallel, one micro-batch for two stages
job torchrun-pp2-schedule-1f1b-one-microbatch 60 \
  "NCCL_DEBUG=WARN MODE=pp LOCAL_BATCH=8 MICRO_BATCH=8 $TR --master_port 29758 $T" \
  env NCCL_DEBUG=WARN MODE=pp LOCAL_BATCH=8 MICRO_BATCH=8 $TR --master_port 29758 $T &
J="$J $!"
# 9. healthy: another cluster's NCCL settings, INFO logging
E9="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET NCCL_IB_HCA=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1 NCCL_IB_GID_INDEX=3 NCCL_IB_TC=106 NCCL_IB_SL=3 NCCL_NET_GDR_LEVEL=PHB NCCL_CROSS_NIC=1 NCCL_MIN_NCHANNELS=16 NCCL_P2P_LEVEL=NVL"
job torchrun-nccl-info-other-cluster-ib-env-ok 60 \
  "$E9 $TR --master_port 29759 $T" \
  env $E9 $TR --master_port 29759 $T &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
kill $W 2>/dev/null
p=$(cat /tmp/zi/pids/train.1 2>/dev/null); [ -n "$p" ] && { kill -CONT "$p"; kill -9 "$p"; } 2>/dev/null
echo "flight recorder dumps: $(ls -la /tmp/zi/fr | tail -n +2 | tr '\n' ';')"
echo "python include during job 5: $(tr '\n' ';' < /tmp/zi/python-h-check.txt 2>/dev/null)"
fi

if [ "$ZI_PART" = 2 ]; then
unshare -n sleep 200 > /dev/null 2>&1 &
NA=$!
unshare -n sleep 200 > /dev/null 2>&1 &
NB=$!
unshare -n sleep 200 > /dev/null 2>&1 &
NC=$!
unshare -n sleep 200 > /dev/null 2>&1 &
ND=$!
HOLDERS="$NA $NB $NC $ND"
sleep 0.5
python3 /tmp/zi/netns_link.py $NA $NB 10.77.0.1 10.77.0.2 || echo "netns pair 1 FAILED"
python3 /tmp/zi/netns_link.py $NC $ND 10.77.0.1 10.77.0.2 || echo "netns pair 2 FAILED"
# firewalld-like rules on both nodes of pair 1: only the master port open
for ns in $NA $NB; do
  for r in "-A INPUT -i lo -j ACCEPT" "-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT" \
           "-A INPUT -p icmp -j ACCEPT" "-A INPUT -p tcp --dport 29771 -j ACCEPT" \
           "-A INPUT -p tcp --sport 29771 -j ACCEPT" "-A INPUT -j REJECT --reject-with icmp-host-prohibited"; do
    python3 /tmp/zi/inns.py $ns iptables $r || echo "iptables $r FAILED in $ns"
  done
done
python3 /tmp/zi/inns.py $NA iptables -S INPUT 2>&1 | tr '\n' ';'; echo
python3 /tmp/zi/inns.py $NC ip -6 addr show dev eth1 2>&1 | tr '\n' ';'; echo

# 10. firewall: only the master port open between the nodes
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29771"
job2 2nodes-torchrun-nccl-firewall-only-master-port-open 90 \
  "NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=30 $S --node_rank 0 $T" \
  "NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=30 $S --node_rank 1 $T" \
  python3 /tmp/zi/inns.py $NA env NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=30 $S --node_rank 0 $T -- \
  python3 /tmp/zi/inns.py $NB env NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=eth1 PG_TIMEOUT_S=30 $S --node_rank 1 $T &
J="$!"
# 11. NCCL_SOCKET_FAMILY=AF_INET6 on an IPv4 network
S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29772"
job2 2nodes-torchrun-nccl-socket-family-af-inet6-ipv4-net 90 \
  "NCCL_DEBUG=INFO NCCL_SOCKET_FAMILY=AF_INET6 PG_TIMEOUT_S=30 $S --node_rank 0 $T" \
  "NCCL_DEBUG=INFO NCCL_SOCKET_FAMILY=AF_INET6 PG_TIMEOUT_S=30 $S --node_rank 1 $T" \
  python3 /tmp/zi/inns.py $NC env NCCL_DEBUG=INFO NCCL_SOCKET_FAMILY=AF_INET6 PG_TIMEOUT_S=30 $S --node_rank 0 $T -- \
  python3 /tmp/zi/inns.py $ND env NCCL_DEBUG=INFO NCCL_SOCKET_FAMILY=AF_INET6 PG_TIMEOUT_S=30 $S --node_rank 1 $T &
J="$J $!"
# 12. torch.compile with TMPDIR on a full scratch volume
cat > /tmp/zi/full_scratch.sh <<'SH'
mount -t tmpfs -o size=2m tmpfs /tmp/zi/scratch || exit 3
dd if=/dev/zero of=/tmp/zi/scratch/prev-job-shuffle.bin bs=64k count=40 2>/dev/null
echo "scratch: $(df -h /tmp/zi/scratch | tail -n 1)" > /tmp/zi/scratch-check.txt
exec "$@"
SH
job torchrun-nccl-compile-tmpdir-scratch-full 120 \
  "TMPDIR=/tmp/zi/scratch NCCL_DEBUG=WARN MODE=compile PG_TIMEOUT_S=120 $TR --master_port 29773 $T" \
  unshare -m bash /tmp/zi/full_scratch.sh env TMPDIR=/tmp/zi/scratch NCCL_DEBUG=WARN MODE=compile PG_TIMEOUT_S=120 $TR --master_port 29773 $T &
J="$J $!"
# again, as in part 1 (their logs of part 1 did not come back: the run tool returns at most 8 files a call)
# 2 again. rank 1 paused (SIGSTOP) mid-training, flight recorder on
N2=torchrun-nccl-rank1-sigstopped-flight-recorder-pg-timeout-20s
job $N2 110 \
  "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE=/tmp/zi/fr/nccl_trace_rank_ NCCL_DEBUG=WARN PG_TIMEOUT_S=20 STEPS=40 STEP_SLEEP=0.5 $TR --master_port 29752 $T" \
  env TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_FR_DUMP_TEMP_FILE=/tmp/zi/fr/nccl_trace_rank_ NCCL_DEBUG=WARN PG_TIMEOUT_S=20 STEPS=40 STEP_SLEEP=0.5 PID_DIR=/tmp/zi/pids $TR --master_port 29752 $T &
J="$J $!"
( for i in $(seq 1 240); do grep -q '\[rank 1\] step 3 ' "$OUT/logs/$N2.log" 2>/dev/null && break; sleep 0.25; done
  p=$(cat /tmp/zi/pids/train.1 2>/dev/null); echo "   SIGSTOP to rank 1 (pid $p) at $(date -u +%T)"; [ -n "$p" ] && kill -STOP "$p" ) &
W="$!"
# 8 again. pipeline parallel, one micro-batch for two stages
job torchrun-pp2-schedule-1f1b-one-microbatch 60 \
  "NCCL_DEBUG=WARN MODE=pp LOCAL_BATCH=8 MICRO_BATCH=8 $TR --master_port 29758 $T" \
  env NCCL_DEBUG=WARN MODE=pp LOCAL_BATCH=8 MICRO_BATCH=8 $TR --master_port 29758 $T &
J="$J $!"
sleep 25; echo "GPU apps at 25 s: $(gpu_apps | tr '\n' ' ')"
wait $J
echo "$(cat /tmp/zi/scratch-check.txt 2>/dev/null)"
kill $W 2>/dev/null
p=$(cat /tmp/zi/pids/train.1 2>/dev/null); [ -n "$p" ] && { kill -CONT "$p"; kill -9 "$p"; } 2>/dev/null
cp /tmp/zi/fr/nccl_trace_rank_* "$OUT/" 2>/dev/null
fi
for p in $HOLDERS; do kill "$p" 2>/dev/null; done
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
