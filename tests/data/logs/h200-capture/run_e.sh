#!/usr/bin/env bash
# Capture run E (same warm machine, after run_d.sh): weights larger than the GPU (~165 GB of
# bf16 on 139.8 GiB), and the Ray executor asked for where Ray is not installed.
set -u
. tests/data/logs/h200-capture/common.sh
python3 -c "from transformers import LlamaConfig; LlamaConfig(hidden_size=8192, intermediate_size=28672, num_hidden_layers=100, num_attention_heads=64, num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192).save_pretrained('/tmp/llama-100l')"
serve vllm026-100-layer-70b-shape-weights 300 /tmp/llama-100l --load-format dummy --skip-tokenizer-init --enforce-eager --max-model-len 4096
serve vllm026-ray-backend-without-ray 150 /tmp/tiny $TINY_ARGS --distributed-executor-backend ray
