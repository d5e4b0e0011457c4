import torch
import torch.nn as nn
import torch.nn.functional as F


class LlamaAttention(nn.Module):
    def __init__(self, d, nh, nkv):
        super().__init__()
        hd = d // nh
        self.nh, self.nkv, self.hd = nh, nkv, hd
        self.q_proj = nn.Linear(d, nh * hd, bias=False)
        self.k_proj = nn.Linear(d, nkv * hd, bias=False)
        self.v_proj = nn.Linear(d, nkv * hd, bias=False)
        self.o_proj = nn.Linear(nh * hd, d, bias=False)

    def forward(self, x):
        T = x.shape[0]
        q = self.q_proj(x).view(T, self.nh, self.hd).transpose(0, 1)
        k = self.k_proj(x).view(T, self.nkv, self.hd).transpose(0, 1).repeat_interleave(self.nh // self.nkv, 0)
        v = self.v_proj(x).view(T, self.nkv, self.hd).transpose(0, 1).repeat_interleave(self.nh // self.nkv, 0)
        a = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True)[0]
        return self.o_proj(a.transpose(0, 1).reshape(T, -1))


class LlamaMLP(nn.Module):
    def __init__(self, d, inter):
        super().__init__()
        self.gate_proj = nn.Linear(d, inter, bias=False)
        self.up_proj = nn.Linear(d, inter, bias=False)
        self.down_proj = nn.Linear(inter, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))
