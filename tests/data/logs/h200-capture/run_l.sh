#!/usr/bin/env bash
# Capture run L (session 4, a fresh machine): a ninth blind batch, all with real `vllm serve`
# (vLLM 0.26.0), set-ups chosen by the collector and not in the README's earlier batches.
# One call, after the five wheel parts were staged in /tmp: install, then
#   in parallel (each fails before loading weights; each API server on its own port):
#     - a Qwen2-0.5B shape (14 heads) planned as TP 4 over 2 nodes (--nnodes 2 --node-rank 0)
#     - --device-ids 2 on a one-GPU machine
#     - CUDA_VISIBLE_DEVICES=-1 (left over from a CPU-only job)
#     - node 2 of a 2-node TP 2 job (--headless --node-rank 1) whose --master-addr is unreachable
#     - node 1 of a 2-node TP 2 job whose --master-port (29501) is held by another program
#   one at a time (these use the GPU):
#     - --attention-backend FLASHINFER where flashinfer is not installed
#     - --data-parallel-size 2 on one GPU
#     - --num-gpu-blocks-override 16 --block-size 16 (256 tokens) for max_model_len 512
#     - /dev/shm a 64 KiB tmpfs with --distributed-executor-backend mp
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
bash tests/data/logs/h200-capture/install.sh || exit $?
python3 -m pip show flashinfer-python flashinfer 2>&1 | head -3
. tests/data/logs/h200-capture/common.sh
python3 - <<'PY'
from transformers import Qwen2Config
# Qwen2.5-0.5B shape: 14 attention heads, 2 KV heads, 24 layers
Qwen2Config(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
            num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768,
            tie_word_embeddings=True).save_pretrained("/tmp/qwen2-0.5b")
PY
nvidia-smi --query-gpu=memory.used --format=csv,noheader

# Another program already listens on 29501 (the torch.distributed master port vLLM uses by default).
python3 -m http.server 29501 --bind 0.0.0.0 > /dev/null 2>&1 &
HOLDER=$!
sleep 2
PIDS=""
serve vllm026-qwen2-0.5b-2nodes-tp4-14-heads 100 /tmp/qwen2-0.5b --load-format dummy \
  --skip-tokenizer-init --enforce-eager --tensor-parallel-size 4 --nnodes 2 --node-rank 0 \
  --master-addr 127.0.0.1 --port 8011 &
PIDS="$PIDS $!"
serve vllm026-device-ids-2-on-1-gpu 100 /tmp/tiny $TINY_ARGS --device-ids 2 --port 8012 &
PIDS="$PIDS $!"
( export CUDA_VISIBLE_DEVICES=-1; serve vllm026-cuda-visible-devices-minus-1 100 /tmp/tiny $TINY_ARGS --port 8013 ) &
PIDS="$PIDS $!"
serve vllm026-2nodes-headless-master-unreachable 100 /tmp/tiny $TINY_ARGS --tensor-parallel-size 2 \
  --nnodes 2 --node-rank 1 --master-addr 10.254.254.254 --master-port 29501 --headless \
  --distributed-timeout-seconds 30 &
PIDS="$PIDS $!"
serve vllm026-2nodes-head-master-port-taken 100 /tmp/tiny $TINY_ARGS --tensor-parallel-size 2 \
  --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 29501 \
  --distributed-timeout-seconds 30 --port 8014 &
PIDS="$PIDS $!"
wait $PIDS
kill $HOLDER; wait $HOLDER 2>/dev/null
nvidia-smi --query-gpu=memory.used --format=csv,noheader

serve vllm026-attention-backend-flashinfer-not-installed 90 /tmp/tiny $TINY_ARGS --attention-backend FLASHINFER
serve vllm026-data-parallel-2-on-1-gpu 110 /tmp/tiny $TINY_ARGS --data-parallel-size 2
serve vllm026-num-gpu-blocks-override-16 110 /tmp/tiny $TINY_ARGS --num-gpu-blocks-override 16 --block-size 16
nvidia-smi --query-gpu=memory.used --format=csv,noheader

# /dev/shm a 64 KiB tmpfs (a container started with a tiny --shm-size), multiprocessing executor.
# If the server comes up anyway, one request is sent and it is stopped with SIGINT.
unshare -m bash -c '
  set -m
  mount -t tmpfs -o size=64k tmpfs /dev/shm && df -h /dev/shm | tail -1
  . tests/data/logs/h200-capture/common.sh
  N=vllm026-dev-shm-64k-mp-backend
  echo "== $N: vllm serve /tmp/tiny $TINY_ARGS --distributed-executor-backend mp --port 8015"
  timeout -s INT 110 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS \
    --distributed-executor-backend mp --port 8015 > "$OUT/logs/$N.log" 2>&1 &
  SP=$!
  python3 - <<PY
import json, subprocess, time, urllib.request
t0 = time.time()
while time.time() - t0 < 100:
    try:
        urllib.request.urlopen("http://localhost:8015/health", timeout=2); break
    except Exception:
        time.sleep(2)
    if subprocess.run(["kill", "-0", "$SP"]).returncode: break
print(f"   waited {time.time() - t0:.0f} s")
try:
    req = urllib.request.Request("http://localhost:8015/v1/completions", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": "/tmp/tiny", "prompt": [1, 2, 3], "max_tokens": 8}).encode())
    print("  ", urllib.request.urlopen(req, timeout=30).read()[:200])
except Exception as e:
    print("   request failed:", e)
PY
  kill -INT $SP 2>/dev/null; wait $SP
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$N.log")"; tail -n 3 "$OUT/logs/$N.log" | cut -c1-200'
nvidia-smi --query-gpu=memory.used --format=csv,noheader
