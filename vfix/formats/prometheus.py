from __future__ import annotations

from collections import Counter
from typing import ClassVar

from vfix.audit.engine import AuditResult
from vfix.vocabulary import Severity, Verdict


def label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class PrometheusFormatter:
    """node-exporter textfile collector format: verdicts, finding counts and each finding."""

    media_type: ClassVar[str] = "text/plain; version=0.0.4"

    def render(self, result: AuditResult) -> str:
        lines = [
            "# HELP vfix_audit_verdict Node verdict of the last vfix audit (1 marks the verdict).",
            "# TYPE vfix_audit_verdict gauge",
        ]
        for host, verdict in result.verdicts.items():
            for candidate in Verdict:
                value = 1 if candidate is verdict else 0
                labels = f'host="{label(host)}",verdict="{candidate.value}"'
                lines.append(f"vfix_audit_verdict{{{labels}}} {value}")
        lines += [
            "# HELP vfix_audit_findings Findings per host and severity.",
            "# TYPE vfix_audit_findings gauge",
        ]
        counts = Counter((f.host, f.severity) for f in result.findings)
        for host in result.verdicts:
            for severity in Severity:
                lines.append(
                    f'vfix_audit_findings{{host="{label(host)}",severity="{severity.value}"}} '
                    f"{counts.get((host, severity), 0)}"
                )
        lines += [
            "# HELP vfix_audit_finding Findings per host, check, layer and severity.",
            "# TYPE vfix_audit_finding gauge",
        ]
        series = Counter(
            (f.host, f.check, f.layer.value, f.severity.value) for f in result.findings
        )
        for (host, check, layer_name, severity_name), count in series.items():
            lines.append(
                f'vfix_audit_finding{{host="{label(host)}",check="{label(check)}",'
                f'layer="{layer_name}",severity="{severity_name}"}} {count}'
            )
        return "\n".join(lines) + "\n"
