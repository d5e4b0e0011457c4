"""Per-host changes between two runs: facts that changed, findings that appeared or went away.

Volatile readings (temperatures, current clocks and power, memory in use, process lists, raw
evidence text, collection time) are left out: they change on every gather and say nothing
about the node's configuration.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vfix.audit.engine import AuditResult
from vfix.facts.model import HostFacts

VOLATILE = re.compile(
    r"(^collected_at$|^probe_version$|\.sources(\.|$)|^processes\.|^errors\.|\.raw$|dmesg_lines"
    r"|\.temperature_c$|\.power_draw_w$|\.clocks_sm_mhz$|\.clocks_mem_mhz$|\.memory_used_mib$"
    r"|\.throttle_reasons|\.used_bytes$|\.evidence(\.|$))"
)


@dataclass(frozen=True)
class Change:
    key: str
    before: Any
    after: Any


@dataclass(frozen=True)
class HostDiff:
    host: str
    status: str  # "changed" | "unchanged" | "added" | "removed"
    changes: list[Change] = field(default_factory=list)
    findings_new: list[str] = field(default_factory=list)
    findings_resolved: list[str] = field(default_factory=list)
    verdict_before: str | None = None
    verdict_after: str | None = None


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted keys -> scalar values; list items keyed by index (GPUs by their index)."""
    if isinstance(value, Mapping):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
        flat = {}
        for position, item in enumerate(value):
            name = item.get("index", item.get("name", item.get("path", position)))
            flat.update(flatten(item, f"{prefix}[{name}]"))
        return flat
    return {prefix: value}


def comparable(facts: HostFacts) -> dict[str, Any]:
    flat = flatten(facts.model_dump(mode="json"))
    return {key: value for key, value in flat.items() if not VOLATILE.search(key)}


def _finding_keys(result: AuditResult, host: str) -> set[str]:
    return {f"{f.check}: {f.message}" for f in result.findings_for(host)}


def diff_runs(
    before: list[HostFacts],
    after: list[HostFacts],
    audit_before: AuditResult,
    audit_after: AuditResult,
) -> list[HostDiff]:
    old = {facts.host: facts for facts in before}
    new = {facts.host: facts for facts in after}
    diffs = []
    for host in sorted(old.keys() | new.keys()):
        verdict_before = audit_before.verdicts.get(host)
        verdict_after = audit_after.verdicts.get(host)
        findings_old = _finding_keys(audit_before, host)
        findings_new = _finding_keys(audit_after, host)
        if host not in new or host not in old:
            diffs.append(
                HostDiff(
                    host=host,
                    status="removed" if host not in new else "added",
                    findings_new=sorted(findings_new - findings_old),
                    findings_resolved=sorted(findings_old - findings_new),
                    verdict_before=verdict_before.value if verdict_before else None,
                    verdict_after=verdict_after.value if verdict_after else None,
                )
            )
            continue
        a, b = comparable(old[host]), comparable(new[host])
        changes = [
            Change(key, a.get(key), b.get(key))
            for key in sorted(a.keys() | b.keys())
            if a.get(key) != b.get(key)
        ]
        appeared = sorted(findings_new - findings_old)
        resolved = sorted(findings_old - findings_new)
        changed = bool(changes or appeared or resolved)
        diffs.append(
            HostDiff(
                host=host,
                status="changed" if changed else "unchanged",
                changes=changes,
                findings_new=appeared,
                findings_resolved=resolved,
                verdict_before=verdict_before.value if verdict_before else None,
                verdict_after=verdict_after.value if verdict_after else None,
            )
        )
    return diffs
