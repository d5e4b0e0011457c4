"""Run every enabled check over a fleet's facts: host checks per host, group checks per group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from vfix.audit.drift import groups_of
from vfix.checks import Subject, all_checks
from vfix.facts.model import HostFacts
from vfix.findings import Finding, node_verdict
from vfix.policy.loader import CheckSettings, Policy
from vfix.vocabulary import Severity, Verdict


@dataclass(frozen=True)
class SkippedHost:
    """A host with no facts to judge (unreachable or failed during gather), with the reason."""

    host: str
    reason: str


@dataclass(frozen=True)
class AuditResult:
    facts: tuple[HostFacts, ...]
    findings: tuple[Finding, ...]  # triage order: layer, then host, then check
    skipped: tuple[SkippedHost, ...] = ()
    policy_source: str = "default"
    verdicts: dict[str, Verdict] = field(default_factory=dict)

    @property
    def hosts(self) -> list[str]:
        return [facts.host for facts in self.facts]

    @cached_property
    def by_host(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {host: [] for host in self.verdicts}
        for finding in self.findings:
            grouped.setdefault(finding.host, []).append(finding)
        return grouped

    def findings_for(self, host: str) -> list[Finding]:
        return self.by_host.get(host, [])

    def failing(self, fail_on: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity.rank >= fail_on.rank]

    def exit_code(self, fail_on: Severity) -> int:
        """0 clean, 1 when any finding is at/above `fail_on` or a host could not be judged."""
        return 1 if self.failing(fail_on) or self.skipped else 0


def audit(
    fleet: Sequence[HostFacts], policy: Policy, skipped: Sequence[SkippedHost] = ()
) -> AuditResult:
    checks = all_checks()
    unset = CheckSettings()
    # host -> check id -> Subject, for the checks enabled on that host
    subjects: dict[str, dict[str, Subject]] = {}
    for facts in fleet:
        settings = policy.for_host(facts)
        subjects[facts.host] = {
            check.id: Subject(facts, settings.get(check.id, unset))
            for check in checks
            if settings.get(check.id, unset).enabled
        }

    findings: list[Finding] = []
    for facts in fleet:
        for check in checks:
            host_subject = subjects[facts.host].get(check.id)
            if host_subject is not None:
                findings.extend(check.check_host(host_subject))
    seen: set[tuple[str, str, str | None]] = set()
    for group, members in groups_of(fleet).items():
        for check in checks:
            enabled = [subjects[m.host][check.id] for m in members if check.id in subjects[m.host]]
            for finding in check.check_group(group, enabled):
                key = (finding.check, finding.host, finding.observed)
                if key not in seen:  # a host in two groups drifting the same way: report once
                    seen.add(key)
                    findings.append(finding)
    findings.sort(key=lambda f: (f.layer.triage_rank, f.host, f.check))
    per_host: dict[str, list[Finding]] = {facts.host: [] for facts in fleet}
    for finding in findings:
        per_host[finding.host].append(finding)
    verdicts = {host: node_verdict(host_findings) for host, host_findings in per_host.items()}
    verdicts.update({skip.host: Verdict.FAIL for skip in skipped})
    return AuditResult(
        facts=tuple(fleet),
        findings=tuple(findings),
        skipped=tuple(skipped),
        policy_source=policy.source,
        verdicts=verdicts,
    )
