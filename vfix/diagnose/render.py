"""Renders diagnoses as a table (rich), JSON (result.schema.json) or Markdown."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import StrEnum

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from vfix.diagnose.model import Candidate, Diagnosis, Evidence, NcclSummary

_EVIDENCE_CHARS = 220


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"


def _short(evidence: Evidence) -> str:
    text = evidence.text if len(evidence.text) <= _EVIDENCE_CHARS else \
        evidence.text[: _EVIDENCE_CHARS - 1] + "…"
    who = f" [{evidence.source}]" if evidence.source else ""
    return f"L{evidence.line}{who}: {text}"


def _channel_line(channels: dict[str, list[str]]) -> str:
    """'00-03 P2P/IPC; 04 NET/IB+SHM': runs of channels that use the same transports."""
    runs: list[tuple[str, str, str]] = []
    for channel, transports in channels.items():
        label = "+".join(transports)
        if runs and runs[-1][2] == label and int(channel) == int(runs[-1][1]) + 1:
            runs[-1] = (runs[-1][0], channel, label)
        else:
            runs.append((channel, channel, label))
    parts = [f"{a}-{b} {t}" if a != b else f"{a} {t}" for a, b, t in runs]
    return "; ".join(parts) or "none logged"


def _nccl_lines(summary: NcclSummary) -> list[str]:
    ib = {True: "found " + ", ".join(summary.ib_devices), False: "not found", None: "not reported"}
    transports = ", ".join(f"{k} x{v}" for k, v in summary.transports.items()) or "none logged"
    lines = [
        f"NCCL {summary.version or '?'} (cudaDriverVersion {summary.cuda_driver or '?'}), "
        f"network {summary.network or '?'}",
        f"IB: {ib[summary.ib_found]}; interfaces: {', '.join(summary.interfaces) or '?'}",
        f"channel connections per transport: {transports}",
        f"channels: {_channel_line(summary.channels)}",
        f"ranks init started {summary.ranks_started}, completed {summary.ranks_completed}"
        + (f" (communicators of up to {summary.communicator_size} ranks)"
           if summary.communicator_size else ""),
    ]
    if summary.last_line:
        lines.append("log stops at " + _short(summary.last_line))
    lines.extend("WARN " + _short(w) for w in summary.warnings[:3])
    return lines


def failing_input(diagnoses: Sequence[Diagnosis]) -> Diagnosis | None:
    """Among several inputs (per-rank files), the one whose own cause ranks best.

    Inputs that only show consequences (timeouts, dead peers) are where the failure arrived,
    not where it started.
    """
    causes = [d for d in diagnoses if d.candidates and d.candidates[0].kind == "cause"]
    return max(causes, key=lambda d: d.candidates[0].confidence, default=None)


def _across_inputs(diagnoses: Sequence[Diagnosis]) -> str | None:
    if len(diagnoses) < 2 or not (first := failing_input(diagnoses)):
        return None
    return f"first failing input: {first.input} ({first.root_cause}); others show what followed"


def render_json(diagnoses: Sequence[Diagnosis]) -> str:
    return json.dumps([d.to_dict() for d in diagnoses], indent=2)


def _candidate_markdown(number: int, candidate: Candidate) -> list[str]:
    out = [
        f"### {number}. `{candidate.root_cause}` ({candidate.layer}, {candidate.kind}, "
        f"confidence {candidate.confidence:.2f})",
        "",
        candidate.explanation,
        "",
        "Evidence:",
        "",
    ]
    out += [f"- `{_short(e)}`" for e in candidate.evidence]
    if candidate.fix:
        out += ["", "Fix:", ""]
        out += [f"- {s.step}" + (f" (vfix role `{s.role}`)" if s.role else "")
                for s in candidate.fix]
    if candidate.check_next:
        out += ["", "Check next:", ""] + [f"- {c}" for c in candidate.check_next]
    return [*out, ""]


def render_markdown(diagnoses: Sequence[Diagnosis]) -> str:
    out: list[str] = []
    for d in diagnoses:
        out += [f"## {d.input}: {d.status.value} — `{d.root_cause}`"
                + (f" ({d.layer})" if d.layer else ""), ""]
        if d.note:
            out += [d.note, ""]
        if d.first_failure:
            out += [f"First failure: `{_short(d.first_failure)}`", ""]
        for number, candidate in enumerate(d.candidates, 1):
            out += _candidate_markdown(number, candidate)
        if d.suspicious and not d.candidates:
            out += ["Most suspicious lines:", ""] + [f"- `{_short(e)}`" for e in d.suspicious]
            out.append("")
        if d.nccl:
            out += ["NCCL:", ""] + [f"- {line}" for line in _nccl_lines(d.nccl)] + [""]
    if summary := _across_inputs(diagnoses):
        out.append(summary.capitalize())
    return "\n".join(out)


def print_table(diagnoses: Sequence[Diagnosis], console: Console) -> None:
    """A ranked table of candidates, then the top candidate's evidence, fix and next checks."""
    for d in diagnoses:
        layer = f" ({d.layer})" if d.layer else ""
        title = f"{d.input}: {d.status.value} — {d.root_cause}{layer}"
        console.print(f"[bold]{escape(title)}[/bold]  [dim]{d.lines} lines[/dim]")
        if d.note:
            console.print(d.note, markup=False)
        if d.first_failure:
            console.print("first failure: " + _short(d.first_failure), markup=False)
        if d.candidates:
            table = Table()
            for column in ("#", "layer", "root cause", "kind", "conf", "lines"):
                table.add_column(column)
            for number, c in enumerate(d.candidates, 1):
                table.add_row(str(number), c.layer, c.root_cause, c.kind, f"{c.confidence:.2f}",
                              ", ".join(str(e.line) for e in c.evidence))
            console.print(table)
            top = d.candidates[0]
            console.print(top.explanation, markup=False)
            for evidence in top.evidence[:3]:
                console.print("  evidence " + _short(evidence), markup=False)
            for step in top.fix:
                console.print("  fix: " + step.step + (f" (vfix role {step.role})" if step.role
                                                      else ""), markup=False)
            for check in top.check_next:
                console.print("  check next: " + check, markup=False)
        elif d.suspicious:
            console.print("most suspicious lines:")
            for evidence in d.suspicious:
                console.print("  " + _short(evidence), markup=False)
        if d.nccl:
            for line in _nccl_lines(d.nccl):
                console.print("nccl: " + line, markup=False)
        console.print()
    if summary := _across_inputs(diagnoses):
        console.print(summary, markup=False)


def render(diagnoses: Sequence[Diagnosis], fmt: Format, console: Console) -> None:
    writers: dict[Format, Callable[[], None]] = {
        Format.JSON: lambda: print(render_json(diagnoses)),
        Format.MARKDOWN: lambda: print(render_markdown(diagnoses)),
        Format.TABLE: lambda: print_table(diagnoses, console),
    }
    writers[fmt]()
