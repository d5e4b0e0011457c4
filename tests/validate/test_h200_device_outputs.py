"""What the real 1x H200 machine produced (tests/data/validate-h200, see its README): the
nccl_tests role's build + cached rebuild, the torch validator, and real vLLM 0.26.0 at TP=1."""

import json
from pathlib import Path

from vfix.validate.allreduce_verdict import parse_allreduce_file
from vfix.validate.compare import compare_busbw
from vfix.validate.nccl_output import parse_file
from vfix.validate.runs import judge_allreduce_dir, judge_nccl_dir
from vfix.validate.vllm_verdict import judge_smoke_dir
from vfix.vocabulary import Verdict

RUN1 = Path(__file__).resolve().parent.parent / "data" / "validate-h200" / "run1"
RUN6 = Path(__file__).resolve().parent.parent / "data" / "validate-h200" / "run6"


def test_role_built_against_torchs_nccl_wheel_and_reused_the_cache():
    first = json.loads((RUN1 / "nccl" / "localhost" / "meta.json").read_text())
    again = json.loads((RUN1 / "nccl-cached" / "localhost" / "meta.json").read_text())
    assert first["nccl_version"] == "2.28.9" and first["cuda_version"] == "13.0"
    assert first["nccl_home"].endswith("site-packages/nvidia/nccl")
    assert first["cache_hit"] is False and again["cache_hit"] is True
    assert first["build_dir"] == again["build_dir"]
    assert first["build_dir"].endswith("build-nccl2.28.9-cuda13.0-" + first["source_revision"])


def test_real_nccl_tests_and_torch_validator_both_pass_on_one_gpu():
    [nccl] = judge_nccl_dir(RUN1 / "nccl").nodes
    [torch] = judge_allreduce_dir(RUN1 / "allreduce").nodes
    assert nccl.verdict is torch.verdict is Verdict.PASS
    assert nccl.metrics["all_reduce_perf.repeats"] == 2
    assert nccl.metrics["all_reduce_perf.nccl"] == "2.28.9"
    assert torch.metrics["backend"] == "nccl" and torch.metrics["device"] == "NVIDIA H200"


def test_busbw_comparison_at_one_gpu_is_reported_as_not_comparable():
    [run] = parse_file(RUN1 / "nccl" / "localhost" / "all_reduce_perf-1.txt")
    result = compare_busbw(run, parse_allreduce_file(RUN1 / "allreduce" / "localhost"
                                                     / "allreduce.json"))
    assert result.size == 1 << 30 and result.nccl_busbw == 0.0 and result.torch_busbw == 0.0
    assert result.comparable is False


def test_real_vllm_smoke_run_at_tp1_passes():
    [node] = judge_smoke_dir(RUN6 / "vllm").nodes
    assert node.verdict is Verdict.PASS, node.findings
    assert node.metrics["tp1.ranks"] == 1 and node.metrics["tp1.completion_tokens"] == 8
    assert node.metrics["tp1.ramp_max_prompt"] == 504
    assert node.metrics["tp1.gpu0_mib"] == 29170  # 0.2 x 139.8 GiB, as vLLM was asked
    doc = json.loads((RUN6 / "vllm" / "localhost" / "result.json").read_text())
    run = doc["runs"][0]
    assert run["completion"]["token_ids"] == run["repeat"]["token_ids"]
    assert run["past_limit"]["status"] == 400
    assert run["teardown"]["remaining_pids"] == []
    assert run["teardown"]["memory_after_mib"] == run["memory_before_mib"]
