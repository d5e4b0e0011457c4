from __future__ import annotations

from collections.abc import Iterable

from vfix.audit.drift import DRIFT_KEYS
from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

VERSION_KEYS = {key.name: key for key in DRIFT_KEYS if key.kind == "versions"}


class VersionPolicy(Check):
    """Installed versions (driver, NCCL, torch, vLLM, kernel, ...) meet the policy constraints."""

    id = "version-policy"
    layer = Layer.VERSIONS
    severity = Severity.WARNING
    tags = ("versions", "policy")
    remediation = Remediation.by_hand(
        "Upgrade (or pin) the component to a version the policy allows: the driver through the "
        "distribution's packages, NCCL/torch/vLLM in the serving environment (the `versions` "
        "role pins them once the group's vars name the packages)."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        for name, matcher in sorted(subject.settings.table("require").items()):
            key = VERSION_KEYS.get(name)
            observed = key.extract(subject.facts) if key else None
            if key is None or observed is None or matcher.test(observed):
                continue  # unknown key or not observed (e.g. no vLLM on this node)
            yield self.finding(
                subject,
                f"{name} {observed} does not satisfy {matcher.describe()}"
                + (f": {matcher.reason}" if matcher.reason else ""),
                sub=name,
                expected=matcher.describe(),
                observed=observed,
                evidence=[Evidence(source=key.source, lines=[f"{name}: {observed}"])],
            )
