"""Parameter counts from a model's shape, split by how vLLM places them across GPUs.

Used when the checkpoint's own sizes (safetensors index `total_size`) are not at hand.
Linear layers (attention projections, MLP, experts) are what quantisation shrinks and what
tensor parallelism splits; embeddings and the LM head are split along the (padded) vocab;
norms and MLA's small latent projections are counted as replicated.
"""

from __future__ import annotations

from dataclasses import dataclass

from vfix.preflight.model_config import ModelShape


@dataclass(frozen=True)
class ParamCounts:
    embedding: int  # input embedding
    lm_head: int  # 0 when tied to the embedding
    linear_per_layer: float  # mean over layers (dense and MoE layers differ)
    other_per_layer: float  # norms, router, replicated bits
    final_norm: int
    num_layers: int

    @property
    def linear(self) -> int:
        return round(self.linear_per_layer * self.num_layers)

    @property
    def total(self) -> int:
        layers = (self.linear_per_layer + self.other_per_layer) * self.num_layers
        return round(self.embedding + self.lm_head + layers + self.final_norm)


def count_params(shape: ModelShape) -> ParamCounts:
    h = shape.hidden_size
    attention = _mla_params(shape) if shape.is_mla else _attention_params(shape)
    dense_mlp = 3 * h * shape.intermediate_size  # gate, up, down (gated MLPs)
    moe_layers = 0
    moe_mlp = 0
    if shape.is_moe:
        moe_layers = shape.num_layers - shape.first_dense_layers
        moe_mlp = 3 * h * (shape.num_experts * shape.expert_intermediate_size
                           + shape.shared_expert_intermediate_size)
    dense_layers = shape.num_layers - moe_layers
    linear_total = shape.num_layers * attention + dense_layers * dense_mlp + moe_layers * moe_mlp
    router = moe_layers * h * shape.num_experts
    norms = shape.num_layers * 2 * h
    mla_norms = shape.num_layers * (shape.kv_lora_rank + (shape.q_lora_rank or 0))
    bias = shape.num_layers * (shape.num_heads + 2 * shape.num_kv_heads) * shape.head_dim \
        if shape.attention_bias and not shape.is_mla else 0
    embedding = shape.vocab_size * h
    return ParamCounts(
        embedding=embedding,
        lm_head=0 if shape.tie_word_embeddings else embedding,
        linear_per_layer=linear_total / shape.num_layers,
        other_per_layer=(router + norms + mla_norms + bias) / shape.num_layers,
        final_norm=h,
        num_layers=shape.num_layers,
    )


def _attention_params(shape: ModelShape) -> int:
    h, d = shape.hidden_size, shape.head_dim
    q_and_o = 2 * h * shape.num_heads * d
    k_and_v = 2 * h * shape.num_kv_heads * d
    return q_and_o + k_and_v


def _mla_params(shape: ModelShape) -> int:
    # DeepSeek-V2/V3 attention: q (optionally through a low-rank q_a/q_b pair), the joint
    # kv_a projection to the latent + rope part, kv_b back up to heads, and o_proj.
    h, n = shape.hidden_size, shape.num_heads
    qk_head = shape.qk_nope_head_dim + shape.qk_rope_head_dim
    if shape.q_lora_rank:
        q = h * shape.q_lora_rank + shape.q_lora_rank * n * qk_head
    else:
        q = h * n * qk_head
    kv_a = h * (shape.kv_lora_rank + shape.qk_rope_head_dim)
    kv_b = shape.kv_lora_rank * n * (shape.qk_nope_head_dim + shape.v_head_dim)
    o = n * shape.v_head_dim * h
    return q + kv_a + kv_b + o
