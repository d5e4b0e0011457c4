"""The deployment being asked about: vLLM's parallel and memory settings."""

from __future__ import annotations

from dataclasses import dataclass

from vfix.errors import VfixError

KV_CACHE_DTYPES = ("auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bfloat16", "float16")
DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
DEFAULT_PORT = 8000  # vllm serve --port default
DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192  # logged by vLLM 0.26.0: "max_num_batched_tokens=8192"


@dataclass(frozen=True)
class Plan:
    tp: int = 1
    pp: int = 1
    max_model_len: int | None = None  # None: vLLM derives it from config.json
    gpu_memory_utilization: float = 0.9
    dtype: str = "auto"
    kv_cache_dtype: str = "auto"
    max_num_seqs: int | None = None
    cuda_visible_devices: str | None = None
    enable_expert_parallel: bool = False
    enforce_eager: bool = False
    port: int = DEFAULT_PORT
    gpu_memory_gib: float | None = None  # per-GPU total, when no facts say it
    max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS

    def __post_init__(self) -> None:
        if self.tp < 1 or self.pp < 1:
            raise VfixError("--tp and --pp must be at least 1")
        if not 0 < self.gpu_memory_utilization <= 1:
            raise VfixError("--gpu-memory-utilization must be in (0, 1]")
        if self.max_model_len is not None and self.max_model_len < 1:
            raise VfixError("--max-model-len must be at least 1")
        if self.max_num_seqs is not None and self.max_num_seqs < 1:
            raise VfixError("--max-num-seqs must be at least 1")
        if self.dtype not in DTYPES:
            raise VfixError(f"--dtype must be one of {', '.join(DTYPES)}")
        if self.kv_cache_dtype not in KV_CACHE_DTYPES:
            raise VfixError(f"--kv-cache-dtype must be one of {', '.join(KV_CACHE_DTYPES)}")
        if not 0 < self.port < 65536:
            raise VfixError("--port must be 1-65535")
        if self.gpu_memory_gib is not None and self.gpu_memory_gib <= 0:
            raise VfixError("--gpu-memory-gib must be positive")

    @property
    def world_size(self) -> int:
        return self.tp * self.pp
