from __future__ import annotations

import re
from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.facts.model import GpuProcess
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


def _any_match(patterns: list[str], text: str) -> bool:
    return any(re.search(pattern, text) for pattern in patterns)


def describe(process: GpuProcess) -> str:
    memory = sum(process.gpu_memory_mib.values())
    parent = "dead" if process.parent_alive is False else (process.parent_cmdline or "?")
    return (
        f"pid {process.pid} ppid {process.ppid} user {process.user} {memory} MiB "
        f"parent: {parent} cmd: {process.cmdline[:160]}"
    )


class StaleGpuProcesses(Check):
    """No orphaned process holds GPU memory, and no vLLM/Ray worker outlives its engine."""

    id = "stale-gpu-processes"
    layer = Layer.RESOURCES
    severity = Severity.ERROR
    tags = ("gpu", "processes")
    remediation = Remediation(role="gpu_processes")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        protected = list(subject.settings.value("protected") or [])
        workers = list(subject.settings.value("worker_patterns") or [])
        for process in subject.facts.processes.gpu:
            if _any_match(protected, process.cmdline):
                continue  # persistence daemon, DCGM, fabric manager, Xorg: never stale
            memory = sum(process.gpu_memory_mib.values())
            orphaned = process.parent_alive is False or process.ppid == 1
            evidence = [
                Evidence(
                    source="nvidia-smi --query-compute-apps + /proc", lines=[describe(process)]
                )
            ]
            fix = Remediation(
                role="gpu_processes",
                vars={
                    "gpu_processes_terminate": True,
                    "gpu_processes_worker_patterns": workers,
                    "gpu_processes_protected_patterns": protected,
                },
            )
            if process.parent_alive is False and memory > 0:
                yield self.finding(
                    subject,
                    f"pid {process.pid} holds {memory} MiB of GPU memory; its parent died",
                    sub="orphan",
                    expected="no orphaned GPU memory holders",
                    observed=f"pid {process.pid}",
                    evidence=evidence,
                    remediation=fix,
                )
            elif orphaned and _any_match(workers, process.cmdline):
                yield self.finding(
                    subject,
                    f"pid {process.pid} is a vLLM/Ray worker whose engine is gone "
                    f"({memory} MiB held)",
                    sub="orphan-worker",
                    expected="no orphaned workers",
                    observed=f"pid {process.pid}",
                    evidence=evidence,
                    remediation=fix,
                    severity=Severity.ERROR if memory else Severity.WARNING,
                )
