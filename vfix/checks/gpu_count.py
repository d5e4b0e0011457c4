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
        versions = subject.facts.versions
        if matcher.expected is None and not gpus and not versions.kernel_module:
            yield self.finding(
                subject,
                "no NVIDIA GPU or driver on this host: GPU checks had nothing to check",
                sub="none",
                expected="GPUs, if this is a GPU node",
                observed=0,
                severity=Severity.INFO,
                remediation=Remediation.by_hand(
                    "Nothing to fix on a CPU-only host. On a GPU node, install the NVIDIA driver "
                    "and check that the GPUs are visible (`nvidia-smi -L`)."
                ),
                evidence=[
                    Evidence(source=f"probe section {e.section}", lines=[e.reason])
                    for e in subject.facts.errors
                    if e.section.startswith("gpu")
                ]
                or [Evidence(source=NVML_LIST, lines=["(no GPU listed)"])],
            )
            return
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
