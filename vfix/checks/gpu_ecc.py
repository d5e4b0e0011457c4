from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from vfix.checks.base import Check, Subject, cite, gpu_label
from vfix.facts.model import Gpu
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

RMA = Remediation.by_hand(
    "Row remapping failed: the GPU's memory cannot repair itself any more. Drain the node, run "
    "the vendor diagnostics (dcgmi diag -r 3 / field diag) and RMA the GPU."
)


def ecc_evidence(gpu: Gpu) -> list[Evidence]:
    return [
        cite(
            gpu.sources,
            ("ecc_uncorrected_volatile", "remapped_rows_pending", "remapped_rows_failure"),
            "nvidia-smi -q -d ECC,ROW_REMAPPER",
            f"uncorrected volatile {gpu.ecc_uncorrected_volatile}, "
            f"remap pending {gpu.remapped_rows_pending}, "
            f"remap failure {gpu.remapped_rows_failure}",
        )
    ]


class GpuEcc(Check):
    """No GPU has uncorrected ECC errors or memory repairs waiting for a reset."""

    id = "gpu-ecc"
    layer = Layer.RESOURCES
    severity = Severity.ERROR
    tags = ("gpu", "ecc", "health")
    remediation = Remediation(role="gpu_recovery")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        for gpu in subject.facts.gpus:
            label = gpu_label(gpu)
            found = partial(self.finding, subject, evidence=ecc_evidence(gpu))
            reset = Remediation(
                role="gpu_recovery",
                vars={"gpu_recovery_action": "reset", "gpu_recovery_gpus": [gpu.index]},
            )
            if gpu.remapped_rows_failure:
                yield found(f"{label}: row remapping failed (memory cannot be repaired)",
                            sub="remap-failure", expected="no remapping failure",
                            observed="Remapping Failure Occurred: Yes", remediation=RMA)
            if gpu.ecc_uncorrected_volatile:
                yield found(f"{label}: {gpu.ecc_uncorrected_volatile} uncorrected ECC error(s) "
                            "since the last reset: the processes on it got corrupt data "
                            "(Xid 48/63/94)",
                            sub="uncorrected", expected="0",
                            observed=gpu.ecc_uncorrected_volatile, remediation=reset)
            if gpu.remapped_rows_pending or gpu.retired_pages_pending:
                yield found(f"{label}: a memory row remap / page retirement waits for a GPU reset",
                            sub="repair-pending", expected="no pending repair", observed="pending",
                            remediation=reset, severity=Severity.WARNING)
