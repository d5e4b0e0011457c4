"""Run playbooks/remediate.yml for a plan: check + diff (dry run) or a rolling apply.

The Ansible events are kept per host: each task that changed (or would change) something, with
its diff as unified text (vfix/fix/diffs.py), and the lines roles report for the operator (the
gpu_processes role lists every GPU process with the reason it is kept or ended).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vfix.ansible.runner import HostOutcome, PlaybookResult, run_playbook
from vfix.errors import VfixError
from vfix.fix.diffs import result_diff
from vfix.fix.plan import Plan

PLAYBOOK = "remediate"


@dataclass(frozen=True)
class Change:
    task: str
    diff: str = ""  # unified diff text; empty when the module gave none


@dataclass(frozen=True)
class RollingOptions:
    serial: int | None = None  # hosts per batch; None: all at once
    max_fail_percentage: int = 0

    def extravars(self) -> dict[str, Any]:
        return {"vfix_serial": self.serial if self.serial else "100%",
                "vfix_max_fail_percentage": self.max_fail_percentage}


@dataclass(frozen=True)
class ApplyResult:
    check: bool
    playbook: PlaybookResult
    changes: Mapping[str, list[Change]]
    notes: Mapping[str, list[str]]

    def status(self, host: str) -> HostOutcome:
        return self.playbook.hosts[host].status

    @property
    def not_reached(self) -> list[str]:
        """Planned hosts no task ran on: the rolling run stopped before their batch."""
        return [h for h, r in self.playbook.hosts.items() if r.status is HostOutcome.SKIPPED]

    @property
    def failed(self) -> list[str]:
        return [h for h, r in self.playbook.hosts.items()
                if r.status in (HostOutcome.FAILED, HostOutcome.UNREACHABLE)]


class _Collector:
    """Keeps changed tasks, their diffs and the roles' operator lines, per host."""

    def __init__(self) -> None:
        self.changes: dict[str, list[Change]] = {}
        self.notes: dict[str, list[str]] = {}
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("event") not in ("runner_on_ok", "runner_on_failed"):
            return
        data = event.get("event_data") or {}
        host, res = data.get("host"), data.get("res") or {}
        if not host or not isinstance(res, Mapping):
            return
        with self.lock:
            if res.get("changed"):
                self.changes.setdefault(host, []).append(
                    Change(str(data.get("task", "")), result_diff(res)))
            if "processes" not in res:  # only gpu_processes reports lines for the operator
                return
            notes = self.notes.setdefault(host, [])
            notes.extend(line for line in res["processes"] or [] if isinstance(line, str))
            notes.extend(f"warning: {w}" for w in res.get("warnings") or [])


def apply_plan(plan: Plan, inventory: str | Path | None, *, check: bool,
               rolling: RollingOptions = RollingOptions(),
               progress: bool | None = None) -> ApplyResult:
    """Run the plan's hosts through remediate.yml (check + diff when `check`)."""
    hosts = plan.hosts_with_steps
    if not hosts:
        raise VfixError("nothing to apply: the plan has no role steps")
    if rolling.serial is not None and rolling.serial < 1:
        raise VfixError(f"--serial must be at least 1, not {rolling.serial}")
    if not 0 <= rolling.max_fail_percentage <= 100:
        raise VfixError(f"--max-fail-percent must be 0..100, not {rolling.max_fail_percentage}")
    collector = _Collector()
    result = run_playbook(
        PLAYBOOK, inventory, limit=",".join(hosts), check=check, diff=True,
        extravars={**plan.extravars(), **rolling.extravars()}, progress=progress,
        title=f"vfix fix{' (dry run)' if check else ''}: {len(hosts)} host(s)",
        event_handler=collector,
    )
    missing = sorted(set(hosts) - set(result.hosts))
    if missing:
        raise VfixError(f"host(s) {', '.join(missing)} from the facts are not in the inventory")
    if all(r.status is HostOutcome.UNREACHABLE for r in result.hosts.values()):
        raise VfixError("no planned host was reachable: "
                        + "; ".join(f"{h}: {r.reason}" for h, r in result.hosts.items()))
    return ApplyResult(check=check, playbook=result, changes=collector.changes,
                       notes=collector.notes)
