#!/usr/bin/env bash
# Capture run M (session 5, a fresh machine): a tenth blind batch, all with real `vllm serve`
# (vLLM 0.26.0), set-ups chosen by the collector and not in the README's earlier batches.
# One call, after the five wheel parts were staged in /tmp: install, then
#   in parallel (each fails before allocating weights/KV cache; each API server on its own port):
#     - GLOO_SOCKET_IFNAME set to an interface this machine does not have (enp6s0f1)
#     - VLLM_HOST_IP set to another node's address (10.254.254.254), single-node TP 1
#     - --load-format runai_streamer where runai-model-streamer is not installed
#     - --pipeline-parallel-size 2 on a one-GPU machine
#     - an FP-Quant (MXFP4, Blackwell-only) checkpoint config served on the H200 (sm_90)
#     - --kv-transfer-config with LMCacheConnectorV1 where lmcache is not installed
#     - an FP8 block-quantised (128x128) checkpoint config whose intermediate_size is 320
#   one at a time (these use the GPU):
#     - --gpu-memory-utilization 1.0 (nothing else on the GPU)
#     - --skip-tokenizer-init and a client sending prompt token id 70000 (vocab 1024)
#     - healthy but noisy: torch.compile + CUDA graphs, HOST_IP set, NCCL_DEBUG=INFO, two
#       requests (one rejected with 400), stopped with SIGINT
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
bash tests/data/logs/h200-capture/install.sh || exit $?
python3 -m pip show runai-model-streamer lmcache 2>&1 | head -3
ls /sys/class/net
. tests/data/logs/h200-capture/common.sh
python3 - <<'PY'
import json
from transformers import LlamaConfig
# FP-Quant QAT checkpoint (MXFP4 with Hadamard groups, needs compute capability 10.0)
c = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
c.quantization_config = {"quant_method": "fp_quant", "hadamard_group_size": 32, "forward_dtype": "mxfp4",
                         "forward_method": "abs_max", "modules_to_not_convert": ["lm_head"]}
c.save_pretrained("/tmp/tiny-fpquant-mxfp4")
# FP8 block-quantised checkpoint (128x128 blocks) with intermediate_size 320
c = LlamaConfig(hidden_size=256, intermediate_size=320, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
c.quantization_config = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                         "weight_block_size": [128, 128]}
c.save_pretrained("/tmp/tiny-fp8-block-i320")
PY
nvidia-smi --query-gpu=memory.used --format=csv,noheader

( export GLOO_SOCKET_IFNAME=enp6s0f1; serve vllm026-gloo-socket-ifname-enp6s0f1 100 /tmp/tiny $TINY_ARGS --port 8021 ) &
( export VLLM_HOST_IP=10.254.254.254; serve vllm026-vllm-host-ip-other-node 110 /tmp/tiny $TINY_ARGS \
    --distributed-timeout-seconds 30 --port 8022 ) &
serve vllm026-runai-streamer-not-installed 100 /tmp/tiny --load-format runai_streamer --skip-tokenizer-init \
  --enforce-eager --port 8023 &
serve vllm026-pp2-on-1gpu 100 /tmp/tiny $TINY_ARGS --pipeline-parallel-size 2 --port 8024 &
serve vllm026-fp-quant-mxfp4-on-sm90 100 /tmp/tiny-fpquant-mxfp4 $TINY_ARGS --port 8025 &
serve vllm026-lmcache-connector-not-installed 100 /tmp/tiny $TINY_ARGS --port 8026 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}' &
serve vllm026-fp8-block-128-intermediate-320 100 /tmp/tiny-fp8-block-i320 $TINY_ARGS --port 8027 &
wait
nvidia-smi --query-gpu=memory.used --format=csv,noheader

serve vllm026-gpu-memory-utilization-1.0 100 /tmp/tiny $TINY_ARGS --gpu-memory-utilization 1.0
nvidia-smi --query-gpu=memory.used --format=csv,noheader

# serve_req NAME LIMIT PORT PROMPTS_JSON ARGS...: start the server, wait for /health, send the
# completions, then stop it with SIGINT; its whole output kept as logs/NAME.log
serve_req() {
  local name=$1 limit=$2 port=$3 prompts=$4; shift 4
  echo "== $name: vllm serve $* --port $port; prompts $prompts"
  timeout -s INT "$limit" python3 -m vllm.entrypoints.cli.main serve "$@" --port "$port" > "$OUT/logs/$name.log" 2>&1 &
  local sp=$!
  python3 - "$port" "$sp" "$prompts" "$1" <<'PY'
import json, subprocess, sys, time, urllib.request, urllib.error
port, sp, prompts, model = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
t0 = time.time()
while time.time() - t0 < 150:
    try:
        urllib.request.urlopen(f"http://localhost:{port}/health", timeout=2); break
    except Exception:
        time.sleep(2)
    if subprocess.run(["kill", "-0", sp]).returncode: break
print(f"   healthy after {time.time() - t0:.0f} s")
for p in prompts:
    req = urllib.request.Request(f"http://localhost:{port}/v1/completions", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": model, "prompt": p, "max_tokens": 8, "temperature": 0}).encode())
    try:
        print("  ", urllib.request.urlopen(req, timeout=30).read()[:300])
    except urllib.error.HTTPError as e:
        print("   HTTP", e.code, e.read()[:300])
    except Exception as e:
        print("   request failed:", e)
time.sleep(5)
PY
  kill -INT $sp 2>/dev/null; wait $sp
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
serve_req vllm026-prompt-token-id-70000-vocab-1024 130 8031 '[[1, 2, 3, 70000, 5]]' /tmp/tiny $TINY_ARGS
nvidia-smi --query-gpu=memory.used --format=csv,noheader
( export HOST_IP=10.0.0.5 NCCL_DEBUG=INFO
  serve_req vllm026-compile-cudagraphs-host-ip-served-ok 200 8032 \
    '[[1, 2, 3, 4, 5], [7, 8, 9], "a text prompt without a tokenizer"]' \
    /tmp/tiny --load-format dummy --skip-tokenizer-init --gpu-memory-utilization 0.3 --max-num-seqs 32 )
nvidia-smi --query-gpu=memory.used --format=csv,noheader
