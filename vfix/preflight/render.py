"""Render a preflight report as a rich table, JSON or Markdown."""

from __future__ import annotations

import io
import json
from enum import StrEnum

from rich.console import Console
from rich.table import Table

from vfix.preflight.result import PreflightReport, sorted_results


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"


def render(report: PreflightReport, fmt: Format, width: int = 120) -> str:
    renderers = {Format.TABLE: render_table, Format.JSON: render_json,
                 Format.MARKDOWN: render_markdown}
    return renderers[fmt](report) if fmt is not Format.TABLE else render_table(report, width)


def render_json(report: PreflightReport) -> str:
    return json.dumps(report.as_dict(), indent=2) + "\n"


def render_table(report: PreflightReport, width: int = 120) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, no_color=True)
    table = Table(title=f"vfix preflight: {report.model} -> {report.verdict.value}",
                  show_lines=False)
    for column in ("verdict", "layer", "check", "host"):
        table.add_column(column, no_wrap=True)
    table.add_column("reason / source", overflow="fold", ratio=1)
    for result in sorted_results(report.results):
        table.add_row(result.verdict.value, result.layer.value, result.check,
                      result.host or "-", f"{result.reason}\nsource: {result.source}")
    console.print(table)
    for skip in report.skipped:
        console.print(f"not checked: {skip.check}: {skip.reason}")
    console.print(f"suggested: {report.suggestion.command_line}", soft_wrap=True)
    for note in report.suggestion.notes:
        console.print(f"  note: {note}", soft_wrap=True)
    return buffer.getvalue()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: PreflightReport) -> str:
    lines = [f"# vfix preflight: `{report.model}`", "", f"**Verdict: {report.verdict.value}**",
             "", "| verdict | layer | check | host | reason | source |",
             "|---|---|---|---|---|---|"]
    for r in sorted_results(report.results):
        lines.append(f"| {r.verdict.value} | {r.layer.value} | {r.check} | {r.host or '-'} | "
                     f"{_cell(r.reason)} | {_cell(r.source)} |")
    if report.skipped:
        lines += ["", "Not checked:", ""]
        lines += [f"- {s.check}: {_cell(s.reason)}" for s in report.skipped]
    lines += ["", "## Suggested command", "", "```sh", report.suggestion.command_line, "```"]
    lines += [f"- {note}" for note in report.suggestion.notes]
    return "\n".join(lines) + "\n"
