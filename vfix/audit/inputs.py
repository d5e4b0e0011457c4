"""Where an audit's facts come from: a saved run directory, or a live gather of an inventory."""

from __future__ import annotations

from pathlib import Path

from vfix.audit.engine import SkippedHost
from vfix.facts.model import HostFacts
from vfix.gather import Run, gather, load_run_dir


def from_run(run: Run) -> tuple[list[HostFacts], list[SkippedHost]]:
    facts = [run.facts[host] for host in sorted(run.facts)]
    skipped = [
        SkippedHost(host, f"{status.status.value}: {status.reason or 'no reason recorded'}")
        for host, status in sorted(run.statuses.items())
        if host not in run.facts
    ]
    return facts, skipped


def from_run_dir(path: Path) -> tuple[list[HostFacts], list[SkippedHost]]:
    """Facts of a saved run (`run.json` + `<host>.json`), or of a directory of facts files."""
    return from_run(load_run_dir(path))


def from_inventory(
    inventory: Path | None, limit: str | None = None
) -> tuple[list[HostFacts], list[SkippedHost]]:
    """Gather the inventory now (default: this machine's local inventory)."""
    return from_run(gather(inventory=inventory, limit=limit))
