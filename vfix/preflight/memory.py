"""Per-GPU memory fit, done the way vLLM 0.26.0 budgets it.

vLLM (`vllm/v1/worker/gpu_worker.py` Worker.determine_available_memory) gives the KV cache
    gpu_memory_utilization x total - weights - peak activation - non-torch - CUDA graphs
and refuses to start when one request of max_model_len does not fit
(`vllm/v1/core/kv_cache_utils.py` _check_enough_kv_cache_memory:
"To serve at least one request with the model's max seq len ...").

Weights come from the checkpoint (safetensors index `total_size` or headers) when present,
else parameter count x dtype bytes (quantisation aware), divided as TP/PP place them. The
overheads are estimates calibrated on vLLM's own logs (see tests/data/models/SOURCES.md):
activation peak ~ max_num_batched_tokens x 20 x hidden x 2 bytes (Llama-3-8B: 1.26 GiB logged,
tiny Llama on H200: 0.07 GiB logged), non-torch 0.25 GiB on one GPU (0.22 GiB logged on the
H200) plus NCCL/custom all-reduce buffers with TP>1, CUDA graphs 0.5 GiB unless eager.
"""

from __future__ import annotations

from dataclasses import dataclass

from vfix.preflight.model_config import DTYPE_BYTES, ModelShape
from vfix.preflight.params import count_params
from vfix.preflight.partitioning import padded_vocab, pp_partition
from vfix.preflight.plan import Plan

GIB = 1024**3
BLOCK_SIZE = 16  # vLLM's default KV cache block size (tokens); token counts are whole blocks
ACTIVATION_FACTOR = 20  # bytes-per-token multiple of hidden x dtype; fitted to logged peaks
NON_TORCH_SINGLE_GIB = 0.25
NON_TORCH_TP_EXTRA_GIB = 1.0  # NCCL communicators, custom all-reduce IPC buffers
CUDA_GRAPH_GIB = 0.5  # vLLM logs e.g. "Estimated CUDA graph memory: 0.36 GiB total"


