#!/usr/bin/env bash
# Assemble and install vLLM 0.26.0 (+ small deps) into /tmp/site; write two model configs.
set -u
W=/tmp/vllm-0.26.0-cp38-abi3-manylinux_2_28_x86_64.whl
cat /tmp/part0 /tmp/part1 /tmp/part2 /tmp/part3 /tmp/part4 > $W
echo "adb1e4c9b46d0dfdb094121ae5aad670a42412dd813ed4e5db069ed6a15006de  $W" | sha256sum -c || exit 3
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site $W .device/validate/whl/*.whl || exit 4
python3 - <<'PY'
from transformers import LlamaConfig
# tiny: 2 layers, 4 heads / 2 KV heads, 512 positions
LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512).save_pretrained("/tmp/tiny")
# llama-7b shape with a 128k context
LlamaConfig(max_position_embeddings=131072).save_pretrained("/tmp/llama7b-128k")
PY
