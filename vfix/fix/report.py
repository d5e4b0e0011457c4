"""What `vfix fix` prints: per host the plan, the (would-be) changes with diffs, the manual
steps, and after an apply the before/after audit. Plain lines, so any terminal or log shows them.
"""

from __future__ import annotations

import json
from collections import Counter

from vfix.ansible.runner import HostOutcome
from vfix.audit.engine import AuditResult
from vfix.findings import node_verdict
from vfix.fix.run import FixOutcome


def _indent(text: str, prefix: str = "      ") -> list[str]:
    return [prefix + line for line in text.splitlines()]


def _counts(result: AuditResult, host: str, outcome: FixOutcome) -> str:
    found = [f for f in outcome.selected(result) if f.host == host]
    if not found:
        return "PASS, 0 findings"
    by = Counter(f.severity.value for f in found)
    detail = ", ".join(f"{by[s]} {s}" for s in ("error", "warning") if by[s])
    return f"{node_verdict(found).value}, {len(found)} finding(s) ({detail})"


def _run_lines(outcome: FixOutcome, host: str) -> list[str]:
    applied = outcome.applied
    if applied is None or host not in applied.playbook.hosts:
        return []
    result = applied.playbook.hosts[host]
    verb = "would change" if applied.check else "changed"
    lines = []
    if result.status is HostOutcome.SKIPPED and host in applied.not_reached:
        lines.append("  NOT RUN: the rolling run stopped before this host's batch")
    elif not result.status.succeeded:
        lines.append(f"  {result.status.value.upper()}: {result.reason or 'no reason given'}"
                     + (f" (task: {result.failed_task})" if result.failed_task else ""))
    changes = applied.changes.get(host, [])
    lines.append(f"  {verb}: {len(changes)} task(s)")
    for change in changes:
        lines.append(f"    - {change.task}")
        lines.extend(_indent(change.diff))
    for note in applied.notes.get(host, []):
        lines.append(f"    {note}")
    return lines


def render(outcome: FixOutcome) -> list[str]:
    plan, applied = outcome.plan, outcome.applied
    mode = "applied" if applied is not None and not applied.check \
        else "dry run (check + diff), nothing changed" if applied is not None else "plan"
    lines = [f"vfix fix: {len(outcome.before.hosts)} host(s), {mode}"]
    for host in sorted(set(outcome.before.hosts) | set(plan.hosts)):
        host_plan = plan.hosts.get(host)
        lines.append(f"{host}:")
        if host_plan is None or not (host_plan.steps or host_plan.manual):
            lines.append("  nothing to fix")
        for step in host_plan.steps if host_plan else ():
            lines.append(f"  role {step.role} fixes {', '.join(step.fixes)}")
            if step.vars:
                lines.append("      with " + ", ".join(f"{k}={json.dumps(v, sort_keys=True)}"
                                                    for k, v in sorted(step.vars.items())))
        lines.extend(_run_lines(outcome, host))
        for manual in host_plan.manual if host_plan else ():
            lines.append(f"  MANUAL {manual.check}: {manual.message}")
            lines.extend(_indent(manual.steps, "      "))
        if outcome.after is not None:
            lines.append(f"  before: {_counts(outcome.before, host, outcome)}")
            lines.append(f"  after:  {_counts(outcome.after, host, outcome)}")
            still = sorted({f.check for f in outcome.selected(outcome.after) if f.host == host})
            if still:
                lines.append(f"  still failing: {', '.join(still)}")
    for skipped in outcome.before.skipped:
        lines.append(f"{skipped.host}: not judged ({skipped.reason})")
    lines.extend(_summary(outcome))
    return lines


def _summary(outcome: FixOutcome) -> list[str]:
    applied = outcome.applied
    if applied is None:
        if not outcome.selected(outcome.before):
            return ["nothing to fix"]
        if outcome.plan.hosts_with_steps:
            return ["plan only: saved facts and no inventory (-i), so nothing was checked "
                    "against the nodes"]
        return ["nothing to apply: no finding has an automatic fix"]
    lines = []
    if applied.failed and applied.not_reached:
        rolling = outcome.request.rolling
        lines.append(f"rolling run stopped: {', '.join(applied.failed)} failed "
                     f"(max fail percentage {rolling.max_fail_percentage}%, "
                     f"serial {rolling.serial or 'all'}); not run: "
                     f"{', '.join(applied.not_reached)}")
    elif applied.failed:
        lines.append(f"failed: {', '.join(applied.failed)}")
    changed = sum(len(c) for c in applied.changes.values())
    verb = "would change" if applied.check else "changed"
    lines.append(f"{verb} {changed} task(s) on {len(applied.changes)} host(s)")
    if applied.check:
        lines.append("run again with --apply to make these changes")
    return lines
