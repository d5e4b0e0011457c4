"""vLLM's split rules on real configs; expected verdicts worked out from vLLM 0.26.0's source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from preflight_helpers import model

from vfix.preflight.model_config import load_model
from vfix.preflight.partitioning import (
    check_partitioning,
    pp_partition,
    tp_failures,
    valid_tp_sizes,
)
from vfix.preflight.plan import Plan
from vfix.vocabulary import Layer, Verdict


def verdicts(name: str, **plan: object) -> dict[str, Verdict]:
    results = check_partitioning(load_model(model(name)), Plan(**plan))  # type: ignore[arg-type]
    assert all(r.layer is Layer.PARTITIONING and r.source.startswith("vllm/") for r in results)
    return {r.check: r.verdict for r in results}


P, F, W = Verdict.PASS, Verdict.FAIL, Verdict.WARN

# (model, plan, expected verdicts) — each FAIL is an exception vLLM raises at load time.
CASES = [
    # 64 heads, 8 KV heads: TP=8 one KV head per GPU; TP=16 replicates each KV head twice.
    ("llama-3.1-70b", {"tp": 8}, {"tp-attention-heads": P, "tp-kv-heads": P, "tp-mlp": P,
                                  "tp-vocab": P}),
    ("llama-3.1-70b", {"tp": 16}, {"tp-attention-heads": P, "tp-kv-heads": P, "tp-vocab": P}),
    # 64 % 3 and 8 % 3: verify_with_parallel_config and QKVParallelLinear both refuse.
    ("llama-3.1-70b", {"tp": 3}, {"tp-attention-heads": F, "tp-kv-heads": F}),
    # Phi-4: 40 heads but 10 KV heads: TP=4 and TP=8 fail divide(10, 4) / divide(8, 10).
    ("phi-4", {"tp": 2}, {"tp-attention-heads": P, "tp-kv-heads": P}),
    ("phi-4", {"tp": 4}, {"tp-attention-heads": P, "tp-kv-heads": F}),
    ("phi-4", {"tp": 8}, {"tp-attention-heads": P, "tp-kv-heads": F}),
    # TP=5: heads 40/5 and KV 10/5 are fine, the vocab padded to 100352 is not (100352 % 5).
    ("phi-4", {"tp": 5}, {"tp-attention-heads": P, "tp-kv-heads": P, "tp-vocab": F}),
    ("qwen2.5-72b-instruct", {"tp": 8}, {"tp-attention-heads": P, "tp-kv-heads": P,
                                         "tp-mlp": P}),
    # Mixtral: 8 experts of 14336; TP splits each expert, EP gives each GPU one expert.
    ("mixtral-8x7b", {"tp": 8}, {"moe-experts": P}),
    ("mixtral-8x7b", {"tp": 8, "enable_expert_parallel": True}, {"moe-experts": P}),
    ("mixtral-8x7b", {"tp": 16, "enable_expert_parallel": True}, {"moe-experts": F}),
    # Qwen3-30B-A3B: 128 experts over EP=6 is uneven (EPLB would refuse it).
    ("qwen3-30b-a3b", {"tp": 4}, {"moe-experts": P, "tp-kv-heads": P}),
    # Qwen3-30B-A3B-FP8: experts 768/4 = 192 is not a multiple of the 128 fp8 block
    # (Fp8MoEMethod.create_weights; reported as vllm-project/vllm#25292 "crashes with TP=4").
    ("qwen3-30b-a3b-fp8", {"tp": 2}, {"quant-shards": P}),
    ("qwen3-30b-a3b-fp8", {"tp": 4}, {"quant-shards": F}),
    ("qwen3-30b-a3b-fp8", {"tp": 4, "enable_expert_parallel": True}, {"quant-shards": P}),
    ("qwen3-235b-a22b-fp8", {"tp": 8}, {"quant-shards": F}),
    ("qwen3-32b-fp8", {"tp": 8}, {"quant-shards": P}),
    # DeepSeek-V3: MLA, experts 2048/8 = 256 and dense 18432/8 = 2304 keep 128-blocks whole;
    # at TP=32 the experts are 64 wide: smaller than one block.
    ("deepseek-v3", {"tp": 8}, {"tp-attention-heads": P, "tp-kv-heads": P, "moe-experts": P,
                                "quant-shards": P, "tp-mlp": P}),
    ("deepseek-v3", {"tp": 32}, {"quant-shards": F}),
    # Pipeline: 61 layers over 2 stages split [31, 30]; 2 layers cannot fill 4 stages.
    ("deepseek-v3", {"tp": 8, "pp": 2}, {"pp-layers": P}),
    ("tiny-llama-vllm-h200", {"pp": 4}, {"pp-layers": F}),
]


@pytest.mark.parametrize(("name", "plan", "expected"), CASES)
def test_expected_verdicts(name: str, plan: dict[str, object],
                           expected: dict[str, Verdict]) -> None:
    got = verdicts(name, **plan)
    assert {check: got.get(check) for check in expected} == expected


def test_uneven_expert_parallel_split_is_a_warning() -> None:
    got = verdicts("qwen3-30b-a3b", tp=6, enable_expert_parallel=True)
    assert got["tp-attention-heads"] is F  # 32 % 6
    assert got["moe-experts"] is W  # 128 experts over 6 ranks: 21-22 each


def test_pp_partition_matches_get_pp_indices() -> None:
    assert pp_partition(61, 2) == [31, 30]
    assert pp_partition(32, 4) == [8, 8, 8, 8]
    assert pp_partition(10, 4) == [2, 3, 3, 2]  # remainders go to the middle stages


def test_kv_replication_is_stated() -> None:
    results = check_partitioning(load_model(model("llama-3.1-70b")), Plan(tp=16))
    kv = next(r for r in results if r.check == "tp-kv-heads")
    assert "replicated 2x" in kv.reason


def test_valid_tp_sizes_for_phi4() -> None:
    assert valid_tp_sizes(load_model(model("phi-4")), 10) == [1, 2]


def test_vocab_padding_rule() -> None:
    # 152064 = 64 x 2376 is divisible by 3, so Qwen2.5's vocab alone never blocks TP=3 ...
    shape = load_model(model("qwen2.5-72b-instruct"))
    assert not any("vocab" in reason for reason in tp_failures(shape, 3))
    # ... while 128256 = 64 x 2004 is too, and 100352 = 64 x 1568 is not.
    assert any("vocab" in reason for reason in tp_failures(load_model(model("phi-4")), 3))


def test_awq_groups_explain_qwens_padded_intermediate_size(tmp_path: Path) -> None:
    """Qwen2.5-72B-Instruct-AWQ pads 29568 to 29696 so that 29696 / 8 = 29 x 128."""
    awq = load_model(model("qwen2.5-72b-instruct-awq"))
    assert awq.quantization is not None and awq.quantization.group_size == 128
    assert verdicts("qwen2.5-72b-instruct-awq", tp=8)["quant-shards"] is P
    assert verdicts("qwen2.5-72b-instruct-awq", tp=16)["quant-shards"] is F  # 1856 % 128
    # The same AWQ stanza on the unpadded width: down_proj input 29568 / 8 = 3696, not whole
    # 128-groups (auto_awq.py: "The input size is not aligned with the quantized weight shape").
    raw = json.loads((model("qwen2.5-72b-instruct") / "config.json").read_text())
    raw["quantization_config"] = json.loads((model("qwen2.5-72b-instruct-awq") / "config.json")
                                            .read_text())["quantization_config"]
    (tmp_path / "config.json").write_text(json.dumps(raw))
    failures = tp_failures(load_model(tmp_path), 8)
    assert any("down_proj input 3696 % group_size 128" in reason for reason in failures)
