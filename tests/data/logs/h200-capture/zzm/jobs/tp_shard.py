# tp_shard.py: Llama-style weights in Hugging Face naming, and their Megatron-style tensor-parallel shards in tinyserve's
# fused naming (qkv_proj = q|k|v rows of this rank's heads, gate_up_proj = gate|up rows of this rank's slice).
import torch


def full_weights(cfg, seed=0, std=0.02):
    """Random full-size weights (float32, CPU) for a Llama-style config, HF names."""
    g = torch.Generator().manual_seed(seed)
    H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads", nh)
    hd = cfg.get("head_dim", H // nh)
    I, L, V = cfg["intermediate_size"], cfg["num_hidden_layers"], cfg["vocab_size"]

    def r(*shape):
        return torch.randn(*shape, generator=g) * std

    sd = {"model.embed_tokens.weight": r(V, H), "model.norm.weight": torch.ones(H), "lm_head.weight": r(V, H)}
    for l in range(L):
        p = f"model.layers.{l}."
        sd[p + "input_layernorm.weight"] = torch.ones(H)
        sd[p + "post_attention_layernorm.weight"] = torch.ones(H)
        sd[p + "self_attn.q_proj.weight"] = r(nh * hd, H)
        sd[p + "self_attn.k_proj.weight"] = r(nkv * hd, H)
        sd[p + "self_attn.v_proj.weight"] = r(nkv * hd, H)
        sd[p + "self_attn.o_proj.weight"] = r(H, nh * hd)
        sd[p + "mlp.gate_proj.weight"] = r(I, H)
        sd[p + "mlp.up_proj.weight"] = r(I, H)
        sd[p + "mlp.down_proj.weight"] = r(H, I)
    return sd


def shard(sd, cfg, tp, rank):
    """This rank's shard of a full HF-named state dict (needs heads, KV heads, intermediate and vocab divisible by tp)."""
    H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads", nh)
    hd = cfg.get("head_dim", H // nh)
    I, L, V = cfg["intermediate_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    nh_l, nkv_l, I_l, V_l = nh // tp, nkv // tp, I // tp, V // tp

    def rows(t, n):
        return t[rank * n:(rank + 1) * n]

    def cols(t, n):
        return t[:, rank * n:(rank + 1) * n]

    out = {"model.embed_tokens.weight": sd["model.embed_tokens.weight"], "model.norm.weight": sd["model.norm.weight"],
           "lm_head.weight": rows(sd["lm_head.weight"], V_l)}
    for l in range(L):
        p = f"model.layers.{l}."
        out[p + "input_layernorm.weight"] = sd[p + "input_layernorm.weight"]
        out[p + "post_attention_layernorm.weight"] = sd[p + "post_attention_layernorm.weight"]
        out[p + "self_attn.qkv_proj.weight"] = torch.cat([rows(sd[p + "self_attn.q_proj.weight"], nh_l * hd),
                                                          rows(sd[p + "self_attn.k_proj.weight"], nkv_l * hd),
                                                          rows(sd[p + "self_attn.v_proj.weight"], nkv_l * hd)])
        out[p + "self_attn.o_proj.weight"] = cols(sd[p + "self_attn.o_proj.weight"], nh_l * hd)
        out[p + "mlp.gate_up_proj.weight"] = torch.cat([rows(sd[p + "mlp.gate_proj.weight"], I_l),
                                                        rows(sd[p + "mlp.up_proj.weight"], I_l)])
        out[p + "mlp.down_proj.weight"] = cols(sd[p + "mlp.down_proj.weight"], I_l)
    return {k: v.contiguous() for k, v in out.items()}
