from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite, gpu_label
from vfix.findings import Finding, Remediation
from vfix.vocabulary import Layer, Severity


class PersistenceMode(Check):
    """Persistence mode is on, so the driver stays initialised between jobs."""

    id = "persistence-mode"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("gpu", "driver")
    remediation = Remediation(role="persistence")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        matcher = subject.settings.matcher("persistence")
        off = [
            g
            for g in subject.facts.gpus
            if g.persistence_mode is not None and not matcher.test(g.persistence_mode)
        ]
        if not off:
            return
        yield self.finding(
            subject,
            "persistence mode is off on " + ", ".join(gpu_label(g) for g in off),
            sub="disabled",
            expected="Enabled",
            observed="Disabled",
            evidence=[
                cite(
                    g.sources,
                    "persistence_mode",
                    "nvidia-smi -q",
                    f"GPU {g.index} Persistence Mode : Disabled",
                )
                for g in off
            ],
        )
