#!/usr/bin/env bash
# Capture run ZE (session 9, collector Z44): a blind batch, real `vllm serve` (vLLM 0.26.0) at TP 1
# or as two "nodes" on the one GPU (node 0 + a --headless node 1, one shared log, NCCL_HOSTID per
# node) as in run_p.sh..run_zc.sh. The wheel is staged as 52 MiB chunks joined into /tmp/part0
# (part1..4 empty), as in run_q.sh..run_zc.sh. Carry: .device/validate/whl and .device/validate/z44
# (pydantic_core-2.50.5 built for CPython 3.11, git-ignored). Small servers use
# --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that servers starting together do
# not count each other.
# ZE_PART=1 (installs first), in parallel, all failing before or right after the engine starts:
#   1. partitioning: a Gemma-2-9B shape (16 heads, 8 KV heads), `-tp 3 --distributed-executor-backend mp`
#   2. visibility: CUDA_VISIBLE_DEVICES=all (NVIDIA_VISIBLE_DEVICES' value copied into the CUDA variable)
#   3. versions: a Python 3.11 site-packages (pydantic_core built for cp311) first on PYTHONPATH
#   4. versions: `--load-format tensorizer` (a model.tensors beside config.json), tensorizer not installed
#   5. network: the server run as an unprivileged user (uid 65534, as a pod's runAsUser) with --port 443
#   6. resources: a Qwen2.5-7B-Instruct shape (32768 positions, no YaRN rope_scaling in config.json),
#      `--max-model-len 128k`
#   7. other: a real tiny Llama checkpoint whose config.json says intermediate_size 768 while the
#      safetensors weights were saved with 512 (config.json of another variant copied over)
# ZE_PART=2, in parallel:
#   1. partitioning: a Qwen1.5-MoE-A2.7B shape (moe_intermediate_size 1408) with an FP8 128x128
#      block-quantised config, TP 2 over two "nodes" (1408/2 = 704, not a multiple of 128)
#   2. communication: TP 2 over two "nodes", node 0 NCCL_PROTO=Simple, node 1 NCCL_PROTO=LL
#      (per-node env files that drifted), NCCL_DEBUG=INFO
#   3. communication: TP 2 over two "nodes", node 0 --max-num-batched-tokens 8192, node 1 2048
#      (node launch scripts that drifted), NCCL_DEBUG=INFO
#   4. resources: HOME on a full filesystem (a 256 KiB tmpfs filled up, as a full home quota),
#      --attention-backend TRITON_ATTN (Triton JIT writes its cache under ~/.triton)
#   5. healthy but noisy: --enable-log-requests, a request longer than max_model_len (400), a request
#      for an unknown model name (404), one good request, SIGINT
# ZE_PART=3, in parallel:
#   1. resources: a Mixtral-8x22B shape (141B parameters, ~282 GB in bf16) on the one 141 GB GPU
#      (started 50 s after the others so that their allocations come first)
#   2. network: a DP head (`--data-parallel-size 2 --data-parallel-size-local 1`) whose remote DP
#      engine node is never started, VLLM_LOGGING_LEVEL=DEBUG
#   3. other: tokenizer.json cut short (an interrupted copy), the tokenizer not skipped
#   4. network: `--host $(hostname)` while /etc/hosts (own mount namespace) still maps the host name
#      to the machine's old address 10.0.3.17
# Call: ZE_PART=N timeout -k 5 LIMIT bash tests/data/logs/h200-capture/run_ze.sh 2>&1 | tee $OUT/run_ze-partN.out
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
ZE_PART=${ZE_PART:-1}
OUT=$(cd "$OUT" && pwd)

# model directories (node's own transformers/torch/tokenizers), made beside the install
python3 - "$ZE_PART" > /tmp/ze-prep.out 2>&1 <<'PY' &
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
def gemma2_9b():
    cfg("/tmp/ze-gemma2-9b", dict(architectures=["Gemma2ForCausalLM"], model_type="gemma2", hidden_size=3584,
        intermediate_size=14336, num_hidden_layers=42, num_attention_heads=16, num_key_value_heads=8,
        head_dim=256, vocab_size=256000, max_position_embeddings=8192, query_pre_attn_scalar=256,
        sliding_window=4096, final_logit_softcapping=30.0, attn_logit_softcapping=50.0,
        hidden_activation="gelu_pytorch_tanh", rms_norm_eps=1e-6, rope_theta=10000.0, torch_dtype="bfloat16"))