@dataclass(frozen=True)
class MemoryEstimate:
    total_bytes: float  # per GPU, as torch sees it
    budget_bytes: float  # gpu_memory_utilization x total
    weights_bytes: float  # per GPU, worst pipeline stage
    activation_bytes: float
    non_torch_bytes: float
    cuda_graph_bytes: float
    kv_bytes_per_token: int  # per GPU
    weights_source: str

    @property
    def kv_available_bytes(self) -> float:
        return (self.budget_bytes - self.weights_bytes - self.activation_bytes
                - self.non_torch_bytes - self.cuda_graph_bytes)

    @property
    def kv_tokens(self) -> int:
        """Tokens the KV cache holds, in whole blocks (vLLM's "GPU KV cache size")."""
        if self.kv_available_bytes <= 0 or self.kv_bytes_per_token <= 0:
            return 0
        blocks = int(self.kv_available_bytes // (self.kv_bytes_per_token * BLOCK_SIZE))
        return blocks * BLOCK_SIZE

    def as_dict(self) -> dict[str, object]:
        return {
            "gpu_total_gib": round(self.total_bytes / GIB, 2),
            "budget_gib": round(self.budget_bytes / GIB, 2),
            "weights_gib": round(self.weights_bytes / GIB, 2),
            "weights_source": self.weights_source,
            "activation_gib": round(self.activation_bytes / GIB, 2),
            "non_torch_gib": round(self.non_torch_bytes / GIB, 2),
            "cuda_graph_gib": round(self.cuda_graph_bytes / GIB, 2),
            "kv_cache_gib": round(self.kv_available_bytes / GIB, 2),
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_cache_tokens": self.kv_tokens,
        }


def activation_dtype_bytes(shape: ModelShape, plan: Plan) -> int:
    """vLLM dtype "auto": the config's dtype, except float32 checkpoints run in 16 bits."""
    if plan.dtype != "auto":
        return DTYPE_BYTES[plan.dtype]
    config = DTYPE_BYTES.get(shape.torch_dtype or "bfloat16", 2)
    return min(config, 2)


def kv_dtype_bytes(shape: ModelShape, plan: Plan) -> int:
    if plan.kv_cache_dtype == "auto":
        return activation_dtype_bytes(shape, plan)
    return DTYPE_BYTES[plan.kv_cache_dtype]


def kv_bytes_per_token(shape: ModelShape, plan: Plan) -> int:
    """KV cache bytes one token costs on one GPU of the largest pipeline stage.

    Standard attention: 2 (K and V) x layers x kv heads per GPU x head_dim x bytes, with vLLM's
    replication: max(1, kv_heads // tp) (ModelConfig.get_num_kv_heads). MLA: one latent entry
    (kv_lora_rank + qk_rope_head_dim) per layer, not split by TP (MLAAttentionSpec).
    """
    layers = max(pp_partition(shape.num_layers, plan.pp))
    dtype = kv_dtype_bytes(shape, plan)
    if shape.is_mla:
        return layers * shape.kv_head_dim * dtype
    heads_per_gpu = max(1, shape.num_kv_heads // plan.tp)
    return 2 * layers * heads_per_gpu * shape.head_dim * dtype


def weights_per_gpu(shape: ModelShape, plan: Plan) -> tuple[float, str]:
    """Bytes of weights on the busiest GPU, and where the total came from."""
    counts = count_params(shape)
    act = activation_dtype_bytes(shape, plan)
    quant = shape.quantization
    linear_bytes = quant.weight_bytes if quant else act
    vocab_rows = padded_vocab(shape.vocab_size)
    embed = vocab_rows * shape.hidden_size * act
    head = 0 if shape.tie_word_embeddings else embed
    layer_bytes = counts.linear_per_layer * linear_bytes + counts.other_per_layer * act
    estimated_total = embed + head + layer_bytes * shape.num_layers
    source = "parameter count x dtype bytes" + (f" ({quant.method})" if quant else "")
    scale = 1.0
    if shape.checkpoint_bytes:
        # Trust the checkpoint's own size; keep the estimate only for how it splits.
        scale = shape.checkpoint_bytes / estimated_total
        if quant is None and shape.torch_dtype in ("float32", "float"):
            scale *= act / 4  # vLLM loads float32 checkpoints in 16 bits
        source = shape.checkpoint_source or "checkpoint"
    stage_layers = max(pp_partition(shape.num_layers, plan.pp))
    # The first stage holds the embedding and the last the LM head; with PP=1 one GPU has both.
    ends = embed + head if plan.pp == 1 else max(embed, head)
    per_gpu = (layer_bytes * stage_layers + ends) / plan.tp
    return per_gpu * scale, source


def estimate(shape: ModelShape, plan: Plan, total_bytes: float) -> MemoryEstimate:
    weights, source = weights_per_gpu(shape, plan)
    act = activation_dtype_bytes(shape, plan)
    non_torch = NON_TORCH_SINGLE_GIB + (NON_TORCH_TP_EXTRA_GIB if plan.tp > 1 else 0.0)
    return MemoryEstimate(
        total_bytes=total_bytes,
        budget_bytes=plan.gpu_memory_utilization * total_bytes,
        weights_bytes=weights,
        activation_bytes=plan.max_num_batched_tokens * ACTIVATION_FACTOR * shape.hidden_size
        * act,
        non_torch_bytes=non_torch * GIB,
        cuda_graph_bytes=0.0 if plan.enforce_eager else CUDA_GRAPH_GIB * GIB,
        kv_bytes_per_token=kv_bytes_per_token(shape, plan),
        weights_source=source,
    )


def largest_fitting_len(memory: MemoryEstimate, cap: int) -> int:
    """The largest max-model-len one request can use, in whole blocks, at most `cap`."""
    return min(memory.kv_tokens, cap)
