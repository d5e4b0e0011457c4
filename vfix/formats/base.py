"""The formatter interface and the summary numbers every format shows."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, Protocol

from vfix.audit.engine import AuditResult
from vfix.vocabulary import Layer, Severity, Verdict


class Formatter(Protocol):
    media_type: ClassVar[str]

    def render(self, result: AuditResult) -> str: ...


def summary(result: AuditResult) -> dict[str, int]:
    """Hosts per verdict and findings per severity."""
    verdicts = Counter(v.value for v in result.verdicts.values())
    severities = Counter(f.severity.value for f in result.findings)
    counts = {f"hosts_{v.value.lower()}": verdicts.get(v.value, 0) for v in Verdict}
    counts.update({f"findings_{s.value}": severities.get(s.value, 0) for s in Severity})
    counts["hosts_skipped"] = len(result.skipped)
    return counts


def layers_in_order() -> list[Layer]:
    return sorted(Layer, key=lambda layer: layer.triage_rank)
