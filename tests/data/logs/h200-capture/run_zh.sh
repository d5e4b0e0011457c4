#!/usr/bin/env bash
# Capture run ZH (session 10, collector Z50): a blind batch, real `vllm serve` (vLLM 0.26.0) at TP 1
# or as two "nodes" on the one GPU (node 0 + a --headless node 1, one shared log, NCCL_HOSTID per
# node) as in run_p.sh..run_zg.sh. The wheel is staged as 52 MiB chunks joined into /tmp/part0
# (part1..4 empty), as in run_q.sh..run_zg.sh, except that the chunks are 44 MiB
# (.device/validate/z50/p0..p6, git-ignored, split from the same wheel: sha256 adb1e4c9...): in
# session 10 the tracked tree (11.4 MB) plus a 52 MiB chunk was refused as over the 64 MiB limit.
# Carry: .device/validate/whl (first main call).
# STATUS (session 10): RUN by Z50 in a continued session (06:03-06:17 UTC; the first attempt, whose machine start
# alone took about 470 s, made no main call). Console: output/run_zh.out. Probes: transformers 5.17.0,
# tokenizers 0.23.2, numba 0.68.0 (so ZH_PART=1 item 8 skipped itself), sentencepiece 0.2.2, tiktoken 0.14.0,
# safetensors 0.8.0, /usr/bin/gcc-12 installed (so ZH_PART=2 item 6 uses CC=/usr/bin/clang-17, confirmed absent),
# /dev/shm 128G, cgroup v2 controllers "cpuset cpu io memory hugetlb pids". Kept 11 logs; dropped 3 that their time
# limit stopped before the fault showed (part 2 items 3, 5, 7: startup was slowed by 7 servers starting at once);
# part 2 item 2 (node 1's model copy another size) was accepted by vLLM and started healthy (kept as none/none).
# The machine is given back after 30 s idle: chain calls with no pause (twice a fresh machine needed restaging).
# Staging for a later run: p0 alone, then p1..p6 back to back (cp to /tmp), then
#   cat /tmp/p0 ... /tmp/p6 > /tmp/part0 && rm /tmp/p? && : > /tmp/part1 ... /tmp/part4
# Small servers use --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that servers
# starting together do not count each other. Logs go to $OUT/logs and come back as one tar file
# ($OUT/zh-logs-partN.tar; the device tool brings back at most 8 files per call).
# ZH_PART=1 (installs first), in parallel, TP 1:
#   1. resources: --enable-lora --lora-modules sql-lora=<a PEFT adapter trained with r=64>, the
#      default --max-lora-rank (16)
#   2. other: a real tiny Llama checkpoint copied without its tokenizer files (config.json,
#      generation_config.json, model.safetensors only), served without --skip-tokenizer-init
#   3. resources: VLLM_RPC_BASE_PATH on a volume out of inodes (a tmpfs with nr_inodes=48, filled
#      by stale files left by earlier servers)
#   4. network: a hub model id on a node that reaches the Internet only through an HTTP proxy,
#      HTTPS_PROXY/HTTP_PROXY at a proxy sidecar that is not running (127.0.0.1:3128), empty HF cache
#   5. other: the model directory owned by root with mode 0700 (downloaded as root under umask 077),
#      the server run as an unprivileged service user (uid 65534)
#   6. other: speculative decoding with a draft model of another family (Qwen2.5-7B-Instruct target,
#      Llama-3.2-1B-Instruct draft: vocab 152064 vs 128256)
#   7. healthy but noisy: a base model with a real tokenizer but no chat template; a client calls
#      /v1/chat/completions (400), then /v1/completions with text (200), then SIGINT
#   8. versions (only if numba is missing on the node): --speculative-config method ngram
# ZH_PART=2, in parallel:
#   1. partitioning: TP 2 over two "nodes", SmolLM2-1.7B-Instruct target with SmolLM2-135M-Instruct
#      as draft model (9 attention heads, 3 KV heads)
#   2. communication: TP 2 over two "nodes", the model path on node 1 holds another size of the
#      same tiny family (hidden 512 / 8 heads vs 256 / 4 heads, same KV heads and head_dim),
#      NCCL_DEBUG=INFO, one request sent to node 0
#   3. network: TP 2 over two "nodes", node 1 given --master-addr 127.0.0.1:PORT (host:port, as
#      torchrun's --rdzv-endpoint takes it)
#   4. resources: --kv-offloading-size 24 (CPU KV offloading, GiB) in a cgroup with memory.max 8G
#      and no swap (a container memory limit)
#   5. healthy but noisy: LoRA served: --enable-lora --max-lora-rank 16 --lora-modules sql-lora=<r 8
#      adapter>; /v1/models, a base request, an adapter request, an unknown adapter (404), SIGINT
#   6. versions: --attention-backend TRITON_ATTN with CC=/usr/bin/clang-17 left in the environment
#      by the image's build stage (clang-17 not installed in the runtime image), fresh HOME; a request
#   7. other: --lora-modules an adapter (r 16) trained for a 4096-wide Llama-2-7B on a 256-wide
#      base; a request to the adapter
# Call: ZH_PART=N timeout -k 5 LIMIT bash tests/data/logs/h200-capture/run_zh.sh 2>&1 | tee $OUT/run_zh-partN.out
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
ZH_PART=${ZH_PART:-1}
OUT=$(cd "$OUT" && pwd)

