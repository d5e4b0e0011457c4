"""`vfix audit`: judge live or saved facts against the policy and the group majority."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from vfix.audit.engine import audit
from vfix.audit.inputs import from_inventory, from_run_dir
from vfix.commands.output import write_report
from vfix.errors import VfixError
from vfix.formats import Format, render
from vfix.policy import load_policy
from vfix.vocabulary import Severity


def audit_command(
    inventory: Path | None = typer.Option(
        None, "-i", "--inventory", help="Ansible inventory to gather now.",
        show_default="inventories/local (this machine)"),
    limit: str | None = typer.Option(None, "-l", "--limit", help="Ansible host pattern."),
    facts: Path | None = typer.Option(
        None, "--facts", help="A saved run directory (or a directory of <host>.json facts)."),
    policy: Path | None = typer.Option(
        None, "--policy", help="Policy YAML merged over the shipped default."),
    output_format: Format | None = typer.Option(
        None, "--format", "-f", help="Report format.", show_default="table on a TTY, else json"),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here."),
    fail_on: Severity = typer.Option(
        Severity.WARNING, "--fail-on", help="Lowest severity that makes the exit code 1."),
) -> None:
    """Audit the fleet: findings with evidence, drift from each group's majority, verdicts."""
    if inventory is not None and facts is not None:
        raise VfixError("use either -i/--inventory (gather now) or --facts DIR (saved run)")
    loaded_policy = load_policy(policy)  # a bad policy stops here, before any gather
    fleet, skipped = from_run_dir(facts) if facts is not None else from_inventory(inventory, limit)
    if not fleet:
        reasons = "; ".join(f"{s.host}: {s.reason}" for s in skipped[:3])
        raise VfixError(
            f"no host could be audited ({len(skipped)} unreachable or failed): {reasons}"
        )
    result = audit(fleet, loaded_policy, skipped)
    to_terminal = output is None and sys.stdout.isatty()
    chosen = output_format or (Format.TABLE if to_terminal else Format.JSON)
    write_report(render(result, chosen, color=to_terminal), output)
    raise typer.Exit(result.exit_code(fail_on))
