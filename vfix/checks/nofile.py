from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


class Nofile(Check):
    """The open-files limit (soft and hard) is high enough for vLLM, Ray and NCCL."""

    id = "nofile"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("limits",)
    remediation = Remediation(role="limits")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        ulimits = subject.facts.system.ulimits
        # What the limits files configure, next to what the login really got.
        configured = [
            Evidence(source=path, lines=[line for line in lines if "nofile" in line.lower()])
            for path, lines in subject.facts.system.limits_files.items()
            if any("nofile" in line.lower() for line in lines)
        ]
        for which, observed in (("soft", ulimits.nofile_soft), ("hard", ulimits.nofile_hard)):
            matcher = subject.settings.matcher(which, "ge")
            if observed is None or observed < 0 or matcher.test(observed):
                continue  # None/-1: unlimited or not observed
            yield self.finding(
                subject,
                f"nofile {which} limit is {observed}, policy wants {matcher.describe()}",
                sub=which,
                expected=matcher.describe(),
                observed=observed,
                evidence=[
                    cite(
                        subject.facts.system.sources,
                        "nofile",
                        "/proc/self/limits (the probe's login)",
                        f"Max open files ({which}) {observed}",
                    ),
                    *configured,
                ],
                remediation=Remediation(
                    role="limits", vars={f"limits_nofile_{which}": matcher.expected}
                ),
            )