# model directories and adapters (node's own torch/transformers/safetensors), made beside the install
python3 - "$ZH_PART" > /tmp/zh-prep.out 2>&1 <<'PY' &
import json, os, sys, traceback
part = sys.argv[1]
def make(fn):
    try:
        fn(); print("written:", fn.__name__)
    except Exception:
        traceback.print_exc()
def cfg(d, c):
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=512, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16")
def real_tiny(d, vocab=1024):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    c = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=vocab, max_position_embeddings=512)
    c.architectures = ["LlamaForCausalLM"]
    LlamaForCausalLM(c).to(torch.bfloat16).save_pretrained(d)
def adapter(d, r, hidden, kv_out, alpha):
    import torch
    from safetensors.torch import save_file
    os.makedirs(d, exist_ok=True)
    mods = {"q_proj": (hidden, hidden), "k_proj": (hidden, kv_out), "v_proj": (hidden, kv_out), "o_proj": (hidden, hidden)}
    t = {}
    for i in range(2):
        for m, (fin, fout) in mods.items():
            p = f"base_model.model.model.layers.{i}.self_attn.{m}"
            t[p + ".lora_A.weight"] = (torch.randn(r, fin) * 0.01).to(torch.bfloat16)
            t[p + ".lora_B.weight"] = (torch.randn(fout, r) * 0.01).to(torch.bfloat16)
    save_file(t, os.path.join(d, "adapter_model.safetensors"), metadata={"format": "pt"})
    json.dump({"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": r, "lora_alpha": alpha, "lora_dropout": 0.05,
               "target_modules": list(mods), "bias": "none", "fan_in_fan_out": False, "inference_mode": True,
               "modules_to_save": None, "use_rslora": False, "use_dora": False,
               "base_model_name_or_path": "/tmp/tiny" if hidden == 256 else "meta-llama/Llama-2-7b-hf",
               "revision": None}, open(os.path.join(d, "adapter_config.json"), "w"), indent=2)
def lora_r64():
    adapter("/tmp/zh-lora-sql-r64", 64, 256, 128, 128)
def weights_no_tokenizer():
    real_tiny("/tmp/zh-tiny-chat-weights-only")
    print("   ", sorted(os.listdir("/tmp/zh-tiny-chat-weights-only")))
def root_only():
    d = "/tmp/zh-models/tiny-chat"
    real_tiny(d)
    os.chmod("/tmp/zh-models", 0o755)
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o600)
    os.chmod(d, 0o700)
