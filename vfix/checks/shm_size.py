from __future__ import annotations

import math
from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite
from vfix.findings import Finding, Remediation
from vfix.policy.matchers import parse_quantity
from vfix.vocabulary import Layer, Severity


def gib(size: float) -> str:
    return f"{size / 1024**3:.1f} GiB" if size >= 1024**3 else f"{size / 1024**2:.0f} MiB"


class ShmSize(Check):
    """/dev/shm is large enough for NCCL's shared-memory transport and vLLM's TP broadcast."""

    id = "shm-size"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("shm",)
    remediation = Remediation(role="shm")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        shm = subject.facts.system.shm
        matcher = subject.settings.matcher("size", "ge")
        if shm.size_bytes is None or matcher.expected is None or matcher.test(shm.size_bytes):
            return
        wanted = parse_quantity(matcher.expected)
        yield self.finding(
            subject,
            f"/dev/shm is {gib(shm.size_bytes)}, policy wants {matcher.describe()}",
            sub="small",
            expected=f">= {gib(wanted)}",
            observed=gib(shm.size_bytes),
            evidence=[
                cite(
                    subject.facts.system.sources,
                    "shm",
                    "mount (/dev/shm)",
                    f"/dev/shm size={shm.size_bytes}",
                )
            ],
            remediation=Remediation(
                role="shm", vars={"shm_size": f"{math.ceil(wanted / 1024**3)}G"}
            ),
        )
