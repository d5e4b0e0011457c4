from __future__ import annotations

import re
from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


class PortsInUse(Check):
    """The ports vLLM, torch.distributed and Ray need are free, or held by vLLM/Ray themselves."""

    id = "ports-in-use"
    layer = Layer.RESOURCES
    severity = Severity.WARNING
    tags = ("ports", "network")
    remediation = Remediation.by_hand(
        "Stop the process holding the port (see the evidence), or move vLLM/Ray to other ports "
        "(--port, MASTER_PORT, ray start --port) consistently on every node."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        wanted = {int(port) for port in subject.settings.value("ports") or []}
        owners = list(subject.settings.value("allowed_owners") or [])
        for listener in subject.facts.processes.listening:
            if listener.port not in wanted:
                continue
            holder = listener.process or "unknown process"
            if any(re.search(pattern, holder) for pattern in owners):
                continue
            yield self.finding(
                subject,
                f"port {listener.port}/{listener.protocol} is taken by {holder}",
                sub="taken",
                expected=f"port {listener.port} free",
                observed=f"{holder} (pid {listener.pid})",
                evidence=[
                    Evidence(
                        source="ss -ltnp",
                        lines=[
                            f"{listener.protocol} {listener.address}:{listener.port} "
                            f"pid={listener.pid} {holder}"
                        ],
                    )
                ],
            )
