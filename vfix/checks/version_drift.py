from __future__ import annotations

from collections.abc import Iterable, Sequence

from vfix.audit.drift import keys_of_kind
from vfix.checks._drift import drift_findings
from vfix.checks.base import Check, Subject
from vfix.findings import Finding, Remediation
from vfix.vocabulary import Layer, Severity


class VersionDrift(Check):
    """Within an inventory group, driver/CUDA/NCCL/torch/vLLM/GPU model/VBIOS match the majority."""

    id = "version-drift"
    layer = Layer.VERSIONS
    severity = Severity.WARNING
    tags = ("drift", "fleet")
    remediation = Remediation.by_hand(
        "Bring the outlier to the group's majority version (pin the driver, NCCL and Python "
        "packages in the group's vars and roll them out with `vfix fix --only version-drift`); "
        "ranks of one job must run matching NCCL/torch/vLLM."
    )

    def check_group(self, group: str, members: Sequence[Subject]) -> Iterable[Finding]:
        return drift_findings(self, group, members, keys_of_kind("versions"))
