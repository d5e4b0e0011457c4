"""`vfix diff RUN_A RUN_B`: what changed on each host between two saved runs."""

from __future__ import annotations

import dataclasses
import json
from enum import StrEnum
from pathlib import Path

import typer

from vfix.audit.diff import HostDiff, diff_runs
from vfix.audit.engine import audit
from vfix.audit.inputs import from_run_dir
from vfix.commands.output import ReportConsole, reader_may_stop_early, write_report
from vfix.policy import load_policy
from vfix.vocabulary import ExitCode


class DiffFormat(StrEnum):
    TABLE = "table"
    JSON = "json"


def diff_command(
    run_a: Path = typer.Argument(..., help="The earlier run directory."),
    run_b: Path = typer.Argument(..., help="The later run directory."),
    policy: Path | None = typer.Option(None, "--policy", help="Policy for judging both runs."),
    output_format: DiffFormat = typer.Option(DiffFormat.TABLE, "--format", "-f"),
) -> None:
    """Per-host changes between two runs: facts, findings appeared/resolved, verdicts."""
    loaded_policy = load_policy(policy)
    before, skipped_before = from_run_dir(run_a)
    after, skipped_after = from_run_dir(run_b)
    diffs = diff_runs(before, after, audit(before, loaded_policy, skipped_before),
                      audit(after, loaded_policy, skipped_after))
    if output_format is DiffFormat.JSON:
        write_report(json.dumps([dataclasses.asdict(d) for d in diffs], indent=2) + "\n", None)
    else:
        with reader_may_stop_early():
            print_diffs(diffs)
    changed = any(d.status != "unchanged" for d in diffs)
    raise typer.Exit(ExitCode.FINDINGS if changed else ExitCode.CLEAN)


def print_diffs(diffs: list[HostDiff]) -> None:
    console = ReportConsole(highlight=False)
    for d in diffs:
        verdicts = f"{d.verdict_before or '-'} -> {d.verdict_after or '-'}"
        console.print(f"[bold]{d.host}[/]: {d.status} ({verdicts})")
        for change in d.changes:
            console.print(f"  ~ {change.key}: {change.before!r} -> {change.after!r}", markup=False)
        for finding in d.findings_new:
            console.print(f"  + {finding}", markup=False)
        for finding in d.findings_resolved:
            console.print(f"  - {finding}", markup=False)
