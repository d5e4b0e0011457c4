from __future__ import annotations

from typing import ClassVar

from vfix.audit.engine import AuditResult
from vfix.formats.base import layers_in_order, summary


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


class MarkdownFormatter:
    """For tickets and pull requests: verdict table, then findings by layer with evidence."""

    media_type: ClassVar[str] = "text/markdown"

    def render(self, result: AuditResult) -> str:
        totals = summary(result)
        lines = [
            "# vfix audit",
            "",
            f"Policy: `{result.policy_source}`. Hosts: {totals['hosts_pass']} PASS, "
            f"{totals['hosts_warn']} WARN, {totals['hosts_fail']} FAIL.",
            "",
            "| host | verdict | findings |",
            "|---|---|---|",
        ]
        skipped = {s.host: s.reason for s in result.skipped}
        for host, verdict in result.verdicts.items():
            count = skipped.get(host) or str(len(result.findings_for(host)))
            lines.append(f"| {cell(host)} | {verdict.value} | {cell(count)} |")
        for layer in layers_in_order():
            findings = [f for f in result.findings if f.layer is layer]
            if not findings:
                continue
            lines += ["", f"## {layer.value}", ""]
            for f in findings:
                lines.append(f"- **{f.severity.value}** `{f.check}` on `{f.host}`: {f.message}")
                if f.expected is not None or f.observed is not None:
                    lines.append(f"  - expected `{f.expected}`, observed `{f.observed}`")
                for evidence in f.evidence:
                    lines.append(f"  - evidence from `{evidence.source}`:")
                    lines += [f"    `{cell(line)}`" for line in evidence.lines[:10]]
                fix = f.remediation
                lines.append(
                    f"  - fix: role `{fix.role}` {fix.vars if fix.vars else ''}".rstrip()
                    if not fix.is_manual
                    else f"  - fix (manual): {fix.manual}"
                )
        return "\n".join(lines) + "\n"
