import json, os
def cfg(d, c):
    os.makedirs(d, exist_ok=True); json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
cfg("/workspace/models/tiny-llama", TINY)
L7 = dict(TINY); L7.update(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                           num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096)
cfg("/workspace/models/llama-2-7b", L7)
print("models written:", sorted(os.listdir("/workspace/models")))