def qwen25_7b():
    cfg("/tmp/ze-qwen2.5-7b-instruct", dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=3584,
        intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4,
        vocab_size=152064, max_position_embeddings=32768, rope_theta=1000000.0, rms_norm_eps=1e-6,
        sliding_window=131072, use_sliding_window=False, max_window_layers=28, hidden_act="silu",
        tie_word_embeddings=False, torch_dtype="bfloat16"))
def tensorized():
    d = "/tmp/ze-tiny-tensorized"; os.makedirs(d, exist_ok=True)
    from transformers import LlamaConfig
    LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512).save_pretrained(d)
    open(os.path.join(d, "model.tensors"), "wb").write(os.urandom(4096))
def llama_mismatch():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    d = "/tmp/ze-llama-tiny-config-mismatch"
    c = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
    c.architectures = ["LlamaForCausalLM"]
    LlamaForCausalLM(c).to(torch.bfloat16).save_pretrained(d)
    j = json.load(open(os.path.join(d, "config.json"))); j["intermediate_size"] = 768
    json.dump(j, open(os.path.join(d, "config.json"), "w"), indent=2)
    print("   mismatch dir:", sorted(os.listdir(d)))
def qwen_moe_fp8():
    cfg("/tmp/ze-qwen1.5-moe-a2.7b-fp8", dict(architectures=["Qwen2MoeForCausalLM"], model_type="qwen2_moe",
        hidden_size=2048, intermediate_size=5632, moe_intermediate_size=1408, shared_expert_intermediate_size=5632,
        num_experts=60, num_experts_per_tok=4, decoder_sparse_step=1, mlp_only_layers=[], norm_topk_prob=False,
        num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16, vocab_size=151936,
        max_position_embeddings=8192, rope_theta=1000000.0, rms_norm_eps=1e-6, hidden_act="silu",
        tie_word_embeddings=False, torch_dtype="bfloat16",
        quantization_config=dict(quant_method="fp8", activation_scheme="dynamic", fmt="e4m3",
                                 weight_block_size=[128, 128])))
def mixtral_8x22b():
    cfg("/tmp/ze-mixtral-8x22b", dict(architectures=["MixtralForCausalLM"], model_type="mixtral", hidden_size=6144,
        intermediate_size=16384, num_hidden_layers=56, num_attention_heads=48, num_key_value_heads=8,
        num_local_experts=8, num_experts_per_tok=2, vocab_size=32768, max_position_embeddings=65536,
        rope_theta=1000000.0, rms_norm_eps=1e-5, hidden_act="silu", sliding_window=None,
        tie_word_embeddings=False, torch_dtype="bfloat16"))
def tokenizer_truncated():
    from tokenizers import Tokenizer, models, pre_tokenizers
    d = "/tmp/ze-tiny-tokenizer-cut"; os.makedirs(d, exist_ok=True)
    vocab = {"[UNK]": 0, "<s>": 1, "</s>": 2}
    for i in range(3, 1024):
        vocab[f"tok{i}"] = i
    t = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    t.pre_tokenizer = pre_tokenizers.Whitespace()
    t.save(os.path.join(d, "tokenizer.json"))
    full = os.path.getsize(os.path.join(d, "tokenizer.json"))
    with open(os.path.join(d, "tokenizer.json"), "r+b") as f:
        f.truncate(full // 3)
    json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
               "unk_token": "[UNK]", "model_max_length": 512}, open(os.path.join(d, "tokenizer_config.json"), "w"))
    c = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
             max_position_embeddings=512, bos_token_id=1, eos_token_id=2, torch_dtype="bfloat16")
    cfg(d, c)
    print("   tokenizer.json cut from", full, "to", os.path.getsize(os.path.join(d, "tokenizer.json")), "bytes")
todo = {"1": (gemma2_9b, qwen25_7b, tensorized, llama_mismatch),
        "2": (qwen_moe_fp8,),
        "3": (mixtral_8x22b, tokenizer_truncated)}[part]
for f in todo:
    make(f)
