"""The check interface: one class per file, class-level id/layer/severity/tags/remediation.

A check looks at one host (`check_host`) and/or at the hosts of one inventory group
(`check_group`) and returns findings as data; it never prints and never raises on odd facts
(`None` means "not observed" and is skipped, not flagged). The docstring's first line is the
check's one-line description; `<module>.md` next to it says what goes wrong, what good looks
like and how vfix fixes it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from vfix.facts.model import Gpu, HostFacts, Source
from vfix.findings import Evidence, Finding, Remediation
from vfix.policy.loader import CheckSettings
from vfix.vocabulary import Layer, Severity


@dataclass(frozen=True)
class Subject:
    """One host as a check sees it: its facts and this check's policy for it."""

    facts: HostFacts
    settings: CheckSettings
    # drift values already extracted for this host (a host is in several groups)
    memo: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    @property
    def host(self) -> str:
        return self.facts.host


class Check:
    id: ClassVar[str]
    layer: ClassVar[Layer]
    severity: ClassVar[Severity]
    tags: ClassVar[tuple[str, ...]] = ()
    remediation: ClassVar[Remediation] = Remediation()

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        return ()

    def check_group(self, group: str, members: Sequence[Subject]) -> Iterable[Finding]:
        return ()

    @classmethod
    def description(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def doc_path(cls) -> Path:
        return Path(sys.modules[cls.__module__].__file__ or "").with_suffix(".md")

    def finding(
        self,
        subject: Subject,
        message: str,
        *,
        sub: str | None = None,
        expected: object = None,
        observed: object = None,
        evidence: Sequence[Evidence] = (),
        remediation: Remediation | None = None,
        severity: Severity | None = None,
        layer: Layer | None = None,
    ) -> Finding:
        return Finding(
            check=f"{self.id}[{sub}]" if sub else self.id,
            host=subject.host,
            layer=layer or self.layer,
            severity=subject.settings.severity or severity or self.severity,
            message=message,
            expected=None if expected is None else str(expected),
            observed=None if observed is None else str(observed),
            evidence=list(evidence),
            remediation=remediation or self.remediation,
        )


def cite(
    sources: dict[str, Source], keys: str | tuple[str, ...], origin: str, line: object = None
) -> Evidence:
    """Evidence for a value: the probe's recorded sources (field names) when present, else the
    command/file it is known to come from and the value as read."""
    found = [sources[key] for key in ((keys,) if isinstance(keys, str) else keys) if key in sources]
    if found:
        lines = [raw for source in found for raw in source.raw.splitlines()]
        return Evidence(source=found[0].origin, lines=lines or [str(line)])
    return Evidence(source=origin, lines=[] if line is None else [str(line)])


def gpu_label(gpu: Gpu) -> str:
    return f"GPU{gpu.index}" + (f" ({gpu.pci_bus_id})" if gpu.pci_bus_id else "")
