#!/usr/bin/env bash
# Z59 capture run ZK: faults made on purpose on the H200, real `vllm serve` (vLLM 0.26.0) and torch 2.11 / NCCL.
# Call (main, after p00..p06 were copied to /tmp/stage/ by earlier calls; p07 carried in this call):
#   timeout -k 5 585 bash .device/Z59/run_zk.sh 2>&1 | tee $OUT/run_zk.out
set -u
set -m   # background jobs keep SIGINT (timeout -s INT must reach them)
OUT=$(cd "$OUT" && pwd)
R=$(pwd)
Z=/tmp/z59
mkdir -p $Z "$OUT/logs" /tmp/stage
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }

# ---------------------------------------------------------------- install vLLM (background)
(
  cp .device/stage/parts/p07 /tmp/stage/p07
  ls -la /tmp/stage
  cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl || exit 4
  echo "install ok"
) > $Z/install.out 2>&1 &
INST=$!

# ---------------------------------------------------------------- models, scripts (node's own torch/transformers)
python3 - > $Z/prep.out 2>&1 <<'PY'
import json, os, torch
def cfg(d, c):
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=512, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2)
cfg("/tmp/z59/tiny", TINY)
# Mixtral-style MoE, 8 experts, top-2
cfg("/tmp/z59/mixtral-tiny", dict(architectures=["MixtralForCausalLM"], model_type="mixtral", hidden_size=256,
    intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
    max_position_embeddings=512, num_local_experts=8, num_experts_per_tok=2, rope_theta=1000000.0,
    rms_norm_eps=1e-5, hidden_act="silu", sliding_window=None, tie_word_embeddings=False, router_aux_loss_coef=0.02,
    output_router_logits=False, torch_dtype="bfloat16", bos_token_id=1, eos_token_id=2))
# a 262144-token vocabulary, 64k context, small body
c = dict(TINY); c.update(vocab_size=262144, max_position_embeddings=65536, rope_theta=1000000.0)
cfg("/tmp/z59/llama-vocab262k-64k", c)
# real tiny weights saved as a PyTorch .bin checkpoint, then the copy cut short
from transformers import LlamaConfig, LlamaForCausalLM
lc = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
lc.architectures = ["LlamaForCausalLM"]
m = LlamaForCausalLM(lc).to(torch.bfloat16)
d = "/tmp/z59/tiny-bin"
os.makedirs(d, exist_ok=True)
lc.save_pretrained(d)
torch.save(m.state_dict(), os.path.join(d, "pytorch_model.bin"))
p = os.path.join(d, "pytorch_model.bin")
n = os.path.getsize(p)
with open(p, "r+b") as f:
    f.truncate(n * 45 // 100)
print("tiny-bin:", sorted(os.listdir(d)), "pytorch_model.bin", n, "->", os.path.getsize(p))
PY
cat $Z/prep.out

mkdir -p $Z/site
cat > $Z/site/sitecustomize.py <<'PY'
import os
if os.environ.get("RANK") is not None and os.environ.get("Z59_HOSTID_PER_RANK") == "1":
    os.environ.setdefault("NCCL_HOSTID", "node" + os.environ["RANK"])  # one "host" per rank
PY

cat > $Z/train.py <<'PY'
import datetime, os, socket, time
import torch
import torch.distributed as dist

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
backend = os.environ.get("BACKEND", "nccl")
dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[os.environ.get("TRAIN_DTYPE", "fp32")]
device = torch.device("cuda", 0) if backend == "nccl" else torch.device("cpu")
if backend == "nccl":
    torch.cuda.set_device(device)
timeout = datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "1800")))
dist.init_process_group(backend, timeout=timeout, device_id=device if backend == "nccl" else None)
log(f"process group ready: backend {backend}, world {world}, torch {torch.__version__}, host {socket.gethostname()}")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device, dtype)
if os.environ.get("COMPILE") == "1":
    model = torch.compile(model)
    log("model compiled with torch.compile")
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
log(f"model dtype {dtype}, {sum(p.numel() for p in model.parameters())} parameters")
for step in range(int(os.environ.get("STEPS", "6"))):
    x = torch.randn(64, 1024, device=device, dtype=dtype)
    loss = (model(x) - x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    for p in model.parameters():          # manual gradient averaging
        dist.all_reduce(p.grad)
        p.grad /= world
    opt.step()
    metrics = torch.stack([loss.detach()])
    dist.all_reduce(metrics)
    if rank == 0:
        log(f"step {step} loss {metrics[0].item() / world:.5f}")
dist.barrier()
dist.destroy_process_group()
log("done")
PY

cat > $Z/gather_full.py <<'PY'
# gather the full (unsharded) flat parameter on every rank's GPU before saving a checkpoint
import datetime, os, time
import torch, torch.distributed as dist
rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)
torch.cuda.set_device(0)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=20), device_id=torch.device("cuda", 0))
shard_gib = float(os.environ.get("SHARD_GIB", "50"))
n = int(shard_gib * 2**30 / 2)
shard = torch.empty(n, dtype=torch.bfloat16, device="cuda")
log(f"training shard {shard_gib:.0f} GiB bf16 ({n} elements) on cuda:0")
dist.barrier()
log("saving checkpoint: all_gather_into_tensor of the full state on GPU")
full = torch.empty(n * world, dtype=torch.bfloat16, device="cuda")
dist.all_gather_into_tensor(full, shard)
torch.cuda.synchronize()
log("gathered")
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
_, _, pa, na, aa, pb, nb, ab = sys.argv
setns(int(pa)); make_veth(na, nb, int(pb)); up("lo")
if aa != "-": set_addr(na, aa)
up(na)
setns(int(pb)); up("lo")
if ab != "-": set_addr(nb, ab)
up(nb)
print(f"veth {pa}:{na} ({aa}) <-> {pb}:{nb} ({ab}) ok")
PY
cat > $Z/inns.py <<'PY'
import ctypes, os, sys
fd = os.open(f"/proc/{sys.argv[1]}/ns/net", os.O_RDONLY)
if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
    raise OSError(ctypes.get_errno(), "setns")
