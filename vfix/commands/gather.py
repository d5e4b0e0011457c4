"""`vfix gather`: probe every inventory host through Ansible and write a run directory."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from vfix.commands.output import ReportConsole, reader_may_stop_early
from vfix.errors import VfixError
from vfix.gather import HostState, Run, gather
from vfix.vocabulary import ExitCode

STYLES = {HostState.OK: "green", HostState.UNREACHABLE: "red", HostState.FAILED: "red"}


def gather_command(
    inventory: Path | None = typer.Option(
        None, "-i", "--inventory", help="Ansible inventory (file, directory or 'h1,h2,').",
        show_default="inventories/local"),
    limit: str | None = typer.Option(None, "-l", "--limit", help="Ansible host pattern."),
    out: Path | None = typer.Option(None, "--out", help="Run directory to write.",
                                    show_default=".vfix/runs/<UTC timestamp>"),
    forks: int | None = typer.Option(None, "--forks", min=1, help="Hosts probed in parallel."),
) -> None:
    """Collect GPU, version and system facts from every host (read-only)."""
    run = gather(inventory, limit=limit, out=out, forks=forks)
    with reader_may_stop_early():
        _print_summary(run)
    if not run.ok_hosts:
        raise VfixError(f"no host could be probed ({len(run.bad_hosts)} unreachable or failed); "
                        f"see {run.path / 'run.json'}")
    raise typer.Exit(ExitCode.FINDINGS if run.bad_hosts else ExitCode.CLEAN)


def _print_summary(run: Run) -> None:
    console = ReportConsole()
    table = Table(box=None, pad_edge=False)
    for column in ("host", "status", "seconds", "gpus", "reason"):
        table.add_column(column)
    for host, status in run.statuses.items():
        facts = run.facts.get(host)
        table.add_row(host, f"[{STYLES[status.status]}]{status.status.value}[/]",
                      f"{status.duration_s:.1f}" if status.duration_s is not None else "",
                      str(len(facts.gpus)) if facts is not None else "", status.reason or "")
    console.print(table)
    console.print(f"{len(run.ok_hosts)}/{len(run.statuses)} host(s) probed; run written to "
                  f"{run.path}", highlight=False)
