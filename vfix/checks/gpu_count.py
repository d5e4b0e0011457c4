from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

NVML_LIST = "NVML device list (nvidia-smi -L)"


class GpuCount(Check):
    """The node sees as many GPUs as its group expects (policy `count` or `vfix_gpu_count`)."""

    id = "gpu-count"
    layer = Layer.VISIBILITY
    severity = Severity.ERROR
    tags = ("gpu", "nvml")
    remediation = Remediation.by_hand(
        "Compare `nvidia-smi -L` with `lspci -d 10de:`; check `dmesg` for NVRM/Xid errors; in a "
        "container, check the device request (--gpus, NVIDIA_VISIBLE_DEVICES, "
        "CUDA_VISIBLE_DEVICES)."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        matcher = subject.settings.matcher("count")
        gpus = subject.facts.gpus
        if matcher.expected is None or matcher.test(len(gpus)):
            return
        listed = [f"GPU {g.index}: {g.name} (UUID: {g.uuid})" for g in gpus] or ["(no GPU listed)"]
        yield self.finding(
            subject,
            f"{len(gpus)} GPU(s) visible, expected {matcher.describe()}",
            sub="mismatch",
            expected=matcher.describe(),
            observed=len(gpus),
            evidence=[Evidence(source=NVML_LIST, lines=listed)],
        )
