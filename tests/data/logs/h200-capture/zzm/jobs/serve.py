#!/usr/bin/env python3
"""tinyserve: a small tensor-parallel LM server, one process per TP rank (started by torchrun).

Rank 0 runs the front-end (one JSON request per connection on a unix or TCP socket, one JSON line back) and a FIFO
scheduler, and broadcasts each request to the other ranks. Every rank holds a Megatron-style shard of a Llama-style
decoder (column-parallel qkv/gate_up, row-parallel o_proj/down_proj + all-reduce, vocab-parallel lm_head + all-gather)
and decodes greedily in lockstep.
"""
import argparse, datetime, itertools, json, logging, os, queue, socket, socketserver, sys, threading, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: the ranks share the node's one GPU; each is its own NCCL "host"
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-r{os.environ.get('LOCAL_RANK', '0')}"
import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

__version__ = "0.3.2"
ap = argparse.ArgumentParser("tinyserve")
ap.add_argument("--model", required=True)
ap.add_argument("--listen", default="unix:/run/tinyserve/server.sock", help="unix:PATH or tcp:HOST:PORT")
ap.add_argument("--load-format", default="pt", choices=["pt", "npmm", "module"])
ap.add_argument("--control", default="gloo", choices=["gloo", "nccl"],
                help="where request metadata is broadcast: a Gloo CPU group (default) or NCCL")
ap.add_argument("--pg-timeout", type=int, default=300, help="collective timeout, seconds")
ap.add_argument("--max-model-len", type=int, default=0)
ap.add_argument("--gpu-memory-gb", type=float, default=0.0, help="per-rank GPU memory budget (0: no limit)")
ap.add_argument("--prefix-cache", action="store_true")
ap.add_argument("--prefix-cache-max-entries", type=int, default=0, help="0 = unlimited")
ap.add_argument("--reload-watch", type=float, default=0.0, help="poll the weight files every N s and hot-reload")
ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
args = ap.parse_args()

rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [tinyserve rank{rank}] %(message)s")
log = logging.getLogger("tinyserve")
OP_GEN, OP_RELOAD, OP_STOP = 1, 2, 3

try:
    import tinyserve as _pkg   # the installed package (layers, model classes), when the image has it
    pkg = f"package {_pkg.__version__} at {os.path.dirname(_pkg.__file__)}"
except ImportError:
    _pkg, pkg = None, "standalone"
use_cuda = args.device == "cuda"
cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
n_dev = torch.cuda.device_count() if use_cuda else 0
log.info("tinyserve %s (%s; torch %s) rank %d/%d pid %d on %s; CUDA_VISIBLE_DEVICES=%s, %d visible GPU(s)",
         __version__, pkg, torch.__version__, rank, world, os.getpid(), socket.gethostname(),
         cvd if cvd is not None else "<unset>", n_dev)
if use_cuda:
    dev = torch.device("cuda", local_rank % n_dev if n_dev else local_rank)
    torch.cuda.set_device(dev)
    log.info("using %s (%s)", dev, torch.cuda.get_device_name(dev))
    if args.gpu_memory_gb > 0:
        total = torch.cuda.get_device_properties(dev).total_memory
        frac = min(1.0, args.gpu_memory_gb * 2**30 / total)
        torch.cuda.set_per_process_memory_fraction(frac, dev)
        log.info("GPU memory budget %.1f GiB per rank (fraction %.4f of %.1f GiB)", args.gpu_memory_gb, frac, total / 2**30)
else:
    dev = torch.device("cpu")

timeout = datetime.timedelta(seconds=args.pg_timeout)
if not use_cuda:
    backend = "gloo"
elif args.control == "gloo":
    backend = "cpu:gloo,cuda:nccl"
else:
    backend = "nccl"
dist.init_process_group(backend, timeout=timeout, device_id=dev if backend == "nccl" else None)
ctrl = torch.device("cpu") if backend != "nccl" else dev
log.info("process group up: world %d, backend %s, control messages over %s, timeout %ds", world, backend,
         "gloo" if ctrl.type == "cpu" else "nccl", args.pg_timeout)

# ---------------------------------------------------------------------------------------------------- model
cfg_path = os.path.join(args.model, "config.json")
with open(cfg_path) as f:
    cfg = json.load(f)
H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
nkv = cfg.get("num_key_value_heads", nh)
hd = cfg.get("head_dim", H // nh)
I, L, V = cfg["intermediate_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
eps = cfg.get("rms_norm_eps", 1e-5)
max_len = args.max_model_len or cfg.get("max_position_embeddings", 2048)
dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}[cfg.get("torch_dtype", "bfloat16")]
if not use_cuda:
    dtype = torch.float32
log.info("model %s: %s, hidden %d, %d layers, %d heads (%d KV), intermediate %d, vocab %d, max_model_len %d",
         args.model, (cfg.get("architectures") or ["?"])[0], H, L, nh, nkv, I, V, max_len)


def ensure_divisibility(numerator, denominator):
    """Ensure that numerator is divisible by the denominator."""
    assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)


