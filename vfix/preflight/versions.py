"""Versions: does the driver run torch's CUDA runtime, is torch the one vLLM pins, do nodes agree.

The two data tables live in `vfix/preflight/data/` with their sources: `vllm_torch.yaml`
(vLLM release -> pinned torch) and `cuda_driver.yaml` (CUDA runtime -> minimum driver).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml
from packaging.version import InvalidVersion, Version

from vfix.facts.model import HostFacts
from vfix.preflight.result import CheckResult, Skipped
from vfix.vocabulary import Layer, Verdict

_TORCH_CUDA = re.compile(r"\+cu(\d+)(\d)$")  # "2.11.0+cu130" -> 13.0


@cache
def _table(name: str) -> dict[str, Any]:
    text = resources.files("vfix.preflight").joinpath("data", name).read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _version(text: str | None) -> Version | None:
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


@dataclass(frozen=True)
class TorchPin:
    torch: str
    how: str  # "exact" | "inferred from neighbours"


def pinned_torch(vllm_version: str) -> TorchPin | None:
    """The torch version `vllm_version` pins, from the table (None: not known)."""
    wanted = _version(vllm_version)
    if wanted is None:
        return None
    release = Version(wanted.base_version)
    rows = sorted(((Version(r["vllm"]), str(r["torch"])) for r in _table("vllm_torch.yaml")
                   ["pins"]), key=lambda row: row[0])
    for version, torch in rows:
        if version == release:
            return TorchPin(torch=torch, how="exact")
    below = [row for row in rows if row[0] < release]
    above = [row for row in rows if row[0] > release]
    if below and above and below[-1][1] == above[0][1]:
        return TorchPin(torch=below[-1][1], how="inferred from neighbours")
    return None


def torch_cuda_runtime(torch_version: str | None) -> str | None:
    """CUDA runtime a torch wheel was built for, from its local version (+cu130 -> 13.0)."""
    match = _TORCH_CUDA.search(torch_version or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


def min_driver(cuda: str) -> tuple[str | None, str | None]:
    """(toolkit minimum driver, minor-version-compatibility floor) for a CUDA runtime."""
    table = _table("cuda_driver.yaml")
    wanted = _version(cuda)
    if wanted is None:
        return None, None
    rows = sorted(((Version(r["cuda"]), str(r["driver"])) for r in table["toolkits"]),
                  key=lambda row: row[0])
    exact = [driver for version, driver in rows if version == wanted]
    same_major_below = [driver for version, driver in rows
                        if version.major == wanted.major and version <= wanted]
    toolkit = exact[0] if exact else (same_major_below[-1] if same_major_below else None)
    floor = table["minor_compat"].get(str(wanted.major))
    return toolkit, floor


def _result(check: str, verdict: Verdict, reason: str, source: str, host: str) -> CheckResult:
    return CheckResult(check=check, layer=Layer.VERSIONS, verdict=verdict, reason=reason,
                       source=source, host=host)


def check_torch_pin(facts: HostFacts) -> CheckResult | Skipped:
    vllm = facts.versions.package("vllm")
    torch = facts.versions.package("torch")
    if not vllm or not torch:
        missing = "vllm" if not vllm else "torch"
        return Skipped("torch-pin", f"{facts.host}: {missing} not installed in the probed "
                                    f"interpreter")
    pin = pinned_torch(vllm)
    source = f"vfix/preflight/data/vllm_torch.yaml ({_table('vllm_torch.yaml')['source']})"
    if pin is None:
        return _result("torch-pin", Verdict.WARN,
                       f"vLLM {vllm} is not in the torch pin table; cannot confirm torch {torch}",
                       source, facts.host)
    installed = _version(torch)
    if installed is None or installed.base_version != Version(pin.torch).base_version:
        return _result("torch-pin", Verdict.FAIL,
                       f"vLLM {vllm} pins torch=={pin.torch} ({pin.how}) but torch {torch} is "
                       f"installed: its compiled ops will not load", source, facts.host)
    return _result("torch-pin", Verdict.PASS,
                   f"vLLM {vllm} with torch {torch} (pin {pin.torch}, {pin.how})", source,
                   facts.host)


def check_driver(facts: HostFacts) -> CheckResult | Skipped:
    torch = facts.versions.package("torch")
    runtime = torch_cuda_runtime(torch)
    origin = f"torch {torch}"
    if runtime is None:
        runtimes = [r for r in facts.versions.cuda_runtimes if r.version]
        if runtimes:
            runtime, origin = runtimes[0].version, runtimes[0].path
    driver = facts.versions.nvml_driver or facts.versions.kernel_module
    if runtime is not None and not driver and facts.versions.cuda_driver:
        return _by_driver_cuda_version(facts, runtime, origin, facts.versions.cuda_driver)
    if runtime is None or not driver:
        what = "a CUDA runtime version" if runtime is None else "the driver version"
        return Skipped("driver-cuda", f"{facts.host}: facts lack {what}")
    toolkit, floor = min_driver(runtime)
    source = "vfix/preflight/data/cuda_driver.yaml (NVIDIA CUDA Toolkit Release Notes)"
    have = _version(driver)
    if toolkit is None or have is None:
        return _result("driver-cuda", Verdict.WARN,
                       f"CUDA {runtime} ({origin}) is not in the driver table; driver {driver} "
                       f"unverified", source, facts.host)
    if have >= Version(toolkit):
        return _result("driver-cuda", Verdict.PASS,
                       f"driver {driver} >= {toolkit}, the minimum for CUDA {runtime} ({origin})",
                       source, facts.host)
    if floor and have >= Version(floor):
        return _result("driver-cuda", Verdict.WARN,
                       f"driver {driver} < {toolkit} for CUDA {runtime} ({origin}); runs only "
                       f"under minor-version compatibility (no PTX JIT of newer kernels)",
                       source, facts.host)
    return _result("driver-cuda", Verdict.FAIL,
                   f"driver {driver} is too old for CUDA {runtime} ({origin}): needs >= "
                   f"{toolkit} (CUDA error: driver version is insufficient)", source, facts.host)


def _by_driver_cuda_version(facts: HostFacts, runtime: str, origin: str,
                            supported: str) -> CheckResult:
    """Only nvidia-smi's "CUDA Version" (the newest runtime the driver supports) is known."""
    source = "nvidia-smi CUDA Version (facts.versions.cuda_driver)"
    need, have = _version(runtime), _version(supported)
    if need is None or have is None or need <= have:
        return _result("driver-cuda", Verdict.PASS,
                       f"driver supports CUDA {supported} >= {runtime} ({origin})", source,
                       facts.host)
    verdict = Verdict.WARN if need.major == have.major else Verdict.FAIL
    return _result("driver-cuda", verdict,
                   f"driver supports CUDA {supported} < {runtime} ({origin})"
                   + ("; minor-version compatibility only" if verdict is Verdict.WARN else ""),
                   source, facts.host)


def check_drift(hosts: list[HostFacts]) -> list[CheckResult]:
    """Across nodes of one deployment, vLLM/torch must match; the driver should."""
    if len(hosts) < 2:
        return []
    results = []
    for name, verdict in (("vllm", Verdict.FAIL), ("torch", Verdict.FAIL),
                          ("driver", Verdict.WARN)):
        seen = {h.host: (h.versions.nvml_driver if name == "driver"
                         else h.versions.package(name)) for h in hosts}
        values = {v for v in seen.values() if v}
        if len(values) > 1:
            detail = ", ".join(f"{host}={value}" for host, value in sorted(seen.items()))
            results.append(CheckResult(
                check=f"drift-{name}", layer=Layer.VERSIONS, verdict=verdict,
                reason=f"{name} differs across nodes: {detail}",
                source="one vLLM deployment runs one build on every rank"))
    return results
