"""Shared by the drift checks: one finding per outlier host per drifting key of a group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vfix.audit.drift import DriftKey, split
from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding


def drift_findings(
    check: Check, group: str, members: Sequence[Subject], keys: Iterable[DriftKey]
) -> Iterable[Finding]:
    if len(members) < 2:
        return
    by_host = {member.host: member for member in members}
    ignored = set(members[0].settings.value("ignore") or [])
    for key in keys:
        if key.name in ignored:
            continue
        result = split(key.name, {m.host: key.extract(m.facts) for m in members})
        if result is None:
            continue
        outliers = result.outliers
        lines = [f"{host}: {value}" for host, value in sorted(result.values.items())]
        for host, value in sorted(outliers.items()):
            others = ", ".join(sorted(h for h in outliers if h != host)) or "none"
            yield check.finding(
                by_host[host],
                f"{key.name} is {value} here; group {group} majority is "
                f"{result.describe_majority()}; other outliers: {others}",
                sub=key.name.replace(":", "-").replace(".", "-").replace("_", "-").lower(),
                expected=result.majority if result.majority is not None else "a group majority",
                observed=value,
                evidence=[Evidence(source=f"{key.source}, group {group}", lines=lines)],
                layer=key.layer,
            )
