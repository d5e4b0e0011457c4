"""The run directory contract: written by gather, read back by audit/fix/diff."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from vfix.errors import VfixError
from vfix.facts import load_facts
from vfix.gather.rundir import (
    HostState,
    HostStatus,
    RunRecord,
    latest_run_dir,
    load_run_dir,
    new_run_dir,
    write_host,
    write_run,
)

FACTS = Path(__file__).resolve().parent.parent / "data" / "facts" / "h200-1gpu.json"


def _facts(host: str):
    return load_facts(FACTS).model_copy(update={"host": host})


def _write_sample(base: Path) -> Path:
    path = new_run_dir(base, now=datetime(2026, 12, 2, 16, 0, 0, tzinfo=UTC))
    write_host(path, _facts("gpu-a01"), {"probe_version": "1", "host": "gpu-a01"})
    write_run(path, RunRecord(vfix_version="0.1.0", inventory="inventories/example",
                              duration_s=3.5, hosts={
        "gpu-a01": HostStatus(host="gpu-a01", status=HostState.OK, duration_s=2.0),
        "gpu-a02": HostStatus(host="gpu-a02", status=HostState.UNREACHABLE,
                              reason="ssh: connect to host 10.0.0.2 port 22: Connection refused"),
    }))
    return path


def test_a_written_run_reads_back_with_statuses_and_facts(tmp_path):
    path = _write_sample(tmp_path)
    assert path.name == "20261202T160000Z"
    assert sorted(p.name for p in path.iterdir()) == [
        "gpu-a01.json", "gpu-a01.probe.json", "run.json"]
    run = load_run_dir(path)
    assert run.ok_hosts == ["gpu-a01"]
    assert run.bad_hosts == ["gpu-a02"]
    assert run.statuses["gpu-a02"].status is HostState.UNREACHABLE
    assert "Connection refused" in (run.statuses["gpu-a02"].reason or "")
    assert run.facts["gpu-a01"].gpus[0].name == "NVIDIA H200"
    assert json.loads((path / "run.json").read_text())["hosts"]["gpu-a01"]["status"] == "ok"


def test_two_runs_in_one_second_get_distinct_directories(tmp_path):
    moment = datetime(2026, 12, 2, 16, 0, 0, tzinfo=UTC)
    first, second = new_run_dir(tmp_path, moment), new_run_dir(tmp_path, moment)
    assert first != second and first.is_dir() and second.is_dir()


def test_a_directory_of_runs_means_its_newest(tmp_path):
    _write_sample(tmp_path)
    newer = new_run_dir(tmp_path, datetime(2026, 12, 3, tzinfo=UTC))
    write_run(newer, RunRecord(vfix_version="0.1.0", hosts={}))
    assert latest_run_dir(tmp_path) == newer
    assert load_run_dir(tmp_path).path == newer


def test_a_directory_of_facts_files_reads_as_an_all_ok_run(tmp_path):
    (tmp_path / "gpu-b07.json").write_text(FACTS.read_text().replace('"h200-vm"', '"gpu-b07"'))
    run = load_run_dir(tmp_path)
    assert run.ok_hosts == ["gpu-b07"]
    assert run.record.inventory is None


@pytest.mark.parametrize(("damage", "message"), [
    (lambda p: (p / "run.json").write_text("{"), "is not a vfix run record"),
    (lambda p: (p / "run.json").write_text('{"hosts": {}}'), "vfix_version"),
    (lambda p: (p / "gpu-a01.json").unlink(), "lists gpu-a01 as ok but has no gpu-a01.json"),
    (lambda p: (p / "gpu-a01.json").write_text("[]"), "is not a JSON object, found list"),
])
def test_a_damaged_run_is_one_clear_error(tmp_path, damage, message):
    path = _write_sample(tmp_path)
    damage(path)
    with pytest.raises(VfixError, match=message) as raised:
        load_run_dir(path)
    assert "\n" not in raised.value.reason


def test_missing_or_empty_directories_are_errors(tmp_path):
    with pytest.raises(VfixError, match="does not exist"):
        load_run_dir(tmp_path / "nope")
    with pytest.raises(VfixError, match="not a run directory"):
        load_run_dir(tmp_path)


@pytest.mark.parametrize("host", ["run", "../x", ".hidden", ""])
def test_host_names_that_would_break_the_layout_are_refused(tmp_path, host):
    with pytest.raises(VfixError, match="cannot be stored"):
        write_run(tmp_path, RunRecord(vfix_version="0.1.0",
                                      hosts={host: HostStatus(host=host, status=HostState.OK)}))
