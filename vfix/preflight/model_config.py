"""Read a model's config.json into the shape numbers vLLM's parallel rules work on.

The field names and their fallbacks follow vLLM 0.26.0
`vllm/transformers_utils/model_arch_config_convertor.py` (`ModelArchConfigConvertorBase`):
`get_total_num_kv_heads` (n_head_kv, num_kv_heads, num_key_value_heads, multi_query_group_num,
else the attention head count), `get_num_experts` (num_experts, moe_num_experts,
n_routed_experts, num_local_experts), `get_head_size` (MLA: kv_lora_rank + qk_rope_head_dim;
else head_dim, else hidden_size // heads) and `derive_max_model_len_and_key`; the RoPE scaling
of the derived length is `vllm/config/model.py` `_get_and_verify_max_len`.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vfix.errors import VfixError
from vfix.jsonfile import read_json_object

CONFIG_NAME = "config.json"
SAFETENSORS_INDEX = "model.safetensors.index.json"

# vLLM's is_deepseek_mla(): model types whose attention is Multi-head Latent Attention.
MLA_MODEL_TYPES = frozenset({
    "deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_mtp", "kimi_k2", "glm_moe_dsa",
    "glm4_moe_lite", "longcat_flash", "pangu_ultra_moe",
})
KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num")
EXPERT_KEYS = ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts")
MAX_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                "model_max_length", "max_target_positions", "max_sequence_length",
                "max_seq_length", "seq_len")
DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2,
               "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "float8_e4m3fn": 1}
SAFETENSORS_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4,
                           "I16": 2, "I8": 1, "U8": 1, "F8_E4M3": 1, "F8_E5M2": 1, "BOOL": 1}


@dataclass(frozen=True)
class Quantization:
    """What `quantization_config` says about how linear weights are stored."""

    method: str  # "fp8", "awq", "gptq", "compressed-tensors", ...
    bits: int | None = None
    group_size: int | None = None  # AWQ/GPTQ group along the input dimension; None: per channel
    block: tuple[int, int] | None = None  # fp8 weight_block_size [block_n, block_k]

    @property
    def weight_bytes(self) -> float:
        """Bytes per linear-layer weight, scales included where they are per group."""
        if self.method in ("fp8", "fbgemm_fp8", "modelopt"):
            return 1.0
        if self.bits:
            scale_overhead = 4.0 / self.group_size if self.group_size else 0.0  # fp16 scale+zero
            return self.bits / 8 + scale_overhead
        return 2.0


@dataclass(frozen=True)
class ModelShape:
    """The numbers vLLM's partitioning and memory rules read from config.json."""

    source: str  # the config.json read
    architectures: tuple[str, ...]
    model_type: str
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    intermediate_size: int
    num_experts: int = 0
    moe_intermediate_size: int | None = None
    shared_expert_intermediate_size: int = 0  # all shared experts of one layer together
    first_dense_layers: int = 0  # DeepSeek first_k_dense_replace
    is_mla: bool = False
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    q_lora_rank: int | None = None
    derived_max_len: int = 2048
    max_len_key: str | None = None
    torch_dtype: str | None = None
    quantization: Quantization | None = None
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    checkpoint_bytes: int | None = None  # safetensors tensor bytes, when the files are there
    checkpoint_source: str | None = None

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def expert_intermediate_size(self) -> int:
        """Per-expert FFN width: moe_intermediate_size, else intermediate_size (Mixtral)."""
        return self.moe_intermediate_size or self.intermediate_size

    @property
    def kv_head_dim(self) -> int:
        """Width of one cached KV entry: vLLM `get_head_size()` (MLA caches the latent)."""
        return self.kv_lora_rank + self.qk_rope_head_dim if self.is_mla else self.head_dim


def config_path(model: str | Path) -> Path:
    path = Path(model)
    return path / CONFIG_NAME if path.is_dir() else path


