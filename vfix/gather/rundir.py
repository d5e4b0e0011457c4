"""The run directory: what one gather leaves on disk, and how later stages read it back.

Layout (`.vfix/runs/<UTC timestamp>/` by default):

    run.json            vfix version, inventory, limit, timings, per-host status
    <host>.json         the host's facts (`HostFacts`), written with `vfix.facts.dump_facts`
    <host>.probe.json   the raw probe document the facts were built from

A host's status is `ok`, `unreachable` or `failed`; the last two carry a one-line reason and
have no facts file. A directory holding only `<host>.json` files (saved or hand-made facts) is
read as a run whose hosts are all `ok`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vfix.errors import VfixError
from vfix.facts import HostFacts, dump_facts, load_facts

RUN_FILE = "run.json"
PROBE_SUFFIX = ".probe.json"
DEFAULT_RUNS_DIR = Path(".vfix/runs")
TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"


class HostState(StrEnum):
    OK = "ok"
    UNREACHABLE = "unreachable"
    FAILED = "failed"


class HostStatus(BaseModel):
    """One host's outcome in a run."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    host: str
    status: HostState
    reason: str | None = None  # why it is unreachable/failed, one line
    duration_s: float | None = None


class RunRecord(BaseModel):
    """The content of run.json."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    vfix_version: str
    inventory: str | None = None
    limit: str | None = None
    started_at: str | None = None  # ISO 8601 UTC
    finished_at: str | None = None
    duration_s: float | None = None
    hosts: dict[str, HostStatus] = Field(default_factory=dict)


@dataclass(frozen=True)
class Run:
    """A run read back (or just written): where it is, run.json and the ok hosts' facts."""

    path: Path
    record: RunRecord
    facts: dict[str, HostFacts] = field(default_factory=dict)

    @property
    def statuses(self) -> dict[str, HostStatus]:
        return self.record.hosts

    @property
    def ok_hosts(self) -> list[str]:
        return [h for h, s in self.record.hosts.items() if s.status is HostState.OK]

    @property
    def bad_hosts(self) -> list[str]:
        """Hosts that are unreachable or failed."""
        return [h for h, s in self.record.hosts.items() if s.status is not HostState.OK]


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def new_run_dir(base: Path | None = None, now: datetime | None = None) -> Path:
    """Create and return `<base>/<UTC timestamp>/` (a suffix keeps two runs in one second apart)."""
    base = base if base is not None else DEFAULT_RUNS_DIR
    stamp = (now or utc_now()).strftime(TIMESTAMP_FORMAT)
    try:
        base.mkdir(parents=True, exist_ok=True)
        for attempt in range(1, 1000):
            path = base / (stamp if attempt == 1 else f"{stamp}-{attempt}")
            try:
                path.mkdir()
            except FileExistsError:
                continue
            return path
    except OSError as error:
        raise VfixError(f"cannot create a run directory under {base}: {error.strerror}") from None
    raise VfixError(f"cannot create a run directory under {base}: too many runs at {stamp}")


def _check_host_name(host: str) -> None:
    # Host names become file names: refuse the few that would escape or clobber the layout.
    if not host or "/" in host or host.startswith(".") or host == Path(RUN_FILE).stem:
        raise VfixError(f"host name {host!r} cannot be stored in a run directory")


def _write_text(path: Path, text: str) -> None:
    # Write then rename, so a reader never sees half a file.
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as error:
        raise VfixError(f"cannot write {path}: {error.strerror}") from None


def _write_json(path: Path, document: Any) -> None:
    _write_text(path, json.dumps(document, indent=2, sort_keys=True) + "\n")


def write_host(path: Path, facts: HostFacts, probe_document: dict[str, Any] | None) -> None:
    """Write one ok host's facts (and the raw probe document) into run directory `path`."""
    _check_host_name(facts.host)
    _write_text(path / f"{facts.host}.json", dump_facts(facts))
    if probe_document is not None:
        _write_json(path / f"{facts.host}{PROBE_SUFFIX}", probe_document)


def write_run(path: Path, record: RunRecord) -> None:
    """Write run.json; every `ok` host in it should already have its facts file."""
    for host in record.hosts:
        _check_host_name(host)
    _write_json(path / RUN_FILE, record.model_dump(mode="json"))


def latest_run_dir(base: Path | None = None) -> Path:
    """The newest run directory under `base` (default `.vfix/runs`)."""
    base = base if base is not None else DEFAULT_RUNS_DIR
    runs = sorted(p for p in base.glob(f"*/{RUN_FILE}")) if base.is_dir() else []
    if not runs:
        raise VfixError(f"no run directory under {base} (run `vfix gather` first)")
    return runs[-1].parent


def load_run_dir(path: Path | str) -> Run:
    """Read a run directory back. A directory of runs means its newest run.

    Any problem (missing, unreadable, not a run, facts that do not validate) is a `VfixError`
    with one line naming the file.
    """
    path = Path(path)
    if not path.is_dir():
        raise VfixError(f"run directory {path} does not exist or is not a directory")
    if not (path / RUN_FILE).is_file() and any(path.glob(f"*/{RUN_FILE}")):
        path = latest_run_dir(path)
    if (path / RUN_FILE).is_file():
        record = _read_record(path / RUN_FILE)
    else:
        record = _record_from_facts_files(path)
    facts = {host: _read_facts(path / f"{host}.json", host) for host in record.hosts
             if record.hosts[host].status is HostState.OK}
    return Run(path=path, record=record, facts=facts)


def _read_record(file: Path) -> RunRecord:
    try:
        return RunRecord.model_validate_json(file.read_bytes())
    except OSError as error:
        raise VfixError(f"cannot read {file}: {error.strerror}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "document"
        raise VfixError(f"{file} is not a vfix run record: {where}: {first['msg']}") from None


def _record_from_facts_files(path: Path) -> RunRecord:
    hosts = sorted(p.name[: -len(".json")] for p in path.glob("*.json")
                   if not p.name.endswith(PROBE_SUFFIX) and not p.name.startswith("."))
    if not hosts:
        raise VfixError(f"{path} is not a run directory: no {RUN_FILE} and no <host>.json files")
    from vfix import __version__

    return RunRecord(vfix_version=__version__,
                     hosts={h: HostStatus(host=h, status=HostState.OK) for h in hosts})


def _read_facts(file: Path, host: str) -> HostFacts:
    if not file.is_file():
        raise VfixError(f"run directory {file.parent} lists {host} as ok but has no {file.name}")
    facts = load_facts(file)
    if facts.host != host:
        raise VfixError(f"{file} holds facts for host {facts.host!r}, not {host!r}")
    return facts