os.close(fd)
os.execvp(sys.argv[2], sys.argv[2:])
PY

# HTTP client for the servers: wait for /health, then the requests of SPEC
cat > $Z/client.py <<'PY'
import json, random, sys, time, urllib.request, urllib.error
port, spec, wait, model = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
B = f"http://127.0.0.1:{port}"
ok = False
for i in range(wait):
    try:
        urllib.request.urlopen(B + "/health", timeout=2); ok = True; break
    except Exception:
        time.sleep(1)
print(f"   [{spec}] server on {port} healthy: {ok} after {i} s", flush=True)
if not ok:
    sys.exit(0)
def call(path, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(B + path, data=data, headers={"Content-Type": "application/json"})
    try:
        r = urllib.request.urlopen(req, timeout=timeout)
        print(f"   [{spec}] {path} {r.status} {r.read()[:200]!r}", flush=True)
    except urllib.error.HTTPError as e:
        print(f"   [{spec}] {path} {e.code} {e.read()[:300]!r}", flush=True)
    except Exception as e:
        print(f"   [{spec}] {path} failed: {e!r}", flush=True)
if spec == "one":
    call("/v1/completions", {"model": model, "prompt": [1, 2, 3, 4, 5, 6, 7, 8], "max_tokens": 16})
    call("/v1/completions", {"model": model, "prompt": [9, 10, 11, 12], "max_tokens": 8, "temperature": 0.7})
elif spec == "plp":
    random.seed(0)
    prompt = [random.randrange(10, 262000) for _ in range(60000)]
    call("/v1/completions", {"model": model, "prompt": prompt, "max_tokens": 1, "prompt_logprobs": 1}, timeout=150)
    time.sleep(5)
    call("/v1/completions", {"model": model, "prompt": [1, 2, 3, 4], "max_tokens": 4})
time.sleep(3)
PY

# triton hidden (overlay whiteouts in a private mount namespace): no_triton.sh CMD...
TDIR=$(python3 -c "import triton, os; print(os.path.dirname(triton.__path__[0]))")
echo "triton lives in $TDIR: $(ls $TDIR | grep -i '^triton' | tr '\n' ' ')"
cat > $Z/no_triton.sh <<SH
set -e
mkdir -p $Z/ov && mount -t tmpfs tmpfs $Z/ov && mkdir -p $Z/ov/u $Z/ov/w
for f in \$(ls $TDIR | grep '^triton'); do mknod $Z/ov/u/\$f c 0 0; done
mount -t overlay overlay -o lowerdir=$TDIR,upperdir=$Z/ov/u,workdir=$Z/ov/w $TDIR
exec "\$@"
SH
# /etc/hosts mapping this host's name to an old address: stale_hosts.sh CMD...
grep -v "$(hostname)" /etc/hosts > $Z/hosts-stale; echo "10.254.254.254	$(hostname)" >> $Z/hosts-stale
cat > $Z/stale_hosts.sh <<SH
set -e
mount --bind $Z/hosts-stale /etc/hosts
exec "\$@"
SH

# ---------------------------------------------------------------- helpers
VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager"
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
fin() {  # NAME RC
  echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"
  tail -n 3 "$OUT/logs/$1.log" | cut -c1-220
}
# job NAME LIMIT SHOWN CMD...: the log starts with "$ SHOWN", then the whole output of CMD
job() {
  local name=$1 limit=$2 shown=$3; shift 3
  echo "== $name: $shown"
  echo "\$ $shown" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" "$@" >> "$OUT/logs/$name.log" 2>&1
  fin $name $?
}
# srv NAME LIMIT PORT SPEC MODEL SHOWN CMD...: a server (CMD) plus a client, then SIGINT
srv() {
  local name=$1 limit=$2 port=$3 spec=$4 model=$5 shown=$6; shift 6
  echo "== $name: $shown"
  echo "\$ $shown" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" "$@" >> "$OUT/logs/$name.log" 2>&1 &
  local S=$!
  if [ "$spec" != none ]; then
    python3 $Z/client.py "$port" "$spec" $((limit - 20)) "$model" || true
    kill -INT $S 2>/dev/null
  fi
  wait $S; fin $name $?
}

wait $INST; cat $Z/install.out
[ -d /tmp/site/vllm ] || { echo "vLLM not installed"; exit 5; }
export PYTHONPATH=/tmp/site VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
python3 -c "import torch, vllm; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'vllm', vllm.__version__)" 2>&1 | tail -n 1

# network namespaces for the two-node torch job (node ns + a storage-network ns per node)
unshare -n sleep 500 >/dev/null 2>&1 & NA=$!
unshare -n sleep 500 >/dev/null 2>&1 & NB=$!
unshare -n sleep 500 >/dev/null 2>&1 & SA=$!
unshare -n sleep 500 >/dev/null 2>&1 & SB=$!
sleep 0.5
python3 $Z/netns.py veth $NA eth1 10.77.0.1 $NB eth1 10.77.0.2
python3 $Z/netns.py veth $NA eth0 10.88.0.1 $SA st0 -
python3 $Z/netns.py veth $NB eth0 10.88.0.2 $SB st0 -
HOLDERS="$NA $NB $SA $SB"

# ================================================================ phase A (in parallel)
ts "phase A"
J=""
# V1 resources: PYTORCH_CUDA_ALLOC_CONF with a lower-case boolean
( export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true
  srv vllm026-pytorch-cuda-alloc-conf-expandable-segments-lowercase-true 120 8901 none - \
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true vllm serve /tmp/z59/tiny $TA $GMU --port 8901" \
    $VS /tmp/z59/tiny $TA $GMU --port 8901 ) &
J="$J $!"
# V2 other: a PyTorch .bin checkpoint cut short (copy interrupted)
( srv vllm026-pytorch-model-bin-truncated-copy 120 8902 none - \
    "vllm serve /tmp/z59/tiny-bin --skip-tokenizer-init --enforce-eager $GMU --port 8902" \
    $VS /tmp/z59/tiny-bin --skip-tokenizer-init --enforce-eager $GMU --port 8902 ) &
J="$J $!"
# V3 communication: TP 2 over two "nodes", node 1 started with --dtype float32 (node 0: the model's bfloat16)
( name=vllm026-2nodes-tp2-node1-dtype-float32-node0-bfloat16
  log=$OUT/logs/$name.log
  C="$VS /tmp/z59/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --master-addr 127.0.0.1 --master-port 30911"
  echo "== $name"
  { echo "# node 1: \$ NCCL_DEBUG=WARN vllm serve /tmp/z59/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --dtype float32 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 30911 --headless"
    echo "# node 0: \$ NCCL_DEBUG=WARN vllm serve /tmp/z59/tiny $TA --gpu-memory-utilization 0.1 --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 30911 --port 8903"; } > $log
  NCCL_HOSTID=node1 NCCL_DEBUG=WARN timeout -s INT -k 10 170 $C --dtype float32 --node-rank 1 --headless >> $log 2>&1 &
  p1=$!; sleep 1
  NCCL_HOSTID=node0 NCCL_DEBUG=WARN timeout -s INT -k 10 170 $C --node-rank 0 --port 8903 >> $log 2>&1 &
  p0=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# V4 partitioning: Mixtral-style MoE (8 experts), TP 2 + EP over two "nodes", EPLB with 1 redundant expert
( name=vllm026-2nodes-tp2-ep-mixtral-8-experts-eplb-redundant-1
  log=$OUT/logs/$name.log
  C="$VS /tmp/z59/mixtral-tiny $TA $GMU --tensor-parallel-size 2 --enable-expert-parallel --enable-eplb --nnodes 2 --master-addr 127.0.0.1 --master-port 30912"
  EC='{"num_redundant_experts": 1}'
  echo "== $name"
  { echo "# node 1: \$ vllm serve /tmp/z59/mixtral-tiny $TA $GMU --tensor-parallel-size 2 --enable-expert-parallel --enable-eplb --eplb-config '$EC' --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 30912 --headless"
    echo "# node 0: \$ vllm serve /tmp/z59/mixtral-tiny $TA $GMU --tensor-parallel-size 2 --enable-expert-parallel --enable-eplb --eplb-config '$EC' --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 30912 --port 8904"; } > $log
  NCCL_HOSTID=node1 timeout -s INT -k 10 150 $C --eplb-config "$EC" --node-rank 1 --headless >> $log 2>&1 &
  p1=$!; sleep 1
  NCCL_HOSTID=node0 timeout -s INT -k 10 150 $C --eplb-config "$EC" --node-rank 0 --port 8904 >> $log 2>&1 &
  p0=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# V5 versions: the triton package missing from the image, default compile + CUDA graphs, one request
( srv vllm026-triton-package-missing-compile-on 170 8905 one /tmp/z59/tiny \
    "vllm serve /tmp/z59/tiny --load-format dummy --skip-tokenizer-init $GMU --port 8905   # image without the triton package" \
    unshare -m bash $Z/no_triton.sh $VS /tmp/z59/tiny --load-format dummy --skip-tokenizer-init $GMU --port 8905 ) &
J="$J $!"
# V6 healthy: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 --max-model-len 1024 on a 512-position model, short requests
( export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
  srv vllm026-allow-long-max-model-len-1024-short-prompts-served-ok 170 8906 one /tmp/z59/tiny \
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve /tmp/z59/tiny $TA $GMU --max-model-len 1024 --port 8906" \
    $VS /tmp/z59/tiny $TA $GMU --max-model-len 1024 --port 8906 ) &
J="$J $!"
# T1 communication: two nodes (netns), NCCL_SOCKET_IFNAME=eth0 = each node's own storage network (10.88.0.0/24, not routed between nodes)
( name=2nodes-torchrun-nccl-socket-ifname-eth0-storage-net
  log=$OUT/logs/$name.log
  S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 10.77.0.1 --master_port 29911"
  E="NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 PG_TIMEOUT_S=30"
  echo "== $name"
  { echo "# node 0: \$ $E $S --node_rank 0 train.py"; echo "# node 1: \$ $E $S --node_rank 1 train.py"; } > $log
  timeout -s INT -k 10 100 python3 $Z/inns.py $NA env NCCL_HOSTID=node0 $E $S --node_rank 0 $Z/train.py >> $log 2>&1 &
  p0=$!; sleep 1
  timeout -s INT -k 10 100 python3 $Z/inns.py $NB env NCCL_HOSTID=node1 $E $S --node_rank 1 $Z/train.py >> $log 2>&1 &
  p1=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# T2 communication: two "nodes", node 1 trains in bf16 (TRAIN_DTYPE=bf16 in its env), node 0 in fp32; manual grad all_reduce
( name=2nodes-torchrun-nccl-node1-bf16-node0-fp32-grad-allreduce
  log=$OUT/logs/$name.log
  S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 127.0.0.1 --master_port 29912"
  echo "== $name"
  { echo "# node 0: \$ NCCL_DEBUG=INFO PG_TIMEOUT_S=20 TRAIN_DTYPE=fp32 $S --node_rank 0 train.py"
    echo "# node 1: \$ NCCL_DEBUG=INFO PG_TIMEOUT_S=20 TRAIN_DTYPE=bf16 $S --node_rank 1 train.py"; } > $log
  NCCL_HOSTID=node0 NCCL_DEBUG=INFO PG_TIMEOUT_S=20 TRAIN_DTYPE=fp32 timeout -s INT -k 10 90 $S --node_rank 0 $Z/train.py >> $log 2>&1 &
  p0=$!; sleep 1
  NCCL_HOSTID=node1 NCCL_DEBUG=INFO PG_TIMEOUT_S=20 TRAIN_DTYPE=bf16 timeout -s INT -k 10 90 $S --node_rank 1 $Z/train.py >> $log 2>&1 &
  p1=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
# T3 resources: c10d rendezvous port 29400 already held by another service (an HTTP server)
( python3 -m http.server 29400 --bind 0.0.0.0 > $Z/http29400.out 2>&1 &
  H=$!; sleep 2
  export PYTHONPATH=$Z/site:$PYTHONPATH Z59_HOSTID_PER_RANK=1
  job torchrun-c10d-rdzv-port-29400-held-by-http-server 100 \
    "NCCL_DEBUG=INFO torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29400 --rdzv_id job42 train.py" \
    env NCCL_DEBUG=INFO torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29400 --rdzv_id job42 $Z/train.py
  kill $H ) &
J="$J $!"
# H1 healthy: gloo CPU job, this host's name mapped to an old address in /etc/hosts (gloo falls back to loopback)
( job torchrun-gloo-hostname-stale-etc-hosts-loopback-fallback-ok 90 \
    "BACKEND=gloo STEPS=8 torchrun --nproc_per_node 2 --master_addr 127.0.0.1 --master_port 29913 train.py   # /etc/hosts: 10.254.254.254 $(hostname)" \
    unshare -m bash $Z/stale_hosts.sh env BACKEND=gloo STEPS=8 torchrun --nproc_per_node 2 --master_addr 127.0.0.1 --master_port 29913 $Z/train.py ) &
J="$J $!"
# T7 versions: torch.compile in an image without the triton package, torchrun x1
( job torchrun-nccl-compile-triton-package-missing 120 \
    "NCCL_DEBUG=INFO COMPILE=1 torchrun --nproc_per_node 1 --master_port 29914 train.py   # image without the triton package" \
    unshare -m bash $Z/no_triton.sh env NCCL_DEBUG=INFO COMPILE=1 torchrun --nproc_per_node 1 --master_port 29914 $Z/train.py ) &
J="$J $!"
sleep 60; ts "GPU apps at 60 s: $(gpu_apps)"
sleep 40; ts "GPU apps at 100 s: $(gpu_apps)"
wait $J
ts "phase A done; GPU apps: $(gpu_apps)"
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
sleep 2

# ================================================================ phase B (one at a time, large GPU memory)
# T6 resources: all_gather of 50 GiB shards into a 100 GiB full tensor on each rank's GPU (two "nodes")
( name=2nodes-torchrun-nccl-all-gather-full-state-50gib-shards
  log=$OUT/logs/$name.log
  S="torchrun --nnodes 2 --nproc_per_node 1 --master_addr 127.0.0.1 --master_port 29915"
  echo "== $name"
  { echo "# node 0: \$ NCCL_DEBUG=INFO SHARD_GIB=50 $S --node_rank 0 gather_full.py"
    echo "# node 1: \$ NCCL_DEBUG=INFO SHARD_GIB=50 $S --node_rank 1 gather_full.py"; } > $log
  NCCL_HOSTID=node0 NCCL_DEBUG=INFO SHARD_GIB=50 timeout -s INT -k 10 60 $S --node_rank 0 $Z/gather_full.py >> $log 2>&1 &
  p0=$!; sleep 1
  NCCL_HOSTID=node1 NCCL_DEBUG=INFO SHARD_GIB=50 timeout -s INT -k 10 60 $S --node_rank 1 $Z/gather_full.py >> $log 2>&1 &
  p1=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" )
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
sleep 2
# V7 resources: prompt_logprobs over a 60000-token prompt, vocab 262144, --max-num-batched-tokens 65536
srv vllm026-prompt-logprobs-60k-tokens-vocab-262k 170 8908 plp /tmp/z59/llama-vocab262k-64k \
  "vllm serve /tmp/z59/llama-vocab262k-64k $TA --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 100G --max-model-len 65536 --max-num-batched-tokens 65536 --port 8908" \
  $VS /tmp/z59/llama-vocab262k-64k $TA --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 100G --max-model-len 65536 --max-num-batched-tokens 65536 --port 8908

ts "all done; GPU apps: $(gpu_apps)"
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
for h in $HOLDERS; do kill $h 2>/dev/null; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zk-logs.tar" logs && rm -r "$OUT/logs"
true
