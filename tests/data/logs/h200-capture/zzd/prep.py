# prep.py (Z180): model directories (config.json only; served with --load-format dummy) and adapter dirs
import json, os
def cfg(d, c, name="config.json"):
    os.makedirs(d, exist_ok=True); json.dump(c, open(os.path.join(d, name), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
cfg("/workspace/models/tiny-llama", TINY)
L3 = dict(architectures=["LlamaForCausalLM"], model_type="llama", vocab_size=128256, rms_norm_eps=1e-5, hidden_act="silu",
          torch_dtype="bfloat16", bos_token_id=128000, eos_token_id=128009, rope_theta=500000.0, max_position_embeddings=131072,
          rope_scaling={"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 8192, "rope_type": "llama3"})
# Llama-3.2-1B-Instruct shape (target of the EAGLE job)
c = dict(L3); c.update(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                       num_key_value_heads=8, head_dim=64, tie_word_embeddings=True)
cfg("/workspace/models/Llama-3.2-1B-Instruct", c)
# EAGLE head published for Llama-3.1-8B-Instruct (hidden 4096, one decoder layer), as in yuhuili/EAGLE-LLaMA3.1-Instruct-8B
c = dict(L3); c.update(hidden_size=4096, intermediate_size=14336, num_hidden_layers=1, num_attention_heads=32,
                       num_key_value_heads=8, tie_word_embeddings=False)
cfg("/workspace/models/EAGLE-LLaMA3.1-Instruct-8B", c)
# Llama-3.1-8B-Instruct shape (target of the draft-model job) and Llama-3.1-70B-Instruct shape (given as the draft)
c = dict(L3); c.update(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                       num_key_value_heads=8, tie_word_embeddings=False)
cfg("/workspace/models/Llama-3.1-8B-Instruct", c)
c = dict(L3); c.update(hidden_size=8192, intermediate_size=28672, num_hidden_layers=80, num_attention_heads=64,
                       num_key_value_heads=8, tie_word_embeddings=False)
cfg("/workspace/models/Llama-3.1-70B-Instruct", c)
# a PEFT LoRA adapter directory copied without its weights: adapter_config.json and README.md only
d = "/workspace/adapters/sql-lora"
cfg(d, dict(base_model_name_or_path="/workspace/models/tiny-llama", peft_type="LORA", task_type="CAUSAL_LM", r=8,
            lora_alpha=16, lora_dropout=0.05, bias="none", target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
            fan_in_fan_out=False, inference_mode=True, modules_to_save=None), "adapter_config.json")
open(os.path.join(d, "README.md"), "w").write("---\nlibrary_name: peft\nbase_model: tiny-llama\n---\n# sql-lora\n")
print("models:", sorted(os.listdir("/workspace/models")), "adapters:", os.listdir("/workspace/adapters"))
for root, _, files in os.walk("/workspace/adapters"):
    for f in files: print("  ", os.path.join(root, f), os.path.getsize(os.path.join(root, f)))
# a PEFT adapter trained with use_dora=True (DoRA), complete with its weights
d = "/workspace/adapters/support-dora"
cfg(d, dict(base_model_name_or_path="/workspace/models/tiny-llama", peft_type="LORA", task_type="CAUSAL_LM", r=8,
            lora_alpha=16, lora_dropout=0.05, bias="none", target_modules=["q_proj", "v_proj"], use_dora=True,
            fan_in_fan_out=False, inference_mode=True, modules_to_save=None), "adapter_config.json")
try:
    import torch
    from safetensors.torch import save_file
    t = {}
    for i in range(2):
        for mod, out in (("q_proj", 256), ("v_proj", 128)):
            p = f"base_model.model.model.layers.{i}.self_attn.{mod}"
            t[p + ".lora_A.weight"] = torch.randn(8, 256, dtype=torch.bfloat16) * 0.01
            t[p + ".lora_B.weight"] = torch.zeros(out, 8, dtype=torch.bfloat16)
            t[p + ".lora_magnitude_vector"] = torch.ones(out, dtype=torch.bfloat16)
    save_file(t, os.path.join(d, "adapter_model.safetensors"))
except Exception as e:
    print("dora weights not written:", type(e).__name__, e)
for root, _, files in os.walk("/workspace/adapters/support-dora"):
    for f in files: print("  ", os.path.join(root, f), os.path.getsize(os.path.join(root, f)))
