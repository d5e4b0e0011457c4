from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, cite
from vfix.findings import Finding, Remediation
from vfix.policy.matchers import Matcher
from vfix.vocabulary import Layer, Severity


def target_value(matcher: Matcher) -> str:
    """The value to set to satisfy a matcher: the bound, the expected value or the first choice."""
    if matcher.op == "in":
        return str(matcher.expected[0])
    return str(matcher.expected)


class Sysctl(Check):
    """Kernel settings (pid_max, overcommit, ...) meet the policy."""

    id = "sysctl"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("kernel",)
    remediation = Remediation(role="sysctl")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        observed = subject.facts.system.sysctl
        sources = subject.facts.system.sources
        for key, matcher in sorted(subject.settings.table("settings").items()):
            value = observed.get(key)
            if value is None:
                yield self.finding(
                    subject,
                    f"{key} could not be read",
                    sub="missing",
                    expected=matcher.describe(),
                    observed="not readable",
                    evidence=[cite(sources, f"sysctl.{key}", f"/proc/sys/{key.replace('.', '/')}")],
                    severity=Severity.INFO,
                    remediation=Remediation.by_hand(
                        f"Read `sysctl {key}` on the node; the probe could not."
                    ),
                )
                continue
            if matcher.test(value):
                continue
            yield self.finding(
                subject,
                f"{key} is {value}, policy wants {matcher.describe()}"
                + (f": {matcher.reason}" if matcher.reason else ""),
                sub="mismatch",
                expected=matcher.describe(),
                observed=value,
                evidence=[cite(sources, f"sysctl.{key}", f"sysctl {key}", f"{key} = {value}")],
                remediation=Remediation(
                    role="sysctl", vars={"sysctl_settings": {key: target_value(matcher)}}
                ),
            )
