"""The terminal report, built for fleets: summary first, then every failing host on its own line,
then findings grouped by (check, severity) per layer with host counts and compact host lists.

Plain text assembled directly: a rich table per finding took ~10 s at 1,000 hosts (column
measuring and wrapping of every cell); this stays near the JSON report's time.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

from vfix.audit.engine import AuditResult
from vfix.findings import Finding
from vfix.formats.base import layers_in_order, summary
from vfix.formats.hostlist import compact_hosts
from vfix.vocabulary import Severity, Verdict

ANSI = {"bold red": "\x1b[1;31m", "yellow": "\x1b[33m", "green": "\x1b[32m", "dim": "\x1b[2m"}
SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}
VERDICT_STYLE = {Verdict.FAIL: "bold red", Verdict.WARN: "yellow", Verdict.PASS: "green"}
MESSAGES_SHOWN = 5  # distinct messages per group; the rest are counted (json has every one)


class TableFormatter:
    """For people: the fleet summary, failing hosts, then findings by layer in triage order."""

    media_type: ClassVar[str] = "text/plain"

    def __init__(self, color: bool = False, width: int = 120) -> None:
        self.color = color
        self.width = width

    def render(self, result: AuditResult) -> str:
        lines = [*self._summary(result), ""]
        lines += self._hosts(result)
        check_width = max((len(f.check) for f in result.findings), default=0)
        for layer in layers_in_order():
            findings = [f for f in result.findings if f.layer is layer]
            if findings:
                lines += ["", f"{layer.value} ({len(findings)} finding(s))"]
                lines += self._groups(findings, check_width)
        return "\n".join(lines) + "\n"

    def _paint(self, text: str, style: str) -> str:
        return f"{ANSI[style]}{text}\x1b[0m" if self.color else text

    def _wrap(self, text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, self.width, initial_indent=indent,
                             subsequent_indent=indent + "  ", break_on_hyphens=False) or [indent]

    def _summary(self, result: AuditResult) -> list[str]:
        totals = summary(result)
        skipped = f" ({totals['hosts_skipped']} not reachable)" if totals["hosts_skipped"] else ""
        return [f"{len(result.verdicts)} host(s): {totals['hosts_pass']} PASS, "
                f"{totals['hosts_warn']} WARN, {totals['hosts_fail']} FAIL{skipped}; "
                f"policy: {result.policy_source}",
                f"{len(result.findings)} finding(s): {totals['findings_error']} error, "
                f"{totals['findings_warning']} warning, {totals['findings_info']} info"]

    def _host_list(self, head: str, hosts: Sequence[str], indent: str) -> list[str]:
        """`head` then the compact host list, broken only after a comma (never inside a
        name or range, so each line can be copied as it is)."""
        pieces = re.findall(r"[^,]+,?", ", ".join(compact_hosts(hosts)))
        lines, line = [], f"{indent}{head}"
        for piece in pieces:
            if len(line) + len(piece) > self.width and line.strip():
                lines.append(line.rstrip())
                line = indent + "  " + piece.lstrip()
            else:
                line += piece
        return [*lines, line.rstrip()]

    def _hosts(self, result: AuditResult) -> list[str]:
        """Each FAIL host with why (its errors, or why it was not audited); WARN and PASS
        hosts as compact lists."""
        skipped = {s.host: s.reason for s in result.skipped}
        by_verdict: dict[Verdict, list[str]] = {v: [] for v in Verdict}
        for host, verdict in result.verdicts.items():
            by_verdict[verdict].append(host)
        failing = by_verdict[Verdict.FAIL]
        lines = [f"{self._paint('FAIL', VERDICT_STYLE[Verdict.FAIL])} ({len(failing)} host(s))"]
        name_width = max((len(h) for h in failing), default=0)
        for host in failing:
            if host in skipped:
                why = f"not audited: {skipped[host]}"
            else:
                mine = result.findings_for(host)
                counts = Counter(f.severity for f in mine)
                errors = dict.fromkeys(f.check for f in mine if f.severity is Severity.ERROR)
                why = (f"{counts[Severity.ERROR]} error / {counts[Severity.WARNING]} warning / "
                       f"{counts[Severity.INFO]} info: {', '.join(errors)}")
            lines += self._wrap(f"{host:<{name_width}}  {why}", "  ")
        for verdict in (Verdict.WARN, Verdict.PASS):
            hosts = by_verdict[verdict]
            head = f"{self._paint(verdict.value, VERDICT_STYLE[verdict])} ({len(hosts)} host(s))"
            lines += self._host_list(f"{head}: ", hosts, "") if hosts else [head]
        return lines

    def _groups(self, findings: Sequence[Finding], check_width: int) -> list[str]:
        """One entry per (check, severity): host count, fix, hosts, then the distinct messages."""
        groups: dict[tuple[str, Severity], list[Finding]] = {}
        for finding in findings:
            groups.setdefault((finding.check, finding.severity), []).append(finding)
        order = sorted(groups, key=lambda k: (-k[1].rank, -len(groups[k]), k[0]))
        lines = []
        for check, severity in order:
            members = groups[(check, severity)]
            roles = ", ".join(dict.fromkeys(f.remediation.role for f in members))
            hosts = list(dict.fromkeys(f.host for f in members))
            label = self._paint(f"{severity.value:<7}", SEVERITY_STYLE[severity])
            lines.append(f"  {label}  {check:<{check_width}}  {len(hosts):>5} host(s)  "
                         f"fix: {roles}")
            lines += self._host_list("hosts: ", hosts, " " * 11)
            lines += self._messages(members)
        return lines

    def _messages(self, members: Sequence[Finding]) -> list[str]:
        by_message: dict[str, list[str]] = {}
        for finding in members:
            by_message.setdefault(finding.message, []).append(finding.host)
        shown = list(by_message.items())[:MESSAGES_SHOWN]
        lines = []
        for message, hosts in shown:
            where = ", ".join(compact_hosts(hosts))
            if len(by_message) == 1:
                lines += self._wrap(message, " " * 11)
            elif len(where) <= self.width // 3:
                lines += self._wrap(f"{where}: {message}", " " * 11)
            else:  # a long host list on its own lines, the message below it
                lines += self._host_list("", hosts, " " * 11)
                lines[-1] += ":"
                lines += self._wrap(message, " " * 13)
        rest = len(by_message) - len(shown)
        if rest:
            unshown = list(by_message.values())[MESSAGES_SHOWN:]
            hidden = len({host for hosts in unshown for host in hosts})
            lines.append(f"{' ' * 11}… {rest} more message(s) on {hidden} host(s) "
                         f"(--format json or markdown has every one)")
        return lines
