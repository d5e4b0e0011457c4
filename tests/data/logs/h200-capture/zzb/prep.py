# prep.py (Z153): model directories (config.json only; served with --load-format dummy)
import json, os
def cfg(d, c):
    os.makedirs(d, exist_ok=True); json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
cfg("/workspace/models/tiny-llama", TINY)
# a 1-layer Llama (a draft/smoke-test model) for a 2-stage pipeline
c = dict(TINY); c.update(num_hidden_layers=1); cfg("/workspace/models/llama-1layer", c)
# a fine-tune whose training script saved its own "max_sequence_length": 2048 into config.json (32k model)
c = dict(TINY); c.update(max_position_embeddings=32768, rope_theta=1000000.0, max_sequence_length=2048)
cfg("/workspace/models/llama-32k-ft", c)
# GPT-2 XL shape (25 heads, n_embd 1600), 2 layers to keep it small
cfg("/workspace/models/gpt2-xl-shape", dict(architectures=["GPT2LMHeadModel"], model_type="gpt2", n_embd=1600, n_head=25,
    n_layer=2, n_positions=1024, n_ctx=1024, vocab_size=50257, activation_function="gelu_new", layer_norm_epsilon=1e-5,
    bos_token_id=50256, eos_token_id=50256, torch_dtype="float32"))
print("models: tiny-llama llama-1layer llama-32k-ft gpt2-xl-shape")
