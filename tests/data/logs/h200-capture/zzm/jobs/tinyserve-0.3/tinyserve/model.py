import torch.nn as nn
from .layers import LlamaAttention, LlamaMLP


class LlamaDecoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.input_layernorm = nn.LayerNorm(d, eps=cfg.get("rms_norm_eps", 1e-5), bias=False)
        self.self_attn = LlamaAttention(d, cfg["num_attention_heads"], cfg.get("num_key_value_heads", cfg["num_attention_heads"]))
        self.post_attention_layernorm = nn.LayerNorm(d, eps=cfg.get("rms_norm_eps", 1e-5), bias=False)
        self.mlp = LlamaMLP(d, cfg["intermediate_size"])

    def forward(self, h):
        h = h + self.self_attn(self.input_layernorm(h))
        return h + self.mlp(self.post_attention_layernorm(h))


class LlamaModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.layers = nn.ModuleList(LlamaDecoderLayer(cfg) for _ in range(cfg["num_hidden_layers"]))
        self.norm = nn.LayerNorm(cfg["hidden_size"], eps=cfg.get("rms_norm_eps", 1e-5), bias=False)


class TinyLlamaForCausalLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.config = dict(cfg)
        self.model = LlamaModel(cfg)
        self.lm_head = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)

    def forward(self, ids):
        h = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            h = layer(h)
        return self.lm_head(self.model.norm(h))
