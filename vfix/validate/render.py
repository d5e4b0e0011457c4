"""Render a `ValidationReport` in every report format (`vfix.formats.Format`): one verdict per
node with the numbers behind it, the findings with evidence, and what was not judged."""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import Callable
from xml.etree import ElementTree

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from vfix.formats import Format
from vfix.validate.model import NodeResult, ValidationReport
from vfix.vocabulary import Verdict


def _metrics_line(node: NodeResult) -> str:
    return ", ".join(f"{key}={value}" for key, value in node.metrics.items() if value is not None)


def to_dict(report: ValidationReport) -> dict[str, object]:
    return {
        "kind": report.kind,
        "passed": report.passed,
        "run_dir": report.run_dir,
        "notes": report.notes,
        "nodes": [{
            "host": node.host,
            "verdict": node.verdict.value,
            "metrics": node.metrics,
            "notes": node.notes,
            "findings": [finding.model_dump(mode="json") for finding in node.findings],
        } for node in report.nodes],
    }


def render_json(report: ValidationReport) -> str:
    return json.dumps(to_dict(report), indent=2, sort_keys=False) + "\n"


def render_table(report: ValidationReport, color: bool = False) -> str:
    table = Table(title=f"vfix validate {report.kind}")
    for column in ("host", "verdict", "numbers", "findings"):
        table.add_column(column, overflow="fold")
    style = {Verdict.PASS: "green", Verdict.WARN: "yellow", Verdict.FAIL: "red"}
    for node in report.nodes:
        findings = "\n".join(f"{f.severity.value} {f.check}: {f.message}" for f in node.findings)
        notes = "\n".join(f"note: {note}" for note in node.notes)
        table.add_row(escape(node.host), f"[{style[node.verdict]}]{node.verdict.value}[/]",
                      escape(_metrics_line(node)),
                      escape("\n".join(p for p in (findings, notes) if p)))
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, width=160, color_system="auto"
                      if color else None)
    console.print(table)
    for note in report.notes:
        console.print(escape(f"note: {note}"))
    return buffer.getvalue()


def render_markdown(report: ValidationReport) -> str:
    lines = [f"# vfix validate {report.kind}", "", "| host | verdict | numbers |", "|---|---|---|"]
    lines += [f"| {n.host} | {n.verdict.value} | {_metrics_line(n)} |" for n in report.nodes]
    for node in report.nodes:
        if not node.findings and not node.notes:
            continue
        lines += ["", f"## {node.host}"]
        for finding in node.findings:
            lines.append(f"- **{finding.severity.value}** `{finding.check}` ({finding.layer.value})"
                         f": {finding.message}")
            for evidence in finding.evidence:
                lines += [f"  - {evidence.source}: `{line}`" for line in evidence.lines[:5]]
        lines += [f"- note: {note}" for note in node.notes]
    lines += [f"- note: {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def render_junit(report: ValidationReport) -> str:
    suite = ElementTree.Element("testsuite", name=f"vfix-validate-{report.kind}",
                                tests=str(len(report.nodes)),
                                failures=str(sum(n.verdict is Verdict.FAIL
                                                 for n in report.nodes)))
    for node in report.nodes:
        case = ElementTree.SubElement(suite, "testcase", classname=f"validate.{report.kind}",
                                      name=node.host)
        text = "\n".join(f"{f.check}: {f.message}" for f in node.findings)
        if node.verdict is Verdict.FAIL:
            ElementTree.SubElement(case, "failure", message=text.splitlines()[0]).text = text
        ElementTree.SubElement(case, "system-out").text = "\n".join(
            [_metrics_line(node), *node.notes, *([text] if node.verdict is Verdict.WARN else [])])
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def _metric_name(key: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_]", "_", key)


def render_prometheus(report: ValidationReport) -> str:
    """Node-exporter textfile: a verdict gauge per host and every numeric metric."""
    lines = [f"# HELP vfix_validate_verdict 0 PASS, 1 WARN, 2 FAIL ({report.kind})",
             "# TYPE vfix_validate_verdict gauge"]
    level = {Verdict.PASS: 0, Verdict.WARN: 1, Verdict.FAIL: 2}
    for node in report.nodes:
        lines.append(f'vfix_validate_verdict{{kind="{report.kind}",host="{node.host}"}} '
                     f"{level[node.verdict]}")
    lines += ["# HELP vfix_validate_metric numbers measured by the validation",
              "# TYPE vfix_validate_metric gauge"]
    for node in report.nodes:
        for key, value in node.metrics.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            lines.append(f'vfix_validate_metric{{kind="{report.kind}",host="{node.host}",'
                         f'name="{_metric_name(key)}"}} {value}')
    return "\n".join(lines) + "\n"


def render_html(report: ValidationReport) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(n.host)}</td><td class='{n.verdict.value}'>{n.verdict.value}</td>"
        f"<td>{html.escape(_metrics_line(n))}</td><td><ul>"
        + "".join(f"<li>{html.escape(f.severity.value)} <code>{html.escape(f.check)}</code>: "
                  f"{html.escape(f.message)}</li>" for f in n.findings)
        + "".join(f"<li>note: {html.escape(note)}</li>" for note in n.notes)
        + "</ul></td></tr>" for n in report.nodes)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>vfix validate "
            f"{report.kind}</title><style>.PASS{{color:green}}.WARN{{color:orange}}"
            f".FAIL{{color:red}}td{{vertical-align:top}}</style></head><body>"
            f"<h1>vfix validate {html.escape(report.kind)}</h1><table border='1'>"
            f"<tr><th>host</th><th>verdict</th><th>numbers</th><th>findings</th></tr>{rows}"
            f"</table></body></html>\n")


RENDERERS: dict[Format, Callable[[ValidationReport], str]] = {
    Format.TABLE: render_table,
    Format.JSON: render_json,
    Format.MARKDOWN: render_markdown,
    Format.JUNIT: render_junit,
    Format.PROMETHEUS: render_prometheus,
    Format.HTML: render_html,
}


def render_report(report: ValidationReport, fmt: Format, color: bool = False) -> str:
    if fmt is Format.TABLE:
        return render_table(report, color=color)
    return RENDERERS[fmt](report)
