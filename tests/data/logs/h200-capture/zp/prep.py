# writes the model directories used by run_zp.sh
import json, os, sys
def cfg(d, c):
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
cfg("/workspace/models/tiny-llama", TINY)
MOE = dict(architectures=["MixtralForCausalLM"], model_type="mixtral", hidden_size=256, intermediate_size=512,
           num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
           max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
           num_local_experts=8, num_experts_per_tok=2, bos_token_id=1, eos_token_id=2, rope_theta=1e6)
cfg("/workspace/models/tiny-mixtral-8e", MOE)
L8 = dict(TINY); L8.update(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                           num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0,
                           bos_token_id=128000, eos_token_id=128001)
cfg("/workspace/models/Meta-Llama-3-8B-Instruct", L8)
# a fine-tuned tiny llama whose weights were saved from the PEFT wrapper: every key under "base_model.model."
import torch
from safetensors.torch import save_file
d = "/workspace/models/llama-sft-merged"
cfg(d, TINY)
g = torch.Generator().manual_seed(0)
def t(*s):
    return (torch.randn(*s, generator=g) * 0.02).to(torch.bfloat16)
H, I, V, KV = 256, 512, 1024, 2 * 64
sd = {"model.embed_tokens.weight": t(V, H), "model.norm.weight": torch.ones(H, dtype=torch.bfloat16), "lm_head.weight": t(V, H)}
for i in range(2):
    p = f"model.layers.{i}."
    sd.update({p + "self_attn.q_proj.weight": t(H, H), p + "self_attn.k_proj.weight": t(KV, H),
               p + "self_attn.v_proj.weight": t(KV, H), p + "self_attn.o_proj.weight": t(H, H),
               p + "mlp.gate_proj.weight": t(I, H), p + "mlp.up_proj.weight": t(I, H), p + "mlp.down_proj.weight": t(H, I),
               p + "input_layernorm.weight": torch.ones(H, dtype=torch.bfloat16),
               p + "post_attention_layernorm.weight": torch.ones(H, dtype=torch.bfloat16)})
sd = {"base_model.model." + k: v for k, v in sd.items()}
save_file(sd, os.path.join(d, "model.safetensors"), metadata={"format": "pt"})
print("models written:", sorted(os.listdir("/workspace/models")))
