"""Shared by the drift checks: one finding per outlier host per drifting key of a group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vfix.audit.drift import DriftKey, Split, split
from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding

MAX_HOSTS_SHOWN = 8


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
        result = split(key.name, {m.host: value_of(m, key) for m in members})
        if result is None:
            continue
        outliers = sorted(result.outliers.items())
        evidence = [Evidence(source=f"{key.source}, group {group}", lines=value_lines(result))]
        names = [host for host, _ in outliers]
        for host, value in outliers:
            # the first few other outliers are enough for the message (large groups: O(n) not n^2)
            others = [h for h in names[: MAX_HOSTS_SHOWN + 1] if h != host][:MAX_HOSTS_SHOWN]
            hidden = len(names) - 1 - len(others)
            yield check.finding(
                by_host[host],
                f"{key.name} is {value} here; group {group} majority is "
                f"{result.describe_majority()}; other outliers: {examples(others, hidden)}",
                sub=key.name.replace(":", "-").replace(".", "-").replace("_", "-").lower(),
                expected=result.majority if result.majority is not None else "a group majority",
                observed=value,
                evidence=evidence,
                layer=key.layer,
            )


def value_of(member: Subject, key: DriftKey) -> str | None:
    if key.name not in member.memo:
        member.memo[key.name] = key.extract(member.facts)
    return member.memo[key.name]


def examples(hosts: list[str], hidden: int = 0) -> str:
    """A few host names, and how many more there are."""
    if not hosts:
        return "none"
    hidden += max(0, len(hosts) - MAX_HOSTS_SHOWN)
    more = f" and {hidden} more" if hidden else ""
    return ", ".join(hosts[:MAX_HOSTS_SHOWN]) + more


def value_lines(result: Split) -> list[str]:
    """One line per distinct value: how many hosts hold it and which (a few of them)."""
    holders: dict[str, list[str]] = {}
    for host, value in sorted(result.values.items()):
        holders.setdefault(value, []).append(host)
    ordered = sorted(holders.items(), key=lambda item: -len(item[1]))
    return [f"{value}: {len(hosts)} host(s): {examples(hosts)}" for value, hosts in ordered]
