#!/usr/bin/env bash
# Capture run K (session 4, a fresh machine): an eighth blind batch, all with real `vllm serve`
# (vLLM 0.26.0), set-ups chosen by the collector and not in the README's earlier batches.
#   K_PART=1 (default): install (after the five wheel parts were staged in /tmp), then
#     - TP 3 over a 32-head Llama-7B shape with --distributed-executor-backend mp
#     - PP 2 for a Mamba2 model (no pipeline-parallel support in vLLM)
#     - --quantization bitsandbytes where bitsandbytes is not installed
#     - the NVIDIA driver's user-space libraries not mounted (libcuda/libnvidia-ml covered)
#     (those four at once: they fail before using the GPU)
#     - --max-num-batched-tokens 2097152 on the 7B shape (profiling forward OOM)
#     - --kv-cache-memory-bytes 8G for --max-model-len 32768 on the 7B shape
#   K_PART=2: a first server left running (also the healthy, noisy DEBUG log), a second
#     server started next to it; vLLM in a 2 GiB memory cgroup; vLLM under ulimit -n 16.
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
PART=${K_PART:-1}
if [ "$PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
  python3 -m pip show bitsandbytes 2>&1 | head -2
fi
. tests/data/logs/h200-capture/common.sh
python3 - <<'PY'
import json, os
os.makedirs("/tmp/mamba2", exist_ok=True)
json.dump({"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "hidden_size": 256,
           "num_hidden_layers": 2, "num_heads": 8, "head_dim": 64, "expand": 2, "n_groups": 1,
           "state_size": 16, "conv_kernel": 4, "vocab_size": 1024, "torch_dtype": "bfloat16",
           "tie_word_embeddings": True}, open("/tmp/mamba2/config.json", "w"), indent=2)
PY

if [ "$PART" = 1 ]; then
  serve vllm026-tp3-mp-backend-32-heads 150 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init \
    --enforce-eager --max-model-len 4096 --tensor-parallel-size 3 --distributed-executor-backend mp &
  serve vllm026-mamba2-pp2 150 /tmp/mamba2 $TINY_ARGS --pipeline-parallel-size 2 \
    --distributed-executor-backend mp &
  serve vllm026-bitsandbytes-not-installed 150 /tmp/tiny $TINY_ARGS --quantization bitsandbytes &
  unshare -m bash -c '
    . tests/data/logs/h200-capture/common.sh
    for f in $(ldconfig -p | awk "/libcuda\.so|libnvidia-ml\.so/{print \$NF}" | xargs -r readlink -f | sort -u); do
      mount --bind /dev/null "$f" && echo "   covered $f"
    done
    python3 -c "import torch; print(\"   torch.cuda.is_available():\", torch.cuda.is_available())" 2>&1 | tail -1
    serve vllm026-driver-libs-not-mounted 150 /tmp/tiny $TINY_ARGS' &
  wait
  serve vllm026-max-num-batched-tokens-2m-oom 240 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init \
    --enforce-eager --max-model-len 4096 --max-num-seqs 512 --max-num-batched-tokens 2097152
  serve vllm026-kv-cache-memory-bytes-8g-32k 240 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init \
    --enforce-eager --max-model-len 32768 --kv-cache-memory-bytes 8G
  nvidia-smi --query-gpu=memory.used --format=csv
fi

if [ "$PART" = 2 ]; then
  nvidia-smi --query-gpu=memory.used --format=csv
  # A first server (left running, default --gpu-memory-utilization 0.9), DEBUG logging and NCCL INFO.
  echo "== vllm026-tiny-debug-served-ok: vllm serve /tmp/tiny $TINY_ARGS --port 8001 (background)"
  VLLM_LOGGING_LEVEL=DEBUG NCCL_DEBUG=INFO timeout -k 10 -s INT 280 python3 -m vllm.entrypoints.cli.main serve \
    /tmp/tiny $TINY_ARGS --port 8001 > "$OUT/logs/vllm026-tiny-debug-served-ok.log" 2>&1 &
  FIRST=$!
  python3 - <<'PY'
import json, time, urllib.request, urllib.error
t0 = time.time()
while time.time() - t0 < 150:
    try:
        urllib.request.urlopen("http://localhost:8001/health", timeout=2); break
    except Exception:
        time.sleep(2)
print(f"   first server healthy after {time.time() - t0:.0f} s")
for prompt in ([1, 2, 3, 4, 5], list(range(1, 601))):
    req = urllib.request.Request("http://localhost:8001/v1/completions", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": "/tmp/tiny", "prompt": prompt, "max_tokens": 8, "temperature": 0}).encode())
    try:
        print("  ", urllib.request.urlopen(req, timeout=30).read()[:300])
    except urllib.error.HTTPError as e:
        print("   HTTP", e.code, e.read()[:300])
    except Exception as e:
        print("   request failed:", e)
PY
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv
  # The operator starts a second server on the same GPU, the first still running.
  serve vllm026-second-server-while-first-runs 150 /tmp/tiny $TINY_ARGS --port 8002
  kill -TERM $FIRST; wait $FIRST; echo "   first server rc $?  lines $(wc -l < "$OUT/logs/vllm026-tiny-debug-served-ok.log")"
  sleep 3; nvidia-smi --query-gpu=memory.used --format=csv
  # A container memory limit of 2 GiB (cgroup v2 memory.max, no swap).
  CG=/sys/fs/cgroup/vfixk
  mkdir -p $CG; grep -q memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
  echo 2G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  ( echo $BASHPID > $CG/cgroup.procs && serve vllm026-memory-cgroup-2g 150 /tmp/tiny $TINY_ARGS )
  echo "   memory.events: $(tr '\n' ' ' < $CG/memory.events)"
  sleep 2; rmdir $CG 2>/dev/null
  # Open-files limit of 16 (soft and hard).
  ( ulimit -Sn 16; ulimit -Hn 16; serve vllm026-nofile-16 150 /tmp/tiny $TINY_ARGS )
  nvidia-smi --query-gpu=memory.used --format=csv
fi