def draft_other_family():
    cfg("/tmp/zh-qwen2.5-7b-instruct", dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=3584,
        intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4,
        vocab_size=152064, max_position_embeddings=32768, rope_theta=1000000.0, rms_norm_eps=1e-6, hidden_act="silu",
        sliding_window=131072, max_window_layers=28, use_sliding_window=False, tie_word_embeddings=False,
        bos_token_id=151643, eos_token_id=151645, torch_dtype="bfloat16"))
    cfg("/tmp/zh-llama3.2-1b-instruct", dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=2048,
        intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8, head_dim=64,
        vocab_size=128256, max_position_embeddings=131072, rope_theta=500000.0,
        rope_scaling={"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                      "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        rms_norm_eps=1e-5, hidden_act="silu", tie_word_embeddings=True, bos_token_id=128000,
        eos_token_id=[128001, 128008, 128009], torch_dtype="bfloat16"))
def no_chat_template():
    from tokenizers import Tokenizer, models, trainers, pre_tokenizers, decoders
    from transformers import PreTrainedTokenizerFast
    d = "/tmp/zh-tiny-base"
    real_tiny(d)
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    text = [open(f, errors="ignore").read() for f in
            [os.path.join(os.path.dirname(json.__file__), n) for n in ("decoder.py", "encoder.py", "scanner.py", "__init__.py")]]
    tr = trainers.BpeTrainer(vocab_size=1000, special_tokens=["<unk>", "<s>", "</s>"],
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(text * 4, tr)
    PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>").save_pretrained(d)
    print("   ", sorted(os.listdir(d)), "vocab", tok.get_vocab_size())
def smollm2():
    cfg("/tmp/zh-smollm2-1.7b-instruct", dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=2048,
        intermediate_size=8192, num_hidden_layers=24, num_attention_heads=32, num_key_value_heads=32,
        vocab_size=49152, max_position_embeddings=8192, rope_theta=130000, rms_norm_eps=1e-5, hidden_act="silu",
        tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, torch_dtype="bfloat16"))
    cfg("/tmp/zh-smollm2-135m-instruct", dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=576,
        intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
        vocab_size=49152, max_position_embeddings=8192, rope_theta=100000, rms_norm_eps=1e-5, hidden_act="silu",
        tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, torch_dtype="bfloat16"))
def model_copy_drift():
    cfg("/tmp/zh-tiny-chat", dict(TINY))                       # node 0's copy
    b = dict(TINY); b.update(hidden_size=512, intermediate_size=1024, num_attention_heads=8)
    cfg("/tmp/zh-tiny-chat-node1", b)                          # node 1's copy (mounted at the same path)
def lora_r8():
    adapter("/tmp/zh-lora-sql-r8", 8, 256, 128, 16)
def lora_other_base():
    adapter("/tmp/zh-lora-llama2-7b-sql-r16", 16, 4096, 4096, 32)
todo = {"1": (lora_r64, weights_no_tokenizer, root_only, draft_other_family, no_chat_template),
        "2": (smollm2, model_copy_drift, lora_r8, lora_other_base)}[part]
for f in todo:
    make(f)
