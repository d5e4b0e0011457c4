"""Verdicts on vLLM smoke documents: the healthy shape, and each failure mode alone."""

import copy
from pathlib import Path

from vfix.validate.vllm_verdict import VllmPolicy, judge_smoke, token_agreement
from vfix.vocabulary import Layer, Verdict

REAL_LOG = Path(__file__).resolve().parent.parent / "data" / "vllm"


def completion(tokens: list[int], prompt_len: int = 5) -> dict:
    return {"prompt_len": prompt_len, "status": 200, "seconds": 0.01, "token_ids": tokens}


def healthy_run(tp: int = 2, tokens: list[int] | None = None) -> dict:
    tokens = tokens or [5, 6, 7, 8]
    return {
        "tp": tp, "ready": True, "ready_s": 60.0, "log": f"/tmp/vllm-serve-tp{tp}.log",
        "ranks": {"world_size": tp, "ranks": list(range(tp)), "nccl_init_ranks": []},
        "models_status": 200, "models": ["/models/tiny"],
        "completion": completion(tokens), "repeat": completion(tokens),
        "ramp": [completion(tokens, n) for n in (63, 126, 252, 504)],
        "past_limit": {"prompt_len": 513, "status": 400}, "health_after_ramp": 200,
        "memory_before_mib": {"0": 0, "1": 0},
        "memory_loaded_mib": {"0": 20000, "1": 20100} if tp == 2 else {"0": 29000, "1": 0},
        "teardown": {"signal": "SIGTERM", "leftover_pids": [], "remaining_pids": [],
                     "memory_after_mib": {"0": 0, "1": 0}},
    }


def doc(*runs: dict) -> dict:
    return {"tool": "vfix-vllm-smoke", "tp": runs[0]["tp"], "max_model_len": 512,
            "runs": list(runs)}


def checks(node) -> list[str]:
    return [f.check for f in node.findings]


def test_healthy_tp2_with_tp1_comparison_passes_with_numbers():
    node = judge_smoke("n1", doc(healthy_run(2), healthy_run(1)), diagnoser=None)
    assert node.verdict is Verdict.PASS, node.findings
    assert node.metrics["tp1_token_agreement"] == 1.0
    assert node.metrics["tp2.memory_balance"] == 1.005
    assert node.metrics["tp2.ramp_max_prompt"] == 504


def test_tp_disagreement_fails_in_the_partitioning_layer():
    node = judge_smoke("n1", doc(healthy_run(2), healthy_run(1, [5, 6, 9, 9])), diagnoser=None)
    assert node.verdict is Verdict.FAIL
    [finding] = node.findings
    assert finding.check == "vllm-smoke[tp-agreement]" and finding.layer is Layer.PARTITIONING
    assert token_agreement(healthy_run(2), healthy_run(1, [5, 6, 9, 9])) == (10, 20)


def test_each_failure_mode():
    cases = {
        "vllm-smoke[ranks]": lambda r: r["ranks"].update(ranks=[0]),
        "vllm-smoke[models]": lambda r: r.update(models=[]),
        "vllm-smoke[completion]": lambda r: r.update(completion={"status": 500, "error": "x"}),
        "vllm-smoke[nondeterministic]": lambda r: r.update(repeat=completion([1, 1, 1, 1])),
        "vllm-smoke[ramp]": lambda r: r["ramp"].append({"prompt_len": 504, "status": 500}),
        "vllm-smoke[past-limit]": lambda r: r.update(past_limit={"status": 200}),
        "vllm-smoke[health-after-ramp]": lambda r: r.update(health_after_ramp=0),
        "vllm-smoke[memory-balance]": lambda r: r["memory_loaded_mib"].update({"1": 30000}),
        "vllm-smoke[teardown]": lambda r: r["teardown"].update(remaining_pids=[42]),
        "vllm-smoke[teardown-sigkill]": lambda r: r["teardown"].update(leftover_pids=[42]),
        "vllm-smoke[teardown-memory]": lambda r: r["teardown"].update(
            memory_after_mib={"0": 20000, "1": 0}),
    }
    for check, breaks in cases.items():
        run = copy.deepcopy(healthy_run(2))
        breaks(run)
        node = judge_smoke("n1", doc(run), policy=VllmPolicy(), diagnoser=None)
        assert checks(node) == [check], (check, checks(node))
        warning_only = check in {"vllm-smoke[nondeterministic]", "vllm-smoke[past-limit]",
                                 "vllm-smoke[memory-balance]", "vllm-smoke[teardown-sigkill]"}
        assert node.verdict is (Verdict.WARN if warning_only else Verdict.FAIL), check


def test_not_ready_takes_layer_and_cause_from_the_diagnosis_of_the_real_log():
    run = {"tp": 1, "ready": False, "reason": "server exited with 1", "exit_code": 1,
           "log": "/remote/serve-fail-missing-flashinfer.log", "ranks": {}, "teardown": {}}
    node = judge_smoke("n1", doc(run), log_dir=REAL_LOG)
    [finding] = node.findings
    assert finding.check == "vllm-smoke[not-ready]" and node.verdict is Verdict.FAIL
    assert finding.layer is Layer.VERSIONS
    assert "No module named 'flashinfer'" in finding.message


def test_tp_gt1_without_comparison_says_so():
    node = judge_smoke("n1", doc(healthy_run(2)), diagnoser=None)
    assert any("TP=1 comparison not run" in note for note in node.notes)