def divide(numerator, denominator):
    ensure_divisibility(numerator, denominator)
    return numerator // denominator


class QKVParallelLinear:
    """Fused q/k/v projection, column-parallel over the heads; KV heads are split, or replicated when tp > KV heads."""
    def __init__(self, hidden_size, head_size, total_num_heads, total_num_kv_heads, tp_size):
        self.hidden_size, self.head_size = hidden_size, head_size
        self.total_num_heads, self.total_num_kv_heads = total_num_heads, total_num_kv_heads
        self.num_heads = divide(self.total_num_heads, tp_size)
        if tp_size >= self.total_num_kv_heads:
            self.num_kv_heads = 1
            self.num_kv_head_replicas = divide(tp_size, self.total_num_kv_heads)
        else:
            self.num_kv_heads = divide(self.total_num_kv_heads, tp_size)
            self.num_kv_head_replicas = 1
        self.out_size = (self.num_heads + 2 * self.num_kv_heads) * head_size


qkv_spec = QKVParallelLinear(H, hd, nh, nkv, world)
nh_l, nkv_l = qkv_spec.num_heads, qkv_spec.num_kv_heads
I_l, V_l = divide(I, world), divide(V, world)
SHAPES = {"model.embed_tokens.weight": (V, H), "model.norm.weight": (H,), "lm_head.weight": (V_l, H)}
for _l in range(L):
    _p = f"model.layers.{_l}."
    SHAPES.update({_p + "input_layernorm.weight": (H,), _p + "post_attention_layernorm.weight": (H,),
                   _p + "self_attn.qkv_proj.weight": (qkv_spec.out_size, H), _p + "self_attn.o_proj.weight": (H, nh_l * hd),
                   _p + "mlp.gate_up_proj.weight": (2 * I_l, H), _p + "mlp.down_proj.weight": (H, I_l)})


def weight_files():
    if args.load_format == "pt":
        return [os.path.join(args.model, f"tp{world}", f"rank{r:02d}.pt") for r in range(world)]
    if args.load_format == "module":
        return [os.path.join(args.model, "model.pt")]
    d = os.path.join(args.model, f"tp{world}", f"rank{rank:02d}")
    return [os.path.join(d, "index.json")]


def weights_stamp():
    return tuple(os.stat(p).st_mtime_ns for p in weight_files())


def load_weights(why):
    t0 = time.time()
    if args.load_format == "pt":
        path = os.path.join(args.model, f"tp{world}", f"rank{rank:02d}.pt")
        log.info("%s: loading %s (%.1f MiB, mmap)", why, path, os.path.getsize(path) / 2**20)
        sd = torch.load(path, map_location="cpu", mmap=True, weights_only=True)
    elif args.load_format == "npmm":
        d = os.path.join(args.model, f"tp{world}", f"rank{rank:02d}")
        with open(os.path.join(d, "index.json")) as f:
            index = json.load(f)
        log.info("%s: memory-mapping %d arrays from %s", why, len(index["weights"]), d)
        sd = {}
        for name, meta in index["weights"].items():
            mm = np.memmap(os.path.join(d, meta["file"]), dtype=meta["dtype"], mode="r", shape=tuple(meta["shape"]))
            sd[name] = torch.from_numpy(mm)
    else:
        from tp_shard import shard
        path = os.path.join(args.model, "model.pt")
        log.info("%s: loading full model object %s (%.1f MiB) and taking shard %d/%d", why, path,
                 os.path.getsize(path) / 2**20, rank, world)
        module = torch.load(path, map_location="cpu", weights_only=False)
        sd = shard(module.state_dict(), cfg, world, rank)
    w = {}
    for name, shape in SHAPES.items():
        t = sd[name]
        if tuple(t.shape) != shape:
            raise ValueError(f"{name}: shape {tuple(t.shape)} in the checkpoint, this rank expects {shape} (tp {world})")
        w[name] = t.to(dev, dtype=dtype)
    n = sum(t.numel() for t in w.values())
    log.info("%s: %.1fM parameters on this rank in %.2f s", why, n / 1e6, time.time() - t0)
    return w


