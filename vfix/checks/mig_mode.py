from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite, gpu_label
from vfix.facts.model import Gpu
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


def mig_evidence(gpu: Gpu) -> list[Evidence]:
    return [
        cite(
            gpu.sources,
            ("mig_mode_current", "mig_mode_pending"),
            "nvidia-smi -q",
            f"MIG Mode Current: {gpu.mig_mode_current} Pending: {gpu.mig_mode_pending}",
        )
    ]


class MigMode(Check):
    """MIG mode on every GPU is what the policy expects, with no change pending a reset."""

    id = "mig-mode"
    layer = Layer.VISIBILITY
    severity = Severity.ERROR
    tags = ("gpu", "mig")
    remediation = Remediation.by_hand(
        "Stop the GPU's users, then `nvidia-smi -i <gpu> -mig 0` (or 1 where MIG is wanted) and "
        "reset the GPU (`nvidia-smi -i <gpu> -r`) or reboot so the pending mode takes effect."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        matcher = subject.settings.matcher("mode")
        for gpu in subject.facts.gpus:
            current, pending = gpu.mig_mode_current, gpu.mig_mode_pending
            if current is None:
                continue  # MIG not supported on this GPU
            if not matcher.test(current):
                yield self.finding(
                    subject,
                    f"{gpu_label(gpu)} MIG mode is {current}",
                    sub="mismatch",
                    expected=matcher.describe(),
                    observed=current,
                    evidence=mig_evidence(gpu),
                )
            elif pending is not None and pending.lower() != current.lower():
                yield self.finding(
                    subject,
                    f"{gpu_label(gpu)} MIG mode {pending} is pending a GPU reset",
                    sub="pending",
                    expected=current,
                    observed=f"pending {pending}",
                    evidence=mig_evidence(gpu),
                    severity=Severity.WARNING,
                )
