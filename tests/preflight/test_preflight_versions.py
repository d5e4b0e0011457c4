"""Driver vs CUDA runtime and vLLM's torch pin, on the real H200 facts and variations of them."""

from __future__ import annotations

from preflight_helpers import h200

from vfix.facts.model import HostFacts, PythonEnv
from vfix.preflight.result import CheckResult, Skipped
from vfix.preflight.versions import (
    check_drift,
    check_driver,
    check_torch_pin,
    min_driver,
    pinned_torch,
    torch_cuda_runtime,
)
from vfix.vocabulary import Verdict


def with_versions(base: HostFacts, host: str = "h200", driver: str | None = None,
                  **packages: str) -> HostFacts:
    python = base.versions.python or PythonEnv(interpreter="python3")
    merged = {**python.packages, **packages}
    versions = base.versions.model_copy(update={
        "python": python.model_copy(update={"packages": merged}),
        **({"nvml_driver": driver} if driver else {})})
    return base.model_copy(update={"host": host, "versions": versions})


def verdict(outcome: CheckResult | Skipped) -> Verdict:
    assert isinstance(outcome, CheckResult), outcome
    return outcome.verdict


def test_tables() -> None:
    assert pinned_torch("0.26.0").torch == "2.11.0"  # type: ignore[union-attr]
    assert pinned_torch("0.29.0").how == "inferred from neighbours"  # type: ignore[union-attr]
    assert pinned_torch("0.33.0") is None  # 2.13 below, 2.14 above: unknown
    assert torch_cuda_runtime("2.11.0+cu130") == "13.0"
    assert torch_cuda_runtime("2.4.0+cu121") == "12.1"
    assert min_driver("12.8") == ("570.26", "525.60.13")


def test_real_h200_driver_runs_torch_cu130() -> None:
    facts = h200()  # torch 2.11.0+cu130, driver 580.159.04
    assert verdict(check_driver(facts)) is Verdict.PASS


def test_old_driver_fails_and_minor_compat_warns() -> None:
    assert verdict(check_driver(with_versions(h200(), driver="570.86.15"))) is Verdict.FAIL
    cu128 = with_versions(h200(), driver="565.57.01", torch="2.7.0+cu128")
    assert verdict(check_driver(cu128)) is Verdict.WARN  # 12.x minor-version compatibility


def test_torch_pin() -> None:
    skipped = check_torch_pin(h200())  # the real node has torch but no vLLM installed
    assert isinstance(skipped, Skipped) and "vllm not installed" in skipped.reason
    good = with_versions(h200(), vllm="0.26.0")
    assert verdict(check_torch_pin(good)) is Verdict.PASS
    bad = with_versions(h200(), vllm="0.28.0")  # pins torch 2.13.0, the node has 2.11.0
    result = check_torch_pin(bad)
    assert verdict(result) is Verdict.FAIL and "2.13.0" in result.reason  # type: ignore[union-attr]


def test_drift_across_nodes() -> None:
    a = with_versions(h200(), host="a", vllm="0.26.0")
    b = with_versions(h200(), host="b", vllm="0.26.0", torch="2.13.0+cu130")
    drift = {r.check: r.verdict for r in check_drift([a, b])}
    assert drift == {"drift-torch": Verdict.FAIL}
    assert check_drift([a, a.model_copy(update={"host": "c"})]) == []


def test_driver_cuda_version_alone_decides_when_the_driver_version_is_missing() -> None:
    base = h200()
    blank = base.versions.model_copy(update={"nvml_driver": None, "kernel_module": None,
                                             "cuda_driver": "12.4"})
    facts = base.model_copy(update={"versions": blank})  # torch is cu130: needs CUDA 13.0
    result = check_driver(facts)
    assert verdict(result) is Verdict.FAIL and "12.4 < 13.0" in result.reason  # type: ignore[union-attr]
