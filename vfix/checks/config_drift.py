from __future__ import annotations

from collections.abc import Iterable, Sequence

from vfix.audit.drift import keys_of_kind
from vfix.checks._drift import drift_findings
from vfix.checks.base import Check, Subject
from vfix.findings import Finding, Remediation
from vfix.vocabulary import Layer, Severity


class ConfigDrift(Check):
    """Within an inventory group, GPU and system settings match the group's majority."""

    id = "config-drift"
    layer = Layer.RESOURCES  # each finding carries the layer of the setting that drifted
    severity = Severity.WARNING
    tags = ("drift", "fleet")
    remediation = Remediation.by_hand(
        "Make the outlier match its group: the matching check's fix (shm, sysctl, limits, "
        "persistence, nccl_env roles) applies the group's value; or record the intended value "
        "for the group in the policy so the difference is deliberate and checked."
    )

    def check_group(self, group: str, members: Sequence[Subject]) -> Iterable[Finding]:
        return drift_findings(
            self, group, members, keys_of_kind("config", (m.facts for m in members))
        )
