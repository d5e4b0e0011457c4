"""Findings: what a check concluded about one host, with the evidence it stands on.

A `Finding` is frozen data. `check` is the check id with an optional sub-id in brackets
(`sysctl[mismatch]`); `evidence` cites the command or file and the raw lines read from it;
`remediation` names the Ansible role (and its vars) that fixes it, or manual steps where no
safe automatic fix exists. `node_verdict` turns a host's findings into PASS / WARN / FAIL.

Remediation role names: shm, iommu_grub, sysctl, limits, gpu_processes, persistence,
nccl_env, versions, clocks, gpu_recovery; `MANUAL` ("manual") where no role applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from vfix.vocabulary import Layer, Severity, Verdict

MANUAL = "manual"

_CHECK_ID = re.compile(r"^(?P<base>[a-z0-9][a-z0-9-]*)(?:\[(?P<sub>[a-z0-9][a-z0-9-_]*)\])?$")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Evidence(_Frozen):
    """Raw lines and where they came from: a command (`nvidia-smi -q -x`) or a file path."""

    source: str
    lines: list[str] = Field(default_factory=list)


class Remediation(_Frozen):
    """How to fix it: an Ansible role with its variables, or `manual` with steps for a person."""

    role: str = MANUAL
    vars: dict[str, object] = Field(default_factory=dict)
    manual: str | None = None  # steps in prose; required when role is "manual"

    @property
    def is_manual(self) -> bool:
        return self.role == MANUAL

    @classmethod
    def by_hand(cls, steps: str) -> Remediation:
        return cls(role=MANUAL, manual=steps)


class Finding(_Frozen):
    check: str  # "sysctl[mismatch]"
    host: str
    layer: Layer
    severity: Severity
    message: str  # one line for the operator
    expected: str | None = None
    observed: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    remediation: Remediation = Field(default_factory=Remediation)

    def model_post_init(self, __context: object) -> None:
        if not _CHECK_ID.match(self.check):
            raise ValueError(f"check id {self.check!r} is not 'name' or 'name[sub]'")

    @property
    def check_id(self) -> str:
        """The check's id without its sub-id: `sysctl[mismatch]` -> `sysctl`."""
        return self.check.split("[", 1)[0]

    @property
    def sub_id(self) -> str | None:
        match = _CHECK_ID.match(self.check)
        return match.group("sub") if match else None


def node_verdict(findings: Iterable[Finding]) -> Verdict:
    """FAIL on any error, WARN on any warning, PASS otherwise (info findings do not count)."""
    severities = {finding.severity for finding in findings}
    if Severity.ERROR in severities:
        return Verdict.FAIL
    if Severity.WARNING in severities:
        return Verdict.WARN
    return Verdict.PASS


def verdicts_by_host(hosts: Iterable[str], findings: Iterable[Finding]) -> dict[str, Verdict]:
    """Verdict for every host named, including hosts with no findings (PASS)."""
    per_host: dict[str, list[Finding]] = {host: [] for host in hosts}
    for finding in findings:
        per_host.setdefault(finding.host, []).append(finding)
    return {host: node_verdict(items) for host, items in per_host.items()}
