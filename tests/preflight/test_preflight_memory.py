"""Memory estimates checked against the numbers vLLM itself logged."""

from __future__ import annotations

import re

import pytest
from preflight_helpers import model

from vfix.preflight.memory import GIB, estimate, kv_bytes_per_token, largest_fitting_len
from vfix.preflight.model_config import load_model
from vfix.preflight.plan import Plan

LOG = model("tiny-llama-vllm-h200") / "serve-ok-tp1.log"


def logged(pattern: str) -> tuple[str, ...]:
    match = re.search(pattern, LOG.read_text())
    assert match, pattern
    return match.groups()


def test_kv_cache_matches_vllm_0_26_on_the_h200() -> None:
    """Real run: --gpu-memory-utilization 0.2 --max-model-len 512 --enforce-eager."""
    (total,) = logged(r"Free memory on device \([\d.]+/([\d.]+) GiB\)")
    util, budget = logged(r"Desired GPU memory utilization is \(([\d.]+), ([\d.]+) GiB\)")
    (kv_gib,) = logged(r"Available KV cache memory: ([\d.]+) GiB")
    (tokens,) = logged(r"GPU KV cache size: ([\d,]+) tokens")
    (concurrency,) = logged(r"Maximum concurrency for 512 tokens per request: ([\d.]+)x")
    plan = Plan(gpu_memory_utilization=float(util), max_model_len=512, enforce_eager=True)
    memory = estimate(load_model(model("tiny-llama-vllm-h200")), plan, float(total) * GIB)

    assert memory.kv_bytes_per_token == 2 * 2 * 2 * 64 * 2  # K+V x layers x kv heads x dim x bf16
    assert memory.budget_bytes / GIB == pytest.approx(float(budget), abs=0.01)
    assert memory.kv_available_bytes / GIB == pytest.approx(float(kv_gib), rel=0.005)
    assert memory.kv_tokens == pytest.approx(int(tokens.replace(",", "")), rel=0.005)
    assert memory.kv_tokens / 512 == pytest.approx(float(concurrency), rel=0.005)
    # vLLM's own token count is whole 16-token blocks of 1024-byte tokens: the same arithmetic.
    assert int(tokens.replace(",", "")) % 16 == 0


# Meta-Llama-3-8B, vLLM PR #10511 (tests/data/models/SOURCES.md): 79.22 GiB GPU, util 0.90,
# weights 14.96 GiB at TP=1 and 7.48 GiB at TP=2, activation peak 1.26 GiB, KV 53.29 GiB.
@pytest.mark.parametrize(("tp", "weights_gib"), [(1, 14.96), (2, 7.48)])
def test_weights_match_vllm_log_for_llama3_8b(tp: int, weights_gib: float) -> None:
    memory = estimate(load_model(model("llama-3.1-8b")), Plan(tp=tp), 79.22 * GIB)
    assert memory.weights_bytes / GIB == pytest.approx(weights_gib, rel=0.005)


def test_kv_and_activation_close_to_vllm_log_for_llama3_8b() -> None:
    memory = estimate(load_model(model("llama-3.1-8b")), Plan(), 79.22 * GIB)
    assert memory.activation_bytes / GIB == pytest.approx(1.26, rel=0.05)
    assert memory.kv_available_bytes / GIB == pytest.approx(53.29, rel=0.05)


def test_kv_per_token_known_values() -> None:
    llama70 = load_model(model("llama-3.1-70b"))
    assert kv_bytes_per_token(llama70, Plan()) == 327680  # 320 KiB/token in bf16
    assert kv_bytes_per_token(llama70, Plan(tp=8)) == 40960
    # TP=16 > 8 KV heads: replication keeps one head per GPU, so no further saving.
    assert kv_bytes_per_token(llama70, Plan(tp=16)) == 40960
    assert kv_bytes_per_token(llama70, Plan(tp=8, kv_cache_dtype="fp8")) == 20480
    # DeepSeek-V3 MLA: 61 layers x (512 + 64) x 2 bytes, the same on every TP rank.
    deepseek = load_model(model("deepseek-v3"))
    assert kv_bytes_per_token(deepseek, Plan()) == 70272
    assert kv_bytes_per_token(deepseek, Plan(tp=8)) == 70272
    assert kv_bytes_per_token(deepseek, Plan(tp=8, pp=2)) == 31 * 576 * 2


def test_fp8_checkpoint_weighs_about_half() -> None:
    fp8 = estimate(load_model(model("qwen3-32b-fp8")), Plan(), 140 * GIB).weights_bytes
    params = 32.76e9
    assert 1.0 < fp8 / params < 1.1  # linear weights 1 byte; embeddings and norms bf16


def test_llama70b_does_not_fit_one_h200_but_fits_two() -> None:
    shape = load_model(model("llama-3.1-70b"))
    one = estimate(shape, Plan(tp=1), 139.8 * GIB)
    assert one.kv_available_bytes < 0  # 131 GiB of bf16 weights > 0.9 x 139.8
    two = estimate(shape, Plan(tp=2), 139.8 * GIB)
    fits = largest_fitting_len(two, shape.derived_max_len)
    assert fits == shape.derived_max_len  # 131072 tokens x 160 KiB = 20 GiB < ~50 GiB free
