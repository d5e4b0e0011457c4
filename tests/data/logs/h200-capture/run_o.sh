#!/usr/bin/env bash
# Capture run O (session 5, a fresh machine): a twelfth blind batch, all with real `vllm serve`
# (vLLM 0.26.0), set-ups chosen by collector Y and not in the README's earlier batches.
# One call, after the five wheel parts were staged in /tmp: install, then
#   in parallel (each fails before allocating much; own API port each):
#     - --gpu-memory-utilization 1.5 (a typo for 0.95 / a value above 1)
#     - --attention-backend CUTLASS_MLA (Blackwell-only MLA kernel) for a DeepSeek-V3-shaped MLA
#       model on the H200 (sm_90)
#     - --kv-transfer-config NixlConnector (disaggregated prefill) where NIXL is not installed
#     - --load-format fastsafetensors where the fastsafetensors package is not installed
#     - -tp 4 -dcp 2 (decode context parallel) on a Llama-7B shape with 32 KV heads, mp backend
#   then alone (it needs the whole GPU):
#     - --kv-cache-memory-bytes set to leave only ~4.7 GiB free after the weights, with a CUDA
#       graph capture size of 16384 tokens on a model with a 131072-wide MLP
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
bash tests/data/logs/h200-capture/install.sh || exit $?
. tests/data/logs/h200-capture/common.sh
python3 -c "import nixl" 2>&1 | tail -1; python3 -c "import fastsafetensors" 2>&1 | tail -1
python3 - <<'PY'
import json, os
from transformers import LlamaConfig, LlamaForCausalLM
kw = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
          num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
# real (random) safetensors weights for the fastsafetensors load format
LlamaForCausalLM(LlamaConfig(**kw)).save_pretrained("/tmp/tiny-st", safe_serialization=True)
# DeepSeek-V3-shaped MLA model (kv_lora_rank 512 + rope 64 = head size 576), all layers dense
d = dict(architectures=["DeepseekV3ForCausalLM"], model_type="deepseek_v3", hidden_size=256,
         intermediate_size=512, moe_intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
         num_key_value_heads=4, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
         first_k_dense_replace=2, moe_layer_freq=1, n_group=1, topk_group=1, routed_scaling_factor=1.0,
         norm_topk_prob=True, scoring_func="sigmoid", topk_method="noaux_tc", kv_lora_rank=512,
         q_lora_rank=None, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128, vocab_size=1024,
         max_position_embeddings=512, rms_norm_eps=1e-6, rope_theta=10000.0, hidden_act="silu",
         torch_dtype="bfloat16", tie_word_embeddings=False, bos_token_id=0, eos_token_id=1)
os.makedirs("/tmp/tiny-dsv3-mla", exist_ok=True)
json.dump(d, open("/tmp/tiny-dsv3-mla/config.json", "w"), indent=2)
# one layer with a very wide MLP: ~6.3 GiB of bf16 weights, ~12 GiB of activations at 16384 tokens
LlamaConfig(hidden_size=8192, intermediate_size=131072, num_hidden_layers=1, num_attention_heads=64,
            num_key_value_heads=8, vocab_size=1024, max_position_embeddings=2048).save_pretrained("/tmp/wide-mlp")
PY
nvidia-smi --query-gpu=memory.used --format=csv,noheader
serve vllm026-gpu-memory-utilization-1.5 60 /tmp/tiny $TINY_ARGS --port 8061 --gpu-memory-utilization 1.5 &
serve vllm026-cutlass-mla-backend-on-sm90 100 /tmp/tiny-dsv3-mla $TINY_ARGS --port 8062 \
  --gpu-memory-utilization 0.1 --attention-backend CUTLASS_MLA &
serve vllm026-nixl-connector-not-installed 100 /tmp/tiny $TINY_ARGS --port 8063 --gpu-memory-utilization 0.1 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
serve vllm026-fastsafetensors-not-installed 100 /tmp/tiny-st --load-format fastsafetensors --skip-tokenizer-init \
  --enforce-eager --port 8064 --gpu-memory-utilization 0.1 &
serve vllm026-dcp2-tp4-32-kv-heads 60 /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init --enforce-eager \
  --port 8065 --max-model-len 4096 --tensor-parallel-size 4 --decode-context-parallel-size 2 \
  --distributed-executor-backend mp &
wait
sleep 2
FREE_MIB=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
KV=$(( (FREE_MIB - 12 * 1024) * 1024 * 1024 ))
echo "free ${FREE_MIB} MiB -> --kv-cache-memory-bytes $KV"
serve vllm026-kv-cache-bytes-tight-cudagraph-16384 150 /tmp/wide-mlp --load-format dummy --skip-tokenizer-init \
  --dtype bfloat16 --port 8066 --max-model-len 2048 --max-num-batched-tokens 16384 --kv-cache-memory-bytes $KV \
  --compilation-config '{"cudagraph_capture_sizes":[1,2,4,8,16,32,64,128,256,512,16384]}'
nvidia-smi --query-gpu=memory.used --format=csv,noheader