PY
PREP=$!
if [ "$ZE_PART" = 1 ] || [ ! -d /tmp/site/vllm ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
wait $PREP; cat /tmp/ze-prep.out
. tests/data/logs/h200-capture/common.sh

# pair NAME LIMIT MPORT PORT MODEL ENV0 ENV1 ADDR0 ADDR1 ARGS...: as in run_zc.sh (node 1's extra
# args in $N1EXTRA)
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* ${N1EXTRA:-} --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" ${N1EXTRA:-} \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
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

if [ "$ZE_PART" = 1 ]; then
# a Python 3.11 site-packages: pydantic_core built for cp311 (pip refuses it on 3.12, so unpacked)
python3 -c "
import zipfile, glob
w = glob.glob('.device/validate/z44/pydantic_core-*-cp311-*.whl')[0]
zipfile.ZipFile(w).extractall('/tmp/ze-py311-site'); print('   unpacked', w)"
ls /tmp/ze-py311-site/pydantic_core | head -5
python3 -c "import tensorizer" 2>&1 | tail -1
cat /proc/sys/net/ipv4/ip_unprivileged_port_start 2>/dev/null | sed 's/^/   ip_unprivileged_port_start: /'

# 1. Gemma-2-9B shape (16 heads), TP 3 with the mp backend
( serve vllm026-tp3-mp-gemma2-9b-16-heads 70 /tmp/ze-gemma2-9b $TINY_ARGS $GMU \
    --tensor-parallel-size 3 --distributed-executor-backend mp --port 8701 ) &
J="$!"
# 2. CUDA_VISIBLE_DEVICES=all
( export CUDA_VISIBLE_DEVICES=all
  serve vllm026-cuda-visible-devices-all 80 /tmp/tiny $TINY_ARGS $GMU --port 8702 ) &
J="$J $!"
# 3. a cp311 site-packages first on PYTHONPATH
( export PYTHONPATH=/tmp/ze-py311-site:/tmp/site
  serve vllm026-py311-site-packages-first-on-pythonpath 60 /tmp/tiny $TINY_ARGS $GMU --port 8703 ) &
J="$J $!"
# 4. --load-format tensorizer without tensorizer
( serve vllm026-load-format-tensorizer-not-installed 100 /tmp/ze-tiny-tensorized --load-format tensorizer \
    --skip-tokenizer-init --enforce-eager $GMU --port 8704 ) &
J="$J $!"
# 5. unprivileged user, --port 443
(
  name=vllm026-unprivileged-user-port-443
  mkdir -p /tmp/ze-home-65534 && chmod 1777 /tmp/ze-home-65534
  setpriv --reuid=65534 --regid=65534 --clear-groups python3 -c "
import socket
s = socket.socket()
try:
    s.bind(('', 443)); print('   uid 65534 CAN bind port 443 (fault will not trigger)')
except OSError as e:
    print('   uid 65534 bind 443:', e)"
  echo "== $name: (uid 65534) vllm serve /tmp/tiny $TINY_ARGS $GMU --port 443"
  {
    echo "$ id"; setpriv --reuid=65534 --regid=65534 --clear-groups id
    echo "$ vllm serve /tmp/tiny $TINY_ARGS $GMU --port 443"
    HOME=/tmp/ze-home-65534 timeout -s INT -k 10 70 setpriv --reuid=65534 --regid=65534 --clear-groups \
      $VS /tmp/tiny $TINY_ARGS $GMU --port 443
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 6. --max-model-len 128k on a 32k model without YaRN in its config
( serve vllm026-qwen2.5-7b-max-model-len-128k-no-yarn 70 /tmp/ze-qwen2.5-7b-instruct $TINY_ARGS $GMU \
    --max-model-len 128k --port 8706 ) &
J="$J $!"
# 7. config.json intermediate_size not matching the weights
( serve vllm026-config-intermediate-size-not-matching-weights 100 /tmp/ze-llama-tiny-config-mismatch \
    --skip-tokenizer-init --enforce-eager $GMU --port 8707 ) &
J="$J $!"
sleep 45; echo "GPU apps at 45 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$ZE_PART" = 2 ]; then
# 1. Qwen1.5-MoE shape, FP8 128x128 blocks, TP 2 over 2 nodes
pair vllm026-2nodes-tp2-qwen1.5-moe-fp8-block128-moe-intermediate-1408 150 30201 8711 \
  /tmp/ze-qwen1.5-moe-a2.7b-fp8 "$H0" "$H1" 127.0.0.1 127.0.0.1 $GMU --max-model-len 4096 --tensor-parallel-size 2 &
J="$!"
# 2. NCCL_PROTO differs between the nodes
pair vllm026-2nodes-tp2-nccl-proto-simple-vs-ll 150 30202 8712 /tmp/tiny \
  "$H0 NCCL_PROTO=Simple NCCL_DEBUG=INFO" "$H1 NCCL_PROTO=LL NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 3. --max-num-batched-tokens differs between the nodes
( N1EXTRA="--max-num-batched-tokens 2048"
  pair vllm026-2nodes-tp2-max-num-batched-tokens-8192-vs-2048 150 30203 8713 /tmp/tiny \
    "$H0 NCCL_DEBUG=INFO" "$H1 NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 \
    $GMU --tensor-parallel-size 2 --max-num-batched-tokens 8192 ) &
J="$J $!"
# 4. HOME on a full filesystem, Triton attention backend
(
  name=vllm026-home-full-triton-attn
  mkdir -p /tmp/ze-home-full
  mount -t tmpfs -o size=256k tmpfs /tmp/ze-home-full && echo "   tmpfs mounted at /tmp/ze-home-full"
  mkdir -p /tmp/ze-home-full/.cache
  dd if=/dev/zero of=/tmp/ze-home-full/.cache/pip-wheel-cache.bin bs=4k 2>/dev/null; df -h /tmp/ze-home-full | tail -1
  echo "== $name: HOME=/tmp/ze-home-full vllm serve /tmp/tiny $TINY_ARGS $GMU --attention-backend TRITON_ATTN --port 8714"
  {
    echo "$ df -h \$HOME"; df -h /tmp/ze-home-full
    echo "$ vllm serve /tmp/tiny $TINY_ARGS $GMU --attention-backend TRITON_ATTN --port 8714"
    HOME=/tmp/ze-home-full timeout -s INT -k 10 120 $VS /tmp/tiny $TINY_ARGS $GMU --attention-backend TRITON_ATTN --port 8714
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
  umount /tmp/ze-home-full
) &
J="$J $!"
# 5. healthy but noisy: 400, 404, one good request, SIGINT
(
  name=vllm026-prompt-too-long-unknown-model-served-ok
  echo "== $name: vllm serve /tmp/tiny $TINY_ARGS $GMU --enable-log-requests --port 8715"
  timeout -s INT -k 15 150 $VS /tmp/tiny $TINY_ARGS $GMU --enable-log-requests --port 8715 > "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request, urllib.error
for i in range(130):
    try:
        urllib.request.urlopen('http://localhost:8715/health', timeout=2); break
    except Exception:
        time.sleep(1)
def post(body):
    req = urllib.request.Request('http://localhost:8715/v1/completions', data=json.dumps(body).encode(), headers={'Content-Type': 'application/json'})
    try:
        r = urllib.request.urlopen(req, timeout=30); print('   ', r.status, r.read()[:160])
    except urllib.error.HTTPError as e:
        print('   ', e.code, e.read()[:200])
post({'model': '/tmp/tiny', 'prompt': list(range(1, 601)), 'max_tokens': 16})
post({'model': 'gpt-4o-mini', 'prompt': [1, 2, 3], 'max_tokens': 8})
post({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8})" || true
  kill -INT $S; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$ZE_PART" = 3 ]; then
# 2. DP head, remote DP engine never started
( export VLLM_LOGGING_LEVEL=DEBUG
  serve vllm026-dp2-head-remote-engine-never-started 120 /tmp/tiny $TINY_ARGS $GMU --data-parallel-size 2 \
    --data-parallel-size-local 1 --data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13455 --port 8722 ) &
J="$!"
# 3. tokenizer.json cut short
( serve vllm026-tokenizer-json-truncated 80 /tmp/ze-tiny-tokenizer-cut --load-format dummy --enforce-eager $GMU --port 8723 ) &
J="$J $!"
# 4. --host $(hostname) with a stale /etc/hosts entry (own mount namespace)
(
  name=vllm026-host-hostname-stale-etc-hosts
  HN=$(hostname)
  grep -vw "$HN" /etc/hosts > /tmp/ze-hosts; echo "10.0.3.17 $HN" >> /tmp/ze-hosts
  printf '#!/bin/sh\nmount --bind /tmp/ze-hosts /etc/hosts || exit 90\nexec "$@"\n' > /tmp/ze-hosts.sh; chmod +x /tmp/ze-hosts.sh
  echo "== $name: (/etc/hosts: 10.0.3.17 $HN) vllm serve /tmp/tiny $TINY_ARGS $GMU --host $HN --port 8724"
  {
    echo "$ hostname"; hostname
    echo "$ getent hosts $HN"; unshare -m /tmp/ze-hosts.sh getent hosts "$HN"
    echo "$ vllm serve /tmp/tiny $TINY_ARGS $GMU --host \$(hostname) --port 8724"
    timeout -s INT -k 10 70 unshare -m /tmp/ze-hosts.sh $VS /tmp/tiny $TINY_ARGS $GMU --host "$HN" --port 8724
  } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 1. Mixtral-8x22B shape on the one GPU, started after the others' allocations
( sleep 50; echo "GPU apps at 50 s: $(gpu_apps | tr '\n' ' ')"
  serve vllm026-mixtral-8x22b-on-one-h200 110 /tmp/ze-mixtral-8x22b $TINY_ARGS --max-model-len 4096 \
    --gpu-memory-utilization 0.85 --port 8721 ) &
J="$J $!"
wait $J
fi
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
cleanup_gpu
mountpoint -q /tmp/ze-home-full && umount /tmp/ze-home-full
true
