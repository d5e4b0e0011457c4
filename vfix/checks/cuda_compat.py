from __future__ import annotations

import re
from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite
from vfix.findings import Finding, Remediation
from vfix.vocabulary import Layer, Severity

_CU_TAG = re.compile(r"\+cu(\d+)(\d)\b")  # "2.11.0+cu130" -> 13.0, "+cu128" -> 12.8
_MAJOR_MINOR = re.compile(r"^(\d+)\.(\d+)")


def cuda_of_build(version: str | None) -> tuple[int, int] | None:
    """The CUDA a torch/vLLM wheel was built for, from its local tag: '+cu130' -> (13, 0)."""
    match = _CU_TAG.search(version or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def major_minor(version: str | None) -> tuple[int, int] | None:
    match = _MAJOR_MINOR.match(version or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def _text(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


class CudaCompat(Check):
    """The driver supports the CUDA that the installed torch/vLLM were built for."""

    id = "cuda-compat"
    layer = Layer.VERSIONS
    severity = Severity.ERROR
    tags = ("driver", "cuda", "torch", "vllm")
    remediation = Remediation.by_hand(
        "Either upgrade the NVIDIA driver to a branch that supports this CUDA (NVIDIA's CUDA "
        "compatibility table), or install the torch/vLLM build for a CUDA the driver supports "
        "(e.g. the +cu126 wheels)."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        versions = subject.facts.versions
        driver = major_minor(versions.cuda_driver)
        if driver is None:
            return
        for package in ("torch", "vllm"):
            built_for = cuda_of_build(versions.package(package))
            if built_for is None or built_for <= driver:
                continue
            evidence = [
                cite(
                    versions.sources, "cuda_driver", "nvidia-smi", f"CUDA Version: {_text(driver)}"
                ),
                cite(versions.sources, package, "pip", f"{package} {versions.package(package)}"),
            ]
            if built_for[0] > driver[0]:
                yield self.finding(
                    subject,
                    f"{package} is built for CUDA {_text(built_for)} but the driver supports only "
                    f"CUDA {_text(driver)}: CUDA fails to initialise (cudaErrorInsufficientDriver)",
                    sub="too-old",
                    expected=f"driver CUDA >= {_text(built_for)}",
                    observed=_text(driver),
                    evidence=evidence,
                )
            else:
                yield self.finding(
                    subject,
                    f"{package} is built for CUDA {_text(built_for)}, the driver supports "
                    f"{_text(driver)}: runs only through minor-version compatibility (no PTX JIT)",
                    sub="minor-compat",
                    expected=f"driver CUDA >= {_text(built_for)}",
                    observed=_text(driver),
                    evidence=evidence,
                    severity=Severity.WARNING,
                )
