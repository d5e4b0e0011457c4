"""`vfix fix`: plan the fixes for an audit's findings; dry run (check + diff) unless --apply."""

from __future__ import annotations

from pathlib import Path

import typer

from vfix.fix.apply import RollingOptions
from vfix.fix.plan import PlanOptions, parse_ids
from vfix.fix.report import render
from vfix.fix.run import FixRequest, run_fix


def fix_command(
    inventory: Path | None = typer.Option(
        None, "-i", "--inventory", help="Ansible inventory to gather and fix.",
        show_default="inventories/local"),
    facts: Path | None = typer.Option(
        None, "--facts", help="Plan from a saved run directory instead of gathering now."),
    policy: Path | None = typer.Option(None, "--policy", help="Policy file (default: built-in)."),
    only: str | None = typer.Option(
        None, "--only", help="Comma-separated check ids to fix (e.g. shm-size,sysctl)."),
    tags: str | None = typer.Option(
        None, "--tags", help="Comma-separated roles to run (e.g. shm,limits)."),
    apply: bool = typer.Option(False, "--apply", help="Change the nodes (rolling run)."),
    allow_reboot: bool = typer.Option(
        False, "--allow-reboot", help="Let reboot-gated roles (GRUB, driver) reboot nodes."),
    terminate_stale: bool = typer.Option(
        False, "--terminate-stale",
        help="Let gpu_processes end processes proven stale (SIGTERM, grace, SIGKILL)."),
    serial: int | None = typer.Option(None, "--serial", help="Hosts per batch (default: all)."),
    max_fail_percent: int = typer.Option(
        0, "--max-fail-percent", help="Stop the rolling run when a batch fails more than this."),
) -> None:
    """Fix the findings of an audit: Ansible check + diff by default, --apply to change nodes."""
    request = FixRequest(
        inventory=inventory, facts_dir=facts, policy=policy, apply=apply,
        options=PlanOptions(only=parse_ids(only), roles=parse_ids(tags),
                            allow_reboot=allow_reboot, terminate_stale=terminate_stale),
        rolling=RollingOptions(serial=serial, max_fail_percentage=max_fail_percent),
    )
    outcome = run_fix(request)
    for line in render(outcome):
        typer.echo(line)
    raise typer.Exit(outcome.exit_code)
