#!/usr/bin/env bash
# Capture run A (after install.sh): vLLM start-up failures made on purpose on 1x H200.
set -u
bash tests/data/logs/h200-capture/install.sh || exit $?
. tests/data/logs/h200-capture/common.sh
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
# TP=2 on a one-GPU machine
serve vllm026-tp2-on-1gpu 150 /tmp/tiny $TINY_ARGS --tensor-parallel-size 2
# max-model-len above the model's max_position_embeddings (512)
serve vllm026-max-model-len-4096 150 /tmp/tiny $TINY_ARGS --max-model-len 4096
# a 7B model asked for 128k context with 15% of the GPU
serve vllm026-llama7b-128k-kv 240 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init --enforce-eager --max-model-len 131072 --gpu-memory-utilization 0.15
# another process holds 120 GiB; vLLM asks for the default 90%
python3 -c "import torch,time; x=torch.empty(120*2**30, dtype=torch.uint8, device='cuda'); print('holding', flush=True); time.sleep(600)" > /tmp/holder.out 2>&1 &
HOLDER=$!
for i in $(seq 60); do grep -q holding /tmp/holder.out && break; sleep 1; done
nvidia-smi --query-compute-apps=pid,used_memory --format=csv | tee "$OUT/logs/holder-apps.csv"
serve vllm026-other-process-holds-memory 150 /tmp/tiny $TINY_ARGS
kill $HOLDER; wait $HOLDER 2>/dev/null
nvidia-smi --query-gpu=memory.used --format=csv
