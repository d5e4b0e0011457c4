from __future__ import annotations

import io
from typing import ClassVar

from rich.console import Console
from rich.table import Table

from vfix.audit.engine import AuditResult
from vfix.formats.base import layers_in_order, summary
from vfix.vocabulary import Severity, Verdict

SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}
VERDICT_STYLE = {Verdict.FAIL: "bold red", Verdict.WARN: "yellow", Verdict.PASS: "green"}


class TableFormatter:
    """For people: findings grouped by layer in triage order, then the verdict per node."""

    media_type: ClassVar[str] = "text/plain"

    def __init__(self, color: bool = False, width: int = 120) -> None:
        self.color = color
        self.width = width

    def render(self, result: AuditResult) -> str:
        buffer = io.StringIO()
        console = Console(
            file=buffer,
            width=self.width,
            force_terminal=self.color,
            no_color=not self.color,
            highlight=False,
        )
        for layer in layers_in_order():
            findings = [f for f in result.findings if f.layer is layer]
            if not findings:
                continue
            table = Table(
                title=f"{layer.value} ({len(findings)})",
                title_justify="left",
                expand=True,
                show_lines=False,
            )
            table.add_column("host", no_wrap=True)
            table.add_column("severity", no_wrap=True)
            table.add_column("check", no_wrap=True)
            table.add_column("finding", ratio=1, overflow="fold")
            table.add_column("fix", no_wrap=True)
            for finding in findings:
                table.add_row(
                    finding.host,
                    f"[{SEVERITY_STYLE[finding.severity]}]{finding.severity.value}[/]",
                    finding.check,
                    finding.message,
                    finding.remediation.role,
                )
            console.print(table)
        verdicts = Table(title="verdicts", title_justify="left")
        verdicts.add_column("host")
        verdicts.add_column("verdict")
        verdicts.add_column("errors / warnings / info")
        skipped = {s.host: s.reason for s in result.skipped}
        for host, verdict in result.verdicts.items():
            mine = [f.severity for f in result.findings if f.host == host]
            counts = (
                f"{mine.count(Severity.ERROR)} / {mine.count(Severity.WARNING)} / "
                f"{mine.count(Severity.INFO)}"
            )
            verdicts.add_row(
                host, f"[{VERDICT_STYLE[verdict]}]{verdict.value}[/]", skipped.get(host, counts)
            )
        console.print(verdicts)
        totals = summary(result)
        console.print(
            f"{len(result.verdicts)} host(s): {totals['hosts_pass']} PASS, "
            f"{totals['hosts_warn']} WARN, {totals['hosts_fail']} FAIL"
            + (f" ({totals['hosts_skipped']} not reachable)" if totals["hosts_skipped"] else "")
            + f"; policy: {result.policy_source}"
        )
        return buffer.getvalue()