def load_model(model: str | Path) -> ModelShape:
    """Read `model` (a directory holding config.json, or the file itself). Bad input: VfixError."""
    path = config_path(model)
    raw = read_json_object(path, "model config")
    shape = shape_from_config(raw, str(path))
    checkpoint = _checkpoint_bytes(path.parent)
    if checkpoint is not None:
        size, source = checkpoint
        shape = replace(shape, checkpoint_bytes=size, checkpoint_source=source)
    return shape


def shape_from_config(raw: dict[str, Any], source: str) -> ModelShape:
    """Build the shape from a parsed config.json (multimodal: its text_config)."""
    text = raw
    if "num_attention_heads" not in raw and isinstance(raw.get("text_config"), dict):
        text = {**raw["text_config"]}
    try:
        return _shape(raw, text, source)
    except (TypeError, ValueError) as error:
        raise VfixError(f"model config {source} has an unusable value: {error}") from None


def _shape(raw: dict[str, Any], text: dict[str, Any], source: str) -> ModelShape:
    def need(key: str) -> int:
        value = text.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise VfixError(f"model config {source} lacks a positive integer {key!r}")
        return value

    hidden = need("hidden_size")
    heads = need("num_attention_heads")
    layers = need("num_hidden_layers")
    vocab = need("vocab_size")
    kv_heads = _first_int(text, KV_HEAD_KEYS) or heads
    model_type = str(text.get("model_type") or raw.get("model_type") or "")
    is_mla = model_type in MLA_MODEL_TYPES and isinstance(text.get("kv_lora_rank"), int)
    head_dim_value = text.get("head_dim")
    head_dim = head_dim_value if isinstance(head_dim_value, int) and head_dim_value > 0 \
        else hidden // heads
    experts = _first_int(text, EXPERT_KEYS) or 0
    shared_count = int(text.get("n_shared_experts") or 0)
    moe_inter = text.get("moe_intermediate_size")
    shared_inter = int(text.get("shared_expert_intermediate_size") or 0)
    if shared_count and isinstance(moe_inter, int):
        shared_inter = shared_count * moe_inter
    max_len, max_key = _derived_max_len(text)
    return ModelShape(
        source=source,
        architectures=tuple(raw.get("architectures") or ()),
        model_type=model_type,
        hidden_size=hidden,
        num_layers=layers,
        num_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        vocab_size=vocab,
        intermediate_size=int(text.get("intermediate_size") or 4 * hidden),
        num_experts=experts,
        moe_intermediate_size=moe_inter if isinstance(moe_inter, int) else None,
        shared_expert_intermediate_size=shared_inter,
        first_dense_layers=int(text.get("first_k_dense_replace") or 0) if experts else 0,
        is_mla=is_mla,
        kv_lora_rank=int(text.get("kv_lora_rank") or 0) if is_mla else 0,
        qk_rope_head_dim=int(text.get("qk_rope_head_dim") or 0) if is_mla else 0,
        qk_nope_head_dim=int(text.get("qk_nope_head_dim") or 0) if is_mla else 0,
        v_head_dim=int(text.get("v_head_dim") or 0) if is_mla else 0,
        q_lora_rank=text.get("q_lora_rank") if is_mla else None,
        derived_max_len=max_len,
        max_len_key=max_key,
        torch_dtype=_dtype_name(raw.get("torch_dtype") or raw.get("dtype")
                                or text.get("torch_dtype") or text.get("dtype")),
        quantization=_quantization(raw.get("quantization_config")
                                   or text.get("quantization_config")
                                   or raw.get("compression_config")),
        tie_word_embeddings=bool(raw.get("tie_word_embeddings", text.get("tie_word_embeddings",
                                                                         False))),
        attention_bias=bool(text.get("attention_bias", model_type == "qwen2")),
    )


