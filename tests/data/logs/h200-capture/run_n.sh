#!/usr/bin/env bash
# Capture run N (session 5, a fresh machine): an eleventh blind batch, all with real `vllm serve`
# (vLLM 0.26.0), set-ups chosen by collector V and not in the README's earlier batches.
# Two calls on the same warm machine, after the five wheel parts were staged in /tmp:
#   N_PART=1: install, then in parallel (each fails before allocating much; own API port each):
#     - --otlp-traces-endpoint where the OpenTelemetry OTLP exporter is not installed
#     - the FP-Quant (MXFP4, needs compute capability 10.0) config again, now with
#       --allow-deprecated-quantization, on the H200 (sm_90)
#     - --tensor-parallel-size 2 --distributed-executor-backend mp on a one-GPU machine
#     - an AWQ (4-bit, group 128) checkpoint config whose intermediate_size is 704 (704 % 128 = 64)
#     - a headless data-parallel engine (--data-parallel-size 2, start rank 1) pointed at a head
#       address that does not answer (10.254.254.254)
#     - --enable-expert-parallel on a dense (non-MoE) Llama
#     - --max-model-len 8192 on a 512-position model with linear rope scaling x4 (window 2048)
#   N_PART=2: one at a time (these use the GPU):
#     - --max-num-seqs 131072 on a 262144-token-vocab model (sampler warm-up logits)
#     - a Llama-70B shape with --dtype float32 (~280 GB of weights)
#     - healthy but noisy: fp8 KV cache, prefix caching, expandable segments, CUDA_LAUNCH_BLOCKING,
#       two requests (one too long: 400), stopped with SIGINT
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
if [ "${N_PART:-1}" = 1 ]; then
bash tests/data/logs/h200-capture/install.sh || exit $?
python3 -m pip show opentelemetry-exporter-otlp opentelemetry-exporter-otlp-proto-grpc 2>&1 | head -2
. tests/data/logs/h200-capture/common.sh
python3 - <<'PY'
from transformers import LlamaConfig
kw = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
          num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
c = LlamaConfig(**kw)
c.quantization_config = {"quant_method": "fp_quant", "hadamard_group_size": 32, "forward_dtype": "mxfp4",
                         "forward_method": "abs_max", "modules_to_not_convert": ["lm_head"]}
c.save_pretrained("/tmp/tiny-fpquant-mxfp4")
c = LlamaConfig(**{**kw, "intermediate_size": 704})
c.quantization_config = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"}
c.save_pretrained("/tmp/tiny-awq-i704")
LlamaConfig(**kw, rope_scaling={"rope_type": "linear", "factor": 4.0}).save_pretrained("/tmp/tiny-rope-linear4")
PY
nvidia-smi --query-gpu=memory.used --format=csv,noheader
serve vllm026-otlp-endpoint-exporter-not-installed 100 /tmp/tiny $TINY_ARGS --port 8041 \
  --otlp-traces-endpoint http://otel-collector:4317 &
serve vllm026-fp-quant-mxfp4-allow-deprecated-sm90 100 /tmp/tiny-fpquant-mxfp4 $TINY_ARGS --port 8042 \
  --allow-deprecated-quantization &
serve vllm026-tp2-mp-backend-on-1gpu 100 /tmp/tiny $TINY_ARGS --port 8043 \
  --tensor-parallel-size 2 --distributed-executor-backend mp &
serve vllm026-awq-group-128-intermediate-704 100 /tmp/tiny-awq-i704 $TINY_ARGS --port 8044 &
serve vllm026-dp-headless-head-address-unreachable 90 /tmp/tiny $TINY_ARGS --headless \
  --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank 1 \
  --data-parallel-address 10.254.254.254 --data-parallel-rpc-port 13345 &
serve vllm026-expert-parallel-on-dense-llama 100 /tmp/tiny $TINY_ARGS --port 8046 --enable-expert-parallel &
serve vllm026-max-model-len-8192-rope-linear-x4-512 100 /tmp/tiny-rope-linear4 $TINY_ARGS --port 8047 \
  --max-model-len 8192 &
wait
nvidia-smi --query-gpu=memory.used --format=csv,noheader
fi

if [ "${N_PART:-1}" = 2 ]; then
. tests/data/logs/h200-capture/common.sh
python3 -c "from transformers import LlamaConfig; LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=262144, max_position_embeddings=512).save_pretrained('/tmp/tiny-vocab262k')"
python3 -c "from transformers import LlamaConfig; LlamaConfig(hidden_size=8192, intermediate_size=28672, num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192).save_pretrained('/tmp/llama70b')"
nvidia-smi --query-gpu=memory.used --format=csv,noheader
serve vllm026-max-num-seqs-131072-vocab-262k 150 /tmp/tiny-vocab262k $TINY_ARGS \
  --max-num-seqs 131072 --max-num-batched-tokens 131072 --max-model-len 512
nvidia-smi --query-gpu=memory.used --format=csv,noheader
serve vllm026-llama70b-dtype-float32 150 /tmp/llama70b --load-format dummy --skip-tokenizer-init --enforce-eager \
  --max-model-len 4096 --dtype float32
nvidia-smi --query-gpu=memory.used --format=csv,noheader
# serve_req NAME LIMIT PORT PROMPTS_JSON ARGS...: as in run_m.sh (max_tokens from each prompt's pair)
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
for p, n in prompts:
    req = urllib.request.Request(f"http://localhost:{port}/v1/completions", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": model, "prompt": p, "max_tokens": n, "temperature": 0}).encode())
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
( export CUDA_LAUNCH_BLOCKING=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
  serve_req vllm026-fp8-kv-prefix-caching-served-ok 160 8051 '[[[1, 2, 3, 4, 5], 8], [[7, 8, 9], 1000]]' \
    /tmp/tiny $TINY_ARGS --kv-cache-dtype fp8 --enable-prefix-caching --gpu-memory-utilization 0.2 --max-num-seqs 16 )
nvidia-smi --query-gpu=memory.used --format=csv,noheader
fi