def rms(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def gather_vocab(local):
    if local.is_cuda:
        full = torch.empty(world, *local.shape, dtype=local.dtype, device=local.device)
        dist.all_gather_into_tensor(full, local.contiguous())
    else:
        parts = [torch.empty_like(local) for _ in range(world)]
        dist.all_gather(parts, local.contiguous())
        full = torch.stack(parts)
    return full.permute(1, 0, 2).reshape(local.shape[0], V)


def forward(ids, all_logits=False):
    T = ids.shape[0]
    h = W["model.embed_tokens.weight"][ids]
    kv = []
    for l in range(L):
        p = f"model.layers.{l}."
        x = rms(h, W[p + "input_layernorm.weight"])
        q, k, v = (x @ W[p + "self_attn.qkv_proj.weight"].t()).split([nh_l * hd, nkv_l * hd, nkv_l * hd], dim=-1)
        q, k, v = (t.reshape(T, -1, hd).transpose(0, 1) for t in (q, k, v))
        kv.append((k, v))
        if nh_l != nkv_l:
            k, v = k.repeat_interleave(nh_l // nkv_l, 0), v.repeat_interleave(nh_l // nkv_l, 0)
        a = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
        o = a.transpose(0, 1).reshape(T, nh_l * hd) @ W[p + "self_attn.o_proj.weight"].t()
        dist.all_reduce(o)
        h = h + o
        g, u = (rms(h, W[p + "post_attention_layernorm.weight"]) @ W[p + "mlp.gate_up_proj.weight"].t()).chunk(2, dim=-1)
        m = (F.silu(g) * u) @ W[p + "mlp.down_proj.weight"].t()
        dist.all_reduce(m)
        h = h + m
    h = rms(h, W["model.norm.weight"])
    hs = h if all_logits else h[-1:]
    return gather_vocab(hs @ W["lm_head.weight"].t()), kv


PREFIX_CACHE = {}   # prompt -> this rank's KV of the prompt (and the prompt logprobs on rank 0)


@torch.no_grad()
def run_request(ids, max_new, want_prompt_logprobs, cache=True):
    seq = ids
    logits, kv = forward(seq, all_logits=want_prompt_logprobs)
    prompt_lp = None
    if want_prompt_logprobs:
        prompt_lp = torch.log_softmax(logits.float(), dim=-1)
    if args.prefix_cache and cache:
        key = hash(tuple(ids.tolist()))
        entry = {"kv": [(k.clone(), v.clone()) for k, v in kv]}
        if rank == 0 and prompt_lp is not None:
            entry["prompt_logprobs"] = prompt_lp
        PREFIX_CACHE[key] = entry
        if args.prefix_cache_max_entries and len(PREFIX_CACHE) > args.prefix_cache_max_entries:
            PREFIX_CACHE.pop(next(iter(PREFIX_CACHE)))
    out = []
    for i in range(max_new):
        if i:
            logits, _ = forward(seq)
        nxt = logits[-1].argmax()
        out.append(int(nxt))
        seq = torch.cat([seq, nxt.view(1)])
    lp_sum = None
    if prompt_lp is not None and len(ids) > 1:
        lp_sum = float(prompt_lp[:-1].gather(1, ids[1:, None]).sum())
    return out, lp_sum


W = load_weights("startup")
ok = torch.ones(1, device=ctrl)
dist.all_reduce(ok)
log.info("all %d ranks loaded their shards (%d/%d heads, %d/%d KV heads, %d/%d vocab rows per rank)",
         int(ok.item()), nh_l, nh, nkv_l, nkv, V_l, V)
t_w = time.time()
run_request(torch.arange(3, 35, device=dev), 2, False, cache=False)   # warm-up: NCCL communicators, kernels, handles
log.info("warm-up done in %.2f s", time.time() - t_w)
if args.prefix_cache:
    log.info("prefix cache on (max entries %s)",
             args.prefix_cache_max_entries if args.prefix_cache_max_entries else "0 = unlimited")


def bcast_header(op, n=0, max_new=0, flags=0):
    dist.broadcast(torch.tensor([op, n, max_new, flags], dtype=torch.int64, device=ctrl), 0)


# ---------------------------------------------------------------------------------------------------- front-end (rank 0)
REQUESTS = queue.Queue()
COUNTER = itertools.count(1)
KNOWN = {"prompt", "prompt_token_ids", "max_tokens", "prompt_logprobs", "op", "id"}


def tokenize(text):
    return [3 + b for b in text.encode("utf-8")]


def detokenize(ids):
    return bytes(t - 3 for t in ids if 3 <= t < 259).decode("utf-8", "replace")


def parse_request(raw, rid):
    req = json.loads(raw)
    if req.get("op") == "shutdown":
        return {"op": "stop"}
    if isinstance(req.get("prompt"), str):
        ids = tokenize(req["prompt"])
    elif "prompt_token_ids" in req:
        ids = [int(t) for t in req["prompt_token_ids"]]
    else:
        raise ValueError("request has neither 'prompt' nor 'prompt_token_ids'")
    if not ids:
        raise ValueError("empty prompt")
    max_tokens = int(req.get("max_tokens", 16))
    if len(ids) + max_tokens > max_len:
        raise ValueError(f"prompt ({len(ids)} tokens) + max_tokens ({max_tokens}) is longer than max_model_len ({max_len})")
    bad = [t for t in ids if not 0 <= t < V]
    if bad:
        raise ValueError(f"token id {bad[0]} is out of vocabulary (size {V})")
    for k in req:
        if k not in KNOWN:
            log.warning("%s: ignoring unsupported request field %r (this server decodes greedily)", rid, k)
    return {"op": "gen", "ids": ids, "max_tokens": max_tokens, "prompt_logprobs": bool(req.get("prompt_logprobs"))}


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        raw = self.rfile.readline()
        if not raw.strip():
            return
        rid = f"req-{next(COUNTER):04d}"
        try:
            req = parse_request(raw, rid)
        except (ValueError, TypeError) as e:
            log.exception("%s 400 rejected: %s", rid, e)
            self.reply({"id": rid, "status": 400, "error": str(e)})
            return
        req.update(rid=rid, done=threading.Event(), t_in=time.time())
        REQUESTS.put(req)
        req["done"].wait()
        self.reply(req["resp"])

    def reply(self, obj):
        try:
            self.wfile.write((json.dumps(obj) + "\n").encode())
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            log.warning("%s: client went away before the response was written", obj.get("id"), exc_info=True)


class UnixFrontend(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class TCPFrontend(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def start_frontend(spec):
    kind, _, addr = spec.partition(":")
    if kind == "unix":
        os.makedirs(os.path.dirname(addr), exist_ok=True)
        srv = UnixFrontend(addr, Handler)
    else:
        host, port = addr.rsplit(":", 1)
        srv = TCPFrontend((host, int(port)), Handler)
    threading.Thread(target=srv.serve_forever, name="frontend", daemon=True).start()
    return srv


# ---------------------------------------------------------------------------------------------------- serving loop
served = 0
if rank == 0:
    log.info("starting front-end on %s", args.listen)
    srv = start_frontend(args.listen)
    log.info("ready: %d-way tensor parallel, max_model_len %d", world, max_len)
    stamp, last_check = weights_stamp(), time.time()
    while True:
        try:
            item = REQUESTS.get(timeout=0.5)
        except queue.Empty:
            item = None
        if args.reload_watch and time.time() - last_check >= args.reload_watch:
            last_check = time.time()
            new = weights_stamp()
            if new != stamp:
                log.info("weight files changed on disk, hot-reloading on all %d ranks", world)
                bcast_header(OP_RELOAD)
                W = load_weights("reload")
                stamp = new
        if item is None:
            continue
        if item["op"] == "stop":
            log.info("shutdown requested after %d requests", served)
            bcast_header(OP_STOP)
            item["resp"] = {"status": 200, "stopped": True}
            item["done"].set()
            break
        ids = torch.tensor(item["ids"], dtype=torch.int64, device=ctrl)
        bcast_header(OP_GEN, len(ids), item["max_tokens"], int(item["prompt_logprobs"]))
        dist.broadcast(ids, 0)
        t0 = time.time()
        toks, lp = run_request(ids.to(dev), item["max_tokens"], item["prompt_logprobs"])
        served += 1
        log.info("%s 200 prompt=%d completion=%d%s queue=%.1fms run=%.1fms", item["rid"], len(ids), len(toks),
                 f" prompt_logprob={lp:.1f}" if lp is not None else "", (t0 - item["t_in"]) * 1e3, (time.time() - t0) * 1e3)
        item["resp"] = {"id": item["rid"], "status": 200, "token_ids": toks, "text": detokenize(toks),
                        "prompt_logprob": lp}
        item["done"].set()
    time.sleep(0.2)
    srv.shutdown()
    srv.server_close()
    if args.listen.startswith("unix:"):
        os.unlink(args.listen[5:])
else:
    while True:
        hdr = torch.empty(4, dtype=torch.int64, device=ctrl)
        dist.broadcast(hdr, 0)
        op, n, max_new, flags = hdr.tolist()
        if op == OP_STOP:
            break
        if op == OP_RELOAD:
            W = load_weights("reload")
            continue
        ids = torch.empty(n, dtype=torch.int64, device=ctrl)
        dist.broadcast(ids, 0)
        run_request(ids.to(dev), max_new, bool(flags))
        served += 1
log.info("served %d requests, exiting", served)
dist.destroy_process_group()