def _first_int(config: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    # vLLM getattr_iter: the first key present wins.
    for key in keys:
        value = config.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _derived_max_len(config: dict[str, Any]) -> tuple[int, str | None]:
    """vLLM derive_max_model_len_and_key + the RoPE factor of _get_and_verify_max_len."""
    derived: float = float("inf")
    key_used = None
    for key in MAX_LEN_KEYS:
        value = config.get(key)
        if isinstance(value, int) and value < derived:
            derived, key_used = value, key
    if isinstance(config.get("model_max_length"), int):
        derived, key_used = config["model_max_length"], "model_max_length"
    if derived == float("inf"):
        return 2048, None  # vLLM's default when no key is present
    rope = config.get("rope_scaling") or config.get("rope_parameters")
    if isinstance(rope, dict) and "gemma3" not in str(config.get("model_type")):
        rope_type = rope.get("rope_type") or rope.get("type") or "default"
        if rope_type not in ("su", "longrope", "llama3", "default"):
            if rope_type == "yarn" and isinstance(rope.get("original_max_position_embeddings"),
                                                  int):
                derived = rope["original_max_position_embeddings"]
            derived *= float(rope.get("factor") or 1.0)
    return int(derived), key_used


def _dtype_name(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value.removeprefix("torch.")


def _quantization(config: object) -> Quantization | None:
    if not isinstance(config, dict):
        return None
    # vLLM _normalize_quantization_config: lower-case, compressed_tensors -> compressed-tensors.
    method = str(config.get("quant_method") or "").lower()
    method = method.replace("compressed_tensors", "compressed-tensors")
    if method == "compressed-tensors":
        return _compressed_tensors(config)
    block = config.get("weight_block_size")
    group = config.get("group_size")
    bits = config.get("bits") or config.get("w_bit")
    return Quantization(
        method=method,
        bits=int(bits) if isinstance(bits, int) else (8 if method == "fp8" else None),
        group_size=group if isinstance(group, int) and group > 0 else None,
        block=(int(block[0]), int(block[1])) if isinstance(block, list) and len(block) == 2
        else None,
    )


def _compressed_tensors(config: dict[str, Any]) -> Quantization:
    groups = config.get("config_groups") or {}
    weights: dict[str, Any] = next(
        (g["weights"] for g in groups.values()
         if isinstance(g, dict) and isinstance(g.get("weights"), dict)), {})
    bits = weights.get("num_bits")
    group = weights.get("group_size")
    block = weights.get("block_structure")
    return Quantization(
        method="compressed-tensors",
        bits=bits if isinstance(bits, int) else None,
        group_size=group if isinstance(group, int) and group > 0 else None,
        block=(int(block[0]), int(block[1])) if isinstance(block, list) and len(block) == 2
        else None,
    )


def _checkpoint_bytes(directory: Path) -> tuple[int, str] | None:
    """Tensor bytes of the checkpoint: index metadata total_size, else safetensors headers."""
    index = directory / SAFETENSORS_INDEX
    if index.is_file():
        try:
            total = json.loads(index.read_text(encoding="utf-8"))["metadata"]["total_size"]
            if isinstance(total, int) and total > 0:
                return total, f"{index} metadata.total_size"
        except (OSError, ValueError, KeyError, TypeError):
            return None
    files = sorted(directory.glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for file in files:
        size = _safetensors_header_bytes(file)
        if size is None:
            return None
        total += size
    return total, f"headers of {len(files)} safetensors file(s) in {directory}"


def _safetensors_header_bytes(file: Path) -> int | None:
    # Format: 8-byte little-endian header length, then a JSON header naming each tensor's
    # data_offsets; only the header is read, never the weights.
    try:
        with file.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            if length > 100_000_000:
                return None
            header = json.loads(handle.read(length))
    except (OSError, ValueError, struct.error):
        return None
    return sum(int(t["data_offsets"][1]) - int(t["data_offsets"][0])
               for name, t in header.items() if name != "__metadata__")
