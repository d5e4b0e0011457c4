# prep.py tiny | bigpt DIR : model directories for the Z138 batch
#   tiny  : /workspace/models/tiny-llama (config.json only, served with --load-format dummy)
#   bigpt : DIR with config.json + one pytorch_model.bin (Llama shape, hidden 4096, 16 layers, ~7.5 GB bf16)
import json, os, sys, time
def cfg(d, c):
    os.makedirs(d, exist_ok=True); json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
if sys.argv[1] == "tiny":
    cfg("/workspace/models/tiny-llama", TINY); print("tiny-llama written")
elif sys.argv[1] == "bigpt":
    import torch
    d = sys.argv[2]; t0 = time.time()
    C = dict(TINY); C.update(hidden_size=4096, intermediate_size=14336, num_hidden_layers=16, num_attention_heads=32,
                             num_key_value_heads=8, vocab_size=32000, max_position_embeddings=8192, rope_theta=500000.0)
    cfg(d, C)
    H, I, V, KV = 4096, 14336, 32000, 1024
    z = lambda *s: torch.zeros(*s, dtype=torch.bfloat16)
    sd = {"model.embed_tokens.weight": z(V, H), "model.norm.weight": torch.ones(H, dtype=torch.bfloat16), "lm_head.weight": z(V, H)}
    for i in range(16):
        p = f"model.layers.{i}."
        sd.update({p + "self_attn.q_proj.weight": z(H, H), p + "self_attn.k_proj.weight": z(KV, H),
                   p + "self_attn.v_proj.weight": z(KV, H), p + "self_attn.o_proj.weight": z(H, H),
                   p + "mlp.gate_proj.weight": z(I, H), p + "mlp.up_proj.weight": z(I, H), p + "mlp.down_proj.weight": z(H, I),
                   p + "input_layernorm.weight": torch.ones(H, dtype=torch.bfloat16),
                   p + "post_attention_layernorm.weight": torch.ones(H, dtype=torch.bfloat16)})
    n = sum(t.numel() for t in sd.values())
    torch.save(sd, os.path.join(d, "pytorch_model.bin"))
    print(f"bigpt: {n/1e9:.2f}B params, {os.path.getsize(os.path.join(d, 'pytorch_model.bin'))/2**30:.2f} GiB written to {d} in {time.time()-t0:.0f}s", flush=True)
