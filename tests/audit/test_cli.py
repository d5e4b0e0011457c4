"""`vfix audit --facts` and `vfix diff` through the real CLI entry point (exit codes, output)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vfix.cli import main

from .facts_data import h200


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(args)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def write_run(directory: Path, *facts_list) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for facts in facts_list:
        (directory / f"{facts.host}.json").write_text(facts.model_dump_json())
    return directory


def test_audit_saved_facts_json(tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "run", h200("gpu-a"), h200("gpu-b"))
    code, out, err = run_cli(["audit", "--facts", str(run), "--format", "json"], capsys)
    assert code == 1 and err == ""
    document = json.loads(out)
    assert [h["verdict"] for h in document["hosts"]] == ["WARN", "WARN"]


def test_fail_on_error_exits_zero_on_warnings(tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "run", h200())
    code, _, _ = run_cli(["audit", "--facts", str(run), "--fail-on", "error", "-f", "json"], capsys)
    assert code == 0


def test_output_file_and_policy(tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "run", h200())
    policy = tmp_path / "policy.yaml"
    policy.write_text("checks:\n  sysctl: {enabled: false}\n  nofile: {soft: 1024}\n"
                      "  nccl-libraries: {severity: info}\n")
    report = tmp_path / "report.html"
    code, out, _ = run_cli(["audit", "--facts", str(run), "--policy", str(policy),
                            "--format", "html", "--output", str(report)], capsys)
    assert code == 0 and out == ""
    assert report.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d: d, "does not exist"),
        (lambda d: (d.mkdir(), d)[1], "no run.json and no <host>.json"),
        (lambda d: (d.mkdir(), (d / "x.json").write_text("{not json"), d)[2], "x.json"),
        (lambda d: (d.mkdir(), (d / "x.json").write_text('{"host": "x"}'), d)[2], "x.json"),
    ],
    ids=["missing", "empty", "not-json", "invalid-facts"],
)
def test_unreadable_facts_exit_2_with_one_line(tmp_path: Path, capsys, make, reason) -> None:
    target = make(tmp_path / "facts")
    code, out, err = run_cli(["audit", "--facts", str(target)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("vfix: error: ") and err.count("\n") == 1
    assert reason in err


def test_invalid_policy_exits_2_naming_file_and_line(tmp_path: Path, capsys) -> None:
    run = write_run(tmp_path / "run", h200())
    policy = tmp_path / "policy.yaml"
    policy.write_text("checks:\n  shm-size:\n    size: {ge: huge}\n")
    code, out, err = run_cli(["audit", "--facts", str(run), "--policy", str(policy)], capsys)
    assert code == 2 and out == ""
    assert err == f"vfix: error: {policy}:3: shm-size.size: 'huge' is not a number or a size " \
                  "like 16Gi\n"


def test_inventory_and_facts_together_is_bad_input(tmp_path: Path, capsys) -> None:
    code, _, err = run_cli(["audit", "-i", "x", "--facts", str(tmp_path)], capsys)
    assert code == 2 and "either -i/--inventory" in err


def test_diff_reports_per_host_changes(tmp_path: Path, capsys) -> None:
    before = write_run(tmp_path / "a", h200("gpu-a"), h200("gpu-b"), h200("gpu-old"))
    after = write_run(
        tmp_path / "b",
        h200("gpu-a", patch={"collected_at": "2026-12-03T00:00:00Z",
                             "gpus": {"0": {"temperature_c": 71, "memory_used_mib": 4000}}}),
        h200("gpu-b", patch={"system": {"sysctl": {"kernel.pid_max": "4194304"}}}),
        h200("gpu-new"),
    )
    code, out, _ = run_cli(["diff", str(before), str(after), "--format", "json"], capsys)
    assert code == 1
    diffs = {d["host"]: d for d in json.loads(out)}
    assert diffs["gpu-a"]["status"] == "unchanged"  # only volatile readings moved
    assert diffs["gpu-b"]["changes"] == [
        {"key": "system.sysctl.kernel.pid_max", "before": "32768", "after": "4194304"}]
    assert any(f.startswith("sysctl[mismatch]") for f in diffs["gpu-b"]["findings_resolved"])
    assert diffs["gpu-old"]["status"] == "removed" and diffs["gpu-new"]["status"] == "added"

    code, out, _ = run_cli(["diff", str(before), str(before)], capsys)
    assert code == 0 and "gpu-a: unchanged" in out
