"""One wrapper around `ansible_runner.run` for gather, fix and validate.

    result = run_playbook("gather", inventory, limit="gpu_h200", forks=32)
    result.hosts["node1"].status   # ok | changed | failed | unreachable | skipped
    result.hosts["node1"].facts    # the host's fact cache (cacheable set_fact / ansible_facts)

Facts come from the run's jsonfile fact cache, not from events (events blank large results).
ANSIBLE_CONFIG, the roles path and the module path are always set explicitly, so the same code
works in a git checkout and from an installed wheel. A bad inventory is a `VfixError` before
Ansible starts; anything per host (unreachable, failed) is data in the result.
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from vfix.ansible.fact_cache import read_fact_cache
from vfix.ansible.inventory import Inventory, load_inventory
from vfix.ansible.paths import ansible_environment, ansible_home, playbook_path
from vfix.ansible.progress import Progress
from vfix.errors import VfixError

EventHandler = Callable[[dict[str, Any]], None]


class HostOutcome(StrEnum):
    OK = "ok"
    CHANGED = "changed"
    FAILED = "failed"
    UNREACHABLE = "unreachable"
    SKIPPED = "skipped"  # targeted, but no task ran on it (e.g. a play's `when` excluded it)

    @property
    def succeeded(self) -> bool:
        return self in (HostOutcome.OK, HostOutcome.CHANGED, HostOutcome.SKIPPED)


@dataclass(frozen=True)
class HostResult:
    host: str
    status: HostOutcome
    reason: str | None = None  # one line, for failed/unreachable
    failed_task: str | None = None
    changed: int = 0  # tasks that changed something
    duration_s: float | None = None
    facts: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class PlaybookResult:
    playbook: str
    status: str  # ansible-runner: successful | failed | canceled | timeout
    rc: int
    hosts: Mapping[str, HostResult]
    duration_s: float
    inventory: Inventory  # the targeted hosts with their groups and vfix_* vars

    @property
    def failed_hosts(self) -> list[str]:
        return [h for h, r in self.hosts.items() if not r.status.succeeded]


@dataclass
class _HostTrack:
    first: float | None = None
    last: float | None = None
    reason: str | None = None
    failed_task: str | None = None
    unreachable: bool = False
    failed: bool = False


class _EventCollector:
    """Turns the event stream into per-host timing and failure reasons (and drives progress)."""

    HOST_EVENTS = ("runner_on_start", "runner_on_ok", "runner_on_failed", "runner_on_skipped",
                   "runner_on_unreachable", "runner_item_on_failed")

    def __init__(self, progress: Progress, extra: EventHandler | None) -> None:
        self.progress = progress
        self.extra = extra
        self.hosts: dict[str, _HostTrack] = {}
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> bool:
        kind = event.get("event", "")
        data = event.get("event_data") or {}
        host = data.get("host")
        if host and kind in self.HOST_EVENTS:
            with self.lock:
                self._host_event(kind, host, data)
        if kind == "playbook_on_stats":
            for host in self.progress.lines:
                self.progress.finish(host)
        if self.extra is not None:
            self.extra(event)
        return True

    def _host_event(self, kind: str, host: str, data: dict[str, Any]) -> None:
        now = time.monotonic()
        track = self.hosts.setdefault(host, _HostTrack())
        track.first = now if track.first is None else track.first
        track.last = now
        task = str(data.get("task") or "")
        if kind == "runner_on_start":
            self.progress.update(host, "running", task)
        elif kind == "runner_on_unreachable":
            track.unreachable, track.reason = True, failure_reason(data.get("res"))
            track.failed_task = task
            self.progress.update(host, "unreachable", task)
        elif kind == "runner_on_failed" and not data.get("ignore_errors"):
            track.failed, track.reason = True, failure_reason(data.get("res"))
            track.failed_task = task
            self.progress.update(host, "failed", task)
        elif kind == "runner_on_ok":
            changed = bool((data.get("res") or {}).get("changed"))
            self.progress.update(host, "changed" if changed else "ok", task)


def failure_reason(result: Any) -> str:
    """One line saying why a task failed or a host was unreachable."""
    if not isinstance(result, Mapping):
        return "no reason given"
    for key in ("msg", "stderr", "module_stderr", "stdout", "module_stdout"):
        text = result.get(key)
        if isinstance(text, str) and text.strip():
            lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
            reason = lines[-1] if key in ("module_stderr", "stderr") else lines[0]
            return reason if len(reason) <= 300 else reason[:297] + "..."
    return "no reason given"


@contextlib.contextmanager
def _cancel_on_interrupt() -> Iterator[Callable[[], bool]]:
    """Ctrl-C asks ansible-runner to stop the run (rather than abandoning ansible-playbook)."""
    asked = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield asked.is_set
        return
    previous = signal.signal(signal.SIGINT, lambda *_: asked.set())
    try:
        yield asked.is_set
    finally:
        signal.signal(signal.SIGINT, previous)


def run_playbook(
    playbook: str,
    inventory: str | Path | None = None,
    *,
    limit: str | None = None,
    extravars: Mapping[str, Any] | None = None,
    check: bool = False,
    diff: bool = False,
    tags: list[str] | None = None,
    forks: int | None = None,
    timeout_s: int | None = None,
    progress: bool | None = None,
    title: str | None = None,
    event_handler: EventHandler | None = None,
    targets: Inventory | None = None,
    read_only: bool = False,
) -> PlaybookResult:
    """Run `playbooks/<playbook>.yml` and return per-host results as frozen data.

    The inventory is read first (`targets`, if the caller already has it), so a bad inventory
    fails before Ansible starts. A `read_only` playbook (gather) instead starts at once and the
    inventory is read while Ansible starts up (they overlap on the controller's cores); a bad
    inventory then cancels the run. `progress=None` shows live progress only on a terminal.
    """
    import ansible_runner

    from vfix.ansible.paths import default_inventory

    source = str(inventory) if inventory is not None else str(default_inventory())
    if forks is not None and forks < 1:
        raise VfixError(f"--forks must be at least 1, not {forks}")
    path = playbook_path(playbook)
    overlap = read_only and targets is None
    if targets is None and not overlap:
        targets = load_inventory(source, limit)
    cmdline = " ".join([*(["--check"] if check else []), *(["--diff"] if diff else [])])
    display = Progress(targets.names if targets else [], title or path.stem, enabled=progress)
    collector = _EventCollector(display, event_handler)
    stop = threading.Event()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vfix-ansible-") as private, display, \
            _cancel_on_interrupt() as cancelled:
        thread, runner = ansible_runner.run_async(
            private_data_dir=private,
            project_dir=str(ansible_home()),
            playbook=str(path),
            inventory=str(Path(source).resolve()) if Path(source).exists() else source,
            limit=limit,
            extravars=dict(extravars or {}),
            cmdline=cmdline or None,
            tags=",".join(tags) if tags else None,
            forks=forks,
            envvars=ansible_environment(),
            timeout=timeout_s,
            quiet=True,
            suppress_env_files=True,
            event_handler=collector,
            cancel_callback=lambda: cancelled() or stop.is_set(),
        )
        if targets is None:
            try:
                targets = load_inventory(source, limit)
            except BaseException:
                stop.set()
                thread.join()
                raise
        display.expect(targets.names, title or f"{path.stem}: {len(targets.names)} host(s)")
        thread.join()
        if runner.status == "canceled":
            raise VfixError("interrupted: the Ansible run was stopped")
        if runner.rc == 127 or runner.status == "error":
            raise VfixError(f"ansible-playbook could not run ({runner.status}, rc {runner.rc}): "
                            f"{_last_line(runner)}")
        hosts = _host_results(runner, targets.names, collector.hosts)
    return PlaybookResult(playbook=str(path), status=str(runner.status), rc=int(runner.rc or 0),
                          hosts=MappingProxyType(hosts), duration_s=time.monotonic() - started,
                          inventory=targets)


def _host_results(runner: Any, names: list[str],
                  tracks: dict[str, _HostTrack]) -> dict[str, HostResult]:
    stats = runner.stats or {}
    results = {}
    for host in names:
        track = tracks.get(host, _HostTrack())
        changed = int((stats.get("changed") or {}).get(host, 0))
        if track.unreachable or host in (stats.get("dark") or {}):
            status = HostOutcome.UNREACHABLE
        elif track.failed or host in (stats.get("failures") or {}):
            status = HostOutcome.FAILED
        elif track.first is None:
            status = HostOutcome.SKIPPED if stats else HostOutcome.FAILED
        else:
            status = HostOutcome.CHANGED if changed else HostOutcome.OK
        reason = track.reason
        if status is HostOutcome.FAILED and reason is None:
            reason = "no task ran on this host" if stats else f"the run ended: {runner.status}"
        duration = (track.last - track.first) if track.first and track.last else None
        facts = read_fact_cache(Path(runner.config.artifact_dir) / "fact_cache", host)
        results[host] = HostResult(host=host, status=status, reason=reason,
                                   failed_task=track.failed_task, changed=changed,
                                   duration_s=duration, facts=MappingProxyType(dict(facts)))
    return results


def _last_line(runner: Any) -> str:
    with contextlib.suppress(Exception):
        lines = [line for line in runner.stdout.read().splitlines() if line.strip()]
        if lines:
            return lines[-1].strip()
    return "no output"
