"""The plan: which roles, with which variables, each host needs to fix its findings.

    plan = build_plan(findings, facts, options)
    plan.hosts["node1"].steps    # RoleStep(role="shm", vars={...}, fixes=("shm-size",))
    plan.hosts["node1"].manual   # ManualStep: findings with no safe automatic fix
    plan.extravars()             # what playbooks/remediate.yml reads

Disruptive actions stay off unless the operator asked: the reboot switches of the roles follow
`--allow-reboot`, and gpu_processes only terminates with `--terminate-stale`, whatever a
finding's remediation says. Version findings become the `versions` role only where the inventory
declares the target matrix (`vfix_versions`, the versions role's variables); else they are manual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vfix.errors import VfixError
from vfix.facts.model import HostFacts
from vfix.findings import Finding

# The order roles run in on a host: end stale GPU processes first (they block resets and
# driver changes), GPU resets last, the reboot-gated ones just before.
ROLE_ORDER = (
    "gpu_processes",
    "persistence",
    "shm",
    "sysctl",
    "limits",
    "nccl_env",
    "clocks",
    "versions",
    "iommu_grub",
    "gpu_recovery",
)
REBOOT_SWITCHES = {"iommu_grub": "iommu_grub_allow_reboot", "versions": "versions_allow_reboot"}
TERMINATE_SWITCH = ("gpu_processes", "gpu_processes_terminate")
VERSION_CHECKS = frozenset({"nccl-libraries", "version-drift", "driver-mismatch", "cuda-compat"})
VERSIONS_MATRIX_VAR = "vfix_versions"


@dataclass(frozen=True)
class PlanOptions:
    only: frozenset[str] = frozenset()  # check ids (with or without [sub]); empty: all
    roles: frozenset[str] = frozenset()  # role names; empty: all
    allow_reboot: bool = False
    terminate_stale: bool = False


@dataclass(frozen=True)
class RoleStep:
    role: str
    vars: Mapping[str, Any]
    fixes: tuple[str, ...]  # the findings' check ids this step addresses


@dataclass(frozen=True)
class ManualStep:
    check: str
    message: str
    steps: str


@dataclass(frozen=True)
class HostPlan:
    host: str
    steps: tuple[RoleStep, ...] = ()
    manual: tuple[ManualStep, ...] = ()

    @property
    def roles(self) -> list[str]:
        return [step.role for step in self.steps]


@dataclass(frozen=True)
class Plan:
    hosts: Mapping[str, HostPlan] = field(default_factory=dict)

    @property
    def hosts_with_steps(self) -> list[str]:
        return [host for host, plan in self.hosts.items() if plan.steps]

    def extravars(self) -> dict[str, Any]:
        return {"vfix_plan": {host: [{"role": step.role, "vars": dict(step.vars)}
                                     for step in plan.steps]
                              for host, plan in self.hosts.items() if plan.steps}}


def parse_ids(text: str | None) -> frozenset[str]:
    """`"shm-size, sysctl[mismatch]"` -> {"shm-size", "sysctl[mismatch]"}."""
    return frozenset(part.strip() for part in (text or "").split(",") if part.strip())


def validate_options(options: PlanOptions, known_checks: Iterable[str]) -> None:
    """Unknown check ids or role names are operator typos: refuse before anything runs."""
    known = set(known_checks)
    unknown_checks = sorted(i for i in options.only if i.split("[", 1)[0] not in known)
    if unknown_checks:
        raise VfixError(f"--only: unknown check id(s) {', '.join(unknown_checks)}; "
                        f"known: {', '.join(sorted(known))}")
    unknown_roles = sorted(options.roles - set(ROLE_ORDER))
    if unknown_roles:
        raise VfixError(f"--tags: unknown role(s) {', '.join(unknown_roles)}; "
                        f"known: {', '.join(ROLE_ORDER)}")


def _selected(finding: Finding, only: frozenset[str]) -> bool:
    return not only or finding.check in only or finding.check_id in only


def merge_vars(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Variables of several findings for one role: maps merge, lists join (no repeats),
    anything else: the later finding wins."""
    merged = dict(base)
    for key, value in extra.items():
        old = merged.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_vars(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            merged[key] = old + [item for item in value if item not in old]
        else:
            merged[key] = value
    return merged


def _remediation_of(finding: Finding, facts: HostFacts | None) -> tuple[str, dict[str, Any]]:
    """(role, vars), or ("manual", {}) where nothing safe can be automated."""
    remediation = finding.remediation
    if not remediation.is_manual:
        return remediation.role, dict(remediation.vars)
    matrix = facts.group_vars.get(VERSIONS_MATRIX_VAR) if facts else None
    if finding.check_id in VERSION_CHECKS and isinstance(matrix, Mapping) and matrix:
        return "versions", dict(matrix)
    return "manual", {}


def _switches(role: str, variables: dict[str, Any], options: PlanOptions) -> dict[str, Any]:
    if role in REBOOT_SWITCHES:
        variables[REBOOT_SWITCHES[role]] = options.allow_reboot
    if role == TERMINATE_SWITCH[0]:
        variables[TERMINATE_SWITCH[1]] = options.terminate_stale
    return variables


def build_plan(findings: Sequence[Finding], facts: Sequence[HostFacts],
               options: PlanOptions = PlanOptions()) -> Plan:
    """One `HostPlan` per host that has facts (hosts with nothing to do get an empty plan)."""
    by_host = {f.host: f for f in facts}
    steps: dict[str, dict[str, tuple[dict[str, Any], list[str]]]] = {h: {} for h in by_host}
    manual: dict[str, list[ManualStep]] = {h: [] for h in by_host}
    for finding in findings:
        if not _selected(finding, options.only):
            continue
        role, variables = _remediation_of(finding, by_host.get(finding.host))
        host_steps = steps.setdefault(finding.host, {})
        if role == "manual" or role not in ROLE_ORDER:
            why = finding.remediation.manual or f"no vfix role named {role!r}"
            manual.setdefault(finding.host, []).append(
                ManualStep(finding.check, finding.message, why))
            continue
        if options.roles and role not in options.roles:
            continue
        old_vars, fixes = host_steps.get(role, ({}, []))
        host_steps[role] = (merge_vars(old_vars, variables), [*fixes, finding.check])
    hosts = {}
    for host in sorted(set(steps) | set(manual)):
        ordered = [
            RoleStep(role, _switches(role, dict(steps[host][role][0]), options),
                     tuple(dict.fromkeys(steps[host][role][1])))
            for role in ROLE_ORDER if role in steps.get(host, {})
        ]
        hosts[host] = HostPlan(host, tuple(ordered), tuple(manual.get(host, [])))
    return Plan(hosts)