PY
PREP=$!
if [ "$ZH_PART" = 1 ] || [ ! -d /tmp/site/vllm ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
wait $PREP; cat /tmp/zh-prep.out
. tests/data/logs/h200-capture/common.sh

# serve2 NAME LIMIT ENVDESC ARGS...: as in run_zg.sh (the command as the log's first line)
serve2() {
  local name=$1 limit=$2 envdesc=$3; shift 3
  echo "== $name: $envdesc vllm serve $*"
  { echo "\$ ${envdesc:+$envdesc }vllm serve $*"
    timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$@"; } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
# client PORT SPEC [WAIT_S]: wait for /health, then the requests of SPEC (python below); prints results
client() {
  python3 /tmp/zh-client.py "$@" || true
}
cat > /tmp/zh-client.py <<'PY'
import json, sys, time, urllib.request, urllib.error
port, spec = sys.argv[1], sys.argv[2]
wait = int(sys.argv[3]) if len(sys.argv) > 3 else 110
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
def call(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(B + path, data=data, headers={"Content-Type": "application/json"})
    try:
        r = urllib.request.urlopen(req, timeout=40)
        print(f"   [{spec}] {path} {r.status} {r.read()[:160]!r}", flush=True)
    except urllib.error.HTTPError as e:
        print(f"   [{spec}] {path} {e.code} {e.read()[:200]!r}", flush=True)
    except Exception as e:
        print(f"   [{spec}] {path} failed: {e!r}", flush=True)
if spec == "chat-template":
    m = "/tmp/zh-tiny-base"
    call("/v1/chat/completions", {"model": m, "messages": [{"role": "user", "content": "Write a haiku about GPUs."}], "max_tokens": 16})
    call("/v1/completions", {"model": m, "prompt": "def decode(self, s):", "max_tokens": 16})
elif spec == "ngram":
    m = "/tmp/tiny"
    call("/v1/completions", {"model": m, "prompt": [5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7], "max_tokens": 24})
elif spec == "lora-ok":
    m = "/tmp/tiny"
    call("/v1/models")
    call("/v1/completions", {"model": m, "prompt": [1, 2, 3, 4], "max_tokens": 8})
    call("/v1/completions", {"model": "sql-lora", "prompt": [1, 2, 3, 4], "max_tokens": 8})
    call("/v1/completions", {"model": "chat-lora", "prompt": [1, 2, 3, 4], "max_tokens": 8})
elif spec == "lora-other-base":
    call("/v1/completions", {"model": "sql-lora", "prompt": [1, 2, 3, 4], "max_tokens": 8})
    time.sleep(2)
    call("/v1/completions", {"model": "/tmp/tiny", "prompt": [1, 2, 3, 4], "max_tokens": 8})
elif spec in ("one", "mismatch"):
    m = "/tmp/zh-tiny-chat" if spec == "mismatch" else "/tmp/tiny"
    call("/v1/completions", {"model": m, "prompt": [1, 2, 3, 4], "max_tokens": 8})
time.sleep(3)
PY
# serve_req NAME LIMIT PORT SPEC ENVDESC ARGS...: a server plus client(SPEC), then SIGINT
serve_req() {
  local name=$1 limit=$2 port=$3 spec=$4 envdesc=$5; shift 5
  echo "== $name: $envdesc vllm serve $*"
  echo "\$ ${envdesc:+$envdesc }vllm serve $*" > "$OUT/logs/$name.log"
  timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$@" >> "$OUT/logs/$name.log" 2>&1 &
  local S=$!
  client "$port" "$spec" $((limit - 15))
  kill -INT $S 2>/dev/null; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
# pair NAME LIMIT MPORT PORT MODEL ENV0 ENV1 ADDR0 ADDR1 ARGS...: as in run_zg.sh (node 1's master
# port in $N1MPORT, a wrapper for node 1 in $N1WRAP, a client spec for node 0 in $PAIRREQ)
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local mport1=${N1MPORT:-$mport}
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport1 --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 10 "$limit" ${N1WRAP:-} python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport1" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  [ -n "${PAIRREQ:-}" ] && client "$port" "$PAIRREQ" $((limit - 20))
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; }
cleanup_gpu() {  # everything on this machine was started by this script
  for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
}
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VS="python3 -m vllm.entrypoints.cli.main serve"
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader

if [ "$ZH_PART" = 1 ]; then
# 1. LoRA adapter of rank 64, default --max-lora-rank
( serve2 vllm026-lora-adapter-r64-default-max-lora-rank 90 "" /tmp/tiny $TINY_ARGS $GMU --enable-lora \
    --lora-modules sql-lora=/tmp/zh-lora-sql-r64 --port 8801 ) &
J="$!"
# 2. weights copied without tokenizer files
( serve2 vllm026-model-dir-without-tokenizer-files 90 "" /tmp/zh-tiny-chat-weights-only --enforce-eager $GMU --port 8802 ) &
J="$J $!"
# 3. VLLM_RPC_BASE_PATH on a volume out of inodes
(
  name=vllm026-rpc-base-path-volume-out-of-inodes
  echo "== $name: (tmpfs nr_inodes=48 at /run/vllm-rpc, filled) VLLM_RPC_BASE_PATH=/run/vllm-rpc vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8803"
  timeout -s INT -k 10 80 unshare -m bash -c '
    mkdir -p /run/vllm-rpc && mount -t tmpfs -o size=64m,nr_inodes=48 tmpfs /run/vllm-rpc || exit 90
    n=0; while : > /run/vllm-rpc/$(cat /proc/sys/kernel/random/uuid) 2>/dev/null; do n=$((n+1)); [ $n -gt 100 ] && break; done
    echo "   stale files in /run/vllm-rpc: $n; df -i: $(df -i /run/vllm-rpc | tail -n 1)" >&2
    export VLLM_RPC_BASE_PATH=/run/vllm-rpc
    { echo "\$ VLLM_RPC_BASE_PATH=/run/vllm-rpc vllm serve /tmp/tiny '"$TINY_ARGS $GMU"' --port 8803"
      python3 -m vllm.entrypoints.cli.main serve /tmp/tiny '"$TINY_ARGS $GMU"' --port 8803; } > '"$OUT/logs/$name.log"' 2>&1'
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 4. hub model id, HTTPS_PROXY at a proxy that is not running
( export HF_HOME=/tmp/zh-hf-empty HTTPS_PROXY=http://127.0.0.1:3128 HTTP_PROXY=http://127.0.0.1:3128 \
    https_proxy=http://127.0.0.1:3128 http_proxy=http://127.0.0.1:3128 NO_PROXY=localhost,127.0.0.1 no_proxy=localhost,127.0.0.1
  unset HF_HUB_OFFLINE TRANSFORMERS_OFFLINE
  serve2 vllm026-hub-model-https-proxy-not-running 90 "HTTPS_PROXY=http://127.0.0.1:3128" meta-llama/Llama-3.2-1B-Instruct \
    $GMU --port 8804 ) &
J="$J $!"
# 5. model directory root 0700, the server as uid 65534
(
  name=vllm026-model-dir-root-0700-service-user-nobody
  mkdir -p /tmp/zh-home-65534 && chmod 1777 /tmp/zh-home-65534
  echo "== $name: (uid 65534) vllm serve /tmp/zh-models/tiny-chat --skip-tokenizer-init --enforce-eager $GMU --port 8805"
  echo "   $(ls -la /tmp/zh-models | tail -n 1); as uid 65534: $(setpriv --reuid=65534 --regid=65534 --clear-groups id)"
  { echo "\$ vllm serve /tmp/zh-models/tiny-chat --skip-tokenizer-init --enforce-eager $GMU --port 8805"
    HOME=/tmp/zh-home-65534 timeout -s INT -k 10 70 setpriv --reuid=65534 --regid=65534 --clear-groups \
      python3 -m vllm.entrypoints.cli.main serve /tmp/zh-models/tiny-chat --skip-tokenizer-init --enforce-eager $GMU --port 8805
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 6. speculative decoding, draft of another family
( serve2 vllm026-speculative-draft-llama3.2-1b-for-qwen2.5-7b 80 "" /tmp/zh-qwen2.5-7b-instruct $TINY_ARGS $GMU \
    --speculative-config '{"model":"/tmp/zh-llama3.2-1b-instruct","num_speculative_tokens":5}' --port 8806 ) &
J="$J $!"
# 7. healthy: no chat template, chat request 400, completion 200
( serve_req vllm026-base-model-no-chat-template-chat-400-served-ok 120 8807 chat-template "" /tmp/zh-tiny-base \
    --load-format dummy --enforce-eager $GMU --port 8807 ) &
J="$J $!"
# 8. ngram speculative decoding, only if numba is missing
if python3 -c "import numba" 2>/dev/null; then
  echo "   numba $(python3 -c 'import numba; print(numba.__version__)') is installed: ngram set-up skipped"
else
  ( serve_req vllm026-speculative-ngram-numba-missing 110 8808 ngram "" /tmp/tiny $TINY_ARGS $GMU \
      --speculative-config '{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_max":4}' --port 8808 ) &
  J="$J $!"
fi
sleep 50; echo "GPU apps at 50 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$ZH_PART" = 2 ]; then
# 1. SmolLM2-1.7B target, SmolLM2-135M draft (9 heads), TP 2 over 2 nodes
pair vllm026-2nodes-tp2-smollm2-1.7b-draft-135m-9-heads 75 30501 8811 /tmp/zh-smollm2-1.7b-instruct "$H0" "$H1" \
  127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 \
  --speculative-config '{"model":"/tmp/zh-smollm2-135m-instruct","num_speculative_tokens":5}' &
J="$!"
# 2. node 1's copy of the model is another size (hidden 512 vs 256), one request
printf '#!/bin/sh\nmount --bind /tmp/zh-tiny-chat-node1 /tmp/zh-tiny-chat || exit 90\nexec "$@"\n' > /tmp/zh-node1-model.sh
chmod +x /tmp/zh-node1-model.sh
( N1WRAP="unshare -m /tmp/zh-node1-model.sh" PAIRREQ=mismatch
  pair vllm026-2nodes-tp2-node1-model-copy-hidden-512-vs-256 135 30502 8812 /tmp/zh-tiny-chat \
    "$H0 NCCL_DEBUG=INFO" "$H1 NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 $GMU --tensor-parallel-size 2 ) &
J="$J $!"
# 3. node 1 --master-addr host:port
( pair vllm026-2nodes-tp2-node1-master-addr-host-colon-port 70 30503 8813 /tmp/tiny "$H0" "$H1" \
    127.0.0.1 127.0.0.1:30503 $GMU --tensor-parallel-size 2 ) &
J="$J $!"
# 4. CPU KV offloading 24 GiB in an 8 GiB memory cgroup
(
  CG=/sys/fs/cgroup/zh_mem
  grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p $CG && echo 8G > $CG/memory.max && echo 0 > $CG/memory.swap.max
  echo "   $CG memory.max = $(cat $CG/memory.max) swap.max = $(cat $CG/memory.swap.max)"
  ( echo $BASHPID > $CG/cgroup.procs && serve2 vllm026-kv-offloading-size-24-memory-limit-8g 110 "" /tmp/tiny $TINY_ARGS $GMU \
      --kv-offloading-size 24 --port 8814 )
  echo "   memory.events: $(cat $CG/memory.events 2>/dev/null | tr '\n' ' ')"
  sleep 1; rmdir $CG 2>/dev/null || echo "   $CG not removed: $(cat $CG/cgroup.procs | tr '\n' ' ')"
) &
J="$J $!"
# 5. healthy: LoRA served
( serve_req vllm026-lora-modules-served-ok 115 8815 lora-ok "" /tmp/tiny $TINY_ARGS $GMU --enable-lora --max-lora-rank 16 \
    --lora-modules sql-lora=/tmp/zh-lora-sql-r8 --port 8815 ) &
J="$J $!"
# 6. Triton attention, CC at a compiler that is not installed, fresh HOME; one request
( mkdir -p /tmp/zh-home-cc; export HOME=/tmp/zh-home-cc CC=/usr/bin/clang-17
  echo "   CC=$CC exists: $(test -e $CC && echo yes || echo no); gcc on PATH: $(command -v gcc || echo none)"
  serve_req vllm026-triton-attn-cc-clang-17-not-installed 120 8816 one "CC=/usr/bin/clang-17" /tmp/tiny $TINY_ARGS $GMU \
    --attention-backend TRITON_ATTN --port 8816 ) &
J="$J $!"
# 7. LoRA adapter trained for Llama-2-7B (4096 wide) on the 256-wide base; a request to it
( serve_req vllm026-lora-adapter-for-llama2-7b-on-other-base 110 8817 lora-other-base "" /tmp/tiny $TINY_ARGS $GMU \
    --enable-lora --lora-modules sql-lora=/tmp/zh-lora-llama2-7b-sql-r16 --port 8817 ) &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
cleanup_gpu
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zh-logs-part$ZH_PART.tar" logs && rm -r "$OUT/logs"
true
