from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite, gpu_label
from vfix.findings import Finding, Remediation
from vfix.vocabulary import Layer, Severity


class ComputeMode(Check):
    """Every GPU's compute mode lets vLLM's processes share it (Default)."""

    id = "compute-mode"
    layer = Layer.VISIBILITY
    severity = Severity.ERROR
    tags = ("gpu",)
    remediation = Remediation.by_hand("Run `nvidia-smi -i <gpu> -c DEFAULT` as root on the node.")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        matcher = subject.settings.matcher("mode")
        for gpu in subject.facts.gpus:
            if gpu.compute_mode is None or matcher.test(gpu.compute_mode):
                continue
            yield self.finding(
                subject,
                f"{gpu_label(gpu)} compute mode is {gpu.compute_mode}",
                sub="mismatch",
                expected=matcher.describe(),
                observed=gpu.compute_mode,
                evidence=[
                    cite(
                        gpu.sources,
                        "compute_mode",
                        "nvidia-smi -q",
                        f"Compute Mode : {gpu.compute_mode}",
                    )
                ],
            )
