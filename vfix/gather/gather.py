"""Gather: run the node probe across an inventory through Ansible and write a run directory.

    run = gather("inventories/example", limit="gpu_h200", forks=32)
    run.ok_hosts, run.bad_hosts, run.facts["gpu-a01"], run.path

Hosts that are unreachable or fail are recorded with their reason; the others still complete.
A bad inventory is a `VfixError` before anything runs (and before a run directory exists).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vfix import __version__
from vfix.ansible.inventory import Inventory
from vfix.ansible.paths import default_inventory
from vfix.ansible.runner import HostResult, run_playbook
from vfix.errors import VfixError
from vfix.facts import HostFacts, build_facts
from vfix.gather.rundir import (
    RUN_FILE,
    HostState,
    HostStatus,
    Run,
    RunRecord,
    iso,
    new_run_dir,
    utc_now,
    write_host,
    write_run,
)

PROBE_FACT = "vfix_probe"


def gather(inventory: str | Path | None = None, limit: str | None = None,
           out: str | Path | None = None, forks: int | None = None,
           progress: bool | None = None, extravars: Mapping[str, Any] | None = None) -> Run:
    """Probe every host of `inventory` (default: this machine) and write the run directory.

    `out` is the run directory itself (created; must not already hold a run); by default a new
    `.vfix/runs/<UTC timestamp>/`.
    """
    source = str(inventory) if inventory is not None else str(default_inventory())
    path = _prepare_out(Path(out)) if out is not None else new_run_dir()
    started_at, started = utc_now(), time.monotonic()
    try:
        result = run_playbook("gather", source, limit=limit, forks=forks, progress=progress,
                              extravars=extravars, read_only=True, title="vfix gather")
    except BaseException:
        if not any(path.iterdir()):
            shutil.rmtree(path, ignore_errors=True)
        raise
    targets = result.inventory
    statuses: dict[str, HostStatus] = {}
    facts: dict[str, HostFacts] = {}
    for name in targets.names:
        status, host_facts = _record_host(path, targets, result.hosts[name])
        statuses[name] = status
        if host_facts is not None:
            facts[name] = host_facts
    record = RunRecord(vfix_version=__version__, inventory=source, limit=limit,
                       started_at=iso(started_at), finished_at=iso(utc_now()),
                       duration_s=round(time.monotonic() - started, 3), hosts=statuses)
    write_run(path, record)
    return Run(path=path, record=record, facts=facts)


def _prepare_out(path: Path) -> Path:
    if (path / RUN_FILE).exists():
        raise VfixError(f"{path} already holds a run; choose another --out directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise VfixError(f"cannot create run directory {path}: {error.strerror}") from None
    return path


def _record_host(path: Path, targets: Inventory,
                 result: HostResult) -> tuple[HostStatus, HostFacts | None]:
    name = result.host
    duration = round(result.duration_s, 3) if result.duration_s is not None else None
    if not result.status.succeeded:
        state = HostState.UNREACHABLE if result.status == "unreachable" else HostState.FAILED
        return HostStatus(host=name, status=state, reason=result.reason,
                          duration_s=duration), None
    document = result.facts.get(PROBE_FACT)
    if not isinstance(document, dict):
        reason = "the probe returned no facts (no vfix_probe in the fact cache)"
        return HostStatus(host=name, status=HostState.FAILED, reason=reason,
                          duration_s=duration), None
    host = targets.host(name)
    facts = build_facts(document, host=name).model_copy(update={
        "group_names": list(host.groups), "group_vars": dict(host.vfix_vars)})
    write_host(path, facts, document)
    return HostStatus(host=name, status=HostState.OK, duration_s=duration), facts
