from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite, gpu_label
from vfix.findings import Finding, Remediation
from vfix.vocabulary import Layer, Severity


class ClocksLocked(Check):
    """No GPU has its SM clock locked well below its maximum (idle downclocking is fine)."""

    id = "clocks-locked"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("gpu", "clocks")
    remediation = Remediation(role="clocks")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        matcher = subject.settings.matcher("min_fraction_of_max", "ge")
        for gpu in subject.facts.gpus:
            locked, maximum = gpu.clocks_locked_sm_mhz, gpu.clocks_sm_max_mhz
            if locked is None or not maximum or matcher.test(locked / maximum):
                continue
            yield self.finding(
                subject,
                f"{gpu_label(gpu)} SM clock is locked at {locked} MHz of {maximum} MHz "
                f"({locked / maximum:.0%})",
                sub="low",
                expected=f"unlocked, or locked {matcher.describe()} of max",
                observed=f"{locked} MHz",
                evidence=[
                    cite(
                        gpu.sources,
                        ("clocks_locked_sm_mhz", "clocks_sm_max_mhz"),
                        "nvidia-smi -q -d CLOCK",
                        f"locked SM clock {locked} MHz, max {maximum} MHz",
                    )
                ],
                remediation=Remediation(
                    role="clocks", vars={"clocks_state": "default", "clocks_gpus": [gpu.index]}
                ),
            )
