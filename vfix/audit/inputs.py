"""Where an audit's facts come from: a saved run directory, or a live gather of an inventory."""

from __future__ import annotations

from pathlib import Path

from vfix.audit.engine import SkippedHost
from vfix.errors import VfixError
from vfix.facts.model import HostFacts


def from_run_dir(path: Path) -> tuple[list[HostFacts], list[SkippedHost]]:
    """Facts of a saved run (`run.json` + `<host>.json`), or of a directory of facts files."""
    from vfix.gather.rundir import load_run_dir

    if not Path(path).is_dir():
        raise VfixError(f"{path}: no such facts directory")
    run = load_run_dir(path)
    facts = [run.facts[host] for host in sorted(run.facts)]
    skipped = [
        SkippedHost(host, f"{status.status.value}: {status.reason or 'no reason recorded'}")
        for host, status in sorted(run.statuses.items())
        if host not in run.facts
    ]
    if not facts and not skipped:
        raise VfixError(f"{path}: no facts files (<host>.json) in this directory")
    return facts, skipped


def from_inventory(inventory: Path | None) -> tuple[list[HostFacts], list[SkippedHost]]:
    """Gather the inventory now (default: this machine) and read the run back."""
    from vfix import gather as gather_package

    run = gather_package.gather(inventory=inventory)  # type: ignore[attr-defined]
    return from_run_dir(run.path)
