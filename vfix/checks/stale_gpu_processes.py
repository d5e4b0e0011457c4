from __future__ import annotations

import re
from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.facts.model import GpuProcess
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

GPU_DEVICE = re.compile(r"^/dev/nvidia\d+$")
PROCESS_SOURCE = "nvidia-smi --query-compute-apps, /proc/<pid>/{stat,cmdline,fd}"


def _any_match(patterns: list[str], text: str) -> bool:
    return any(re.search(pattern, text) for pattern in patterns)


def held_mib(process: GpuProcess) -> int:
    return sum(process.gpu_memory_mib.values())


def describe(process: GpuProcess) -> str:
    memory = held_mib(process)
    parent = "dead" if process.parent_alive is False else (process.parent_cmdline or "?")
    return (
        f"pid {process.pid} ppid {process.ppid} user {process.user} {memory} MiB "
        f"parent: {parent} cmd: {process.cmdline[:160]}"
    )


def why_stale(process: GpuProcess, server_alive: bool,
              workers: list[str]) -> tuple[str, str, str] | None:
    """(sub-id, message, expected) when PROCESS is stale, None when it is not."""
    memory = held_mib(process)
    holds_gpu = memory > 0 or any(GPU_DEVICE.match(d) for d in process.devices)
    if process.parent_alive is False and holds_gpu:
        return ("orphan", f"pid {process.pid} holds a GPU ({memory} MiB) and its parent died",
                "no orphaned GPU holders")
    orphaned = process.parent_alive is False or process.ppid == 1
    if orphaned and not server_alive and _any_match(workers, process.cmdline):
        return ("orphan-worker",
                f"pid {process.pid} is a vLLM/Ray worker with no live server ({memory} MiB held)",
                "no orphaned workers")
    return None


class StaleGpuProcesses(Check):
    """No orphaned process holds a GPU, and no vLLM/Ray worker outlives its server."""

    id = "stale-gpu-processes"
    layer = Layer.RESOURCES
    severity = Severity.ERROR
    tags = ("gpu", "processes")
    remediation = Remediation(role="gpu_processes")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        protected = list(subject.settings.value("protected") or [])
        workers = list(subject.settings.value("worker_patterns") or [])
        servers = list(subject.settings.value("server_patterns") or [])
        processes = subject.facts.processes.gpu
        server_alive = any(_any_match(servers, p.cmdline) for p in processes)
        fix = Remediation(
            role="gpu_processes",
            vars={
                "gpu_processes_terminate": True,
                "gpu_processes_worker_patterns": workers,
                "gpu_processes_server_patterns": servers,
                "gpu_processes_protected_patterns": protected,
            },
        )
        for process in processes:
            if _any_match(protected, process.cmdline) or _any_match(servers, process.cmdline):
                continue  # system services and live vLLM servers are never stale
            stale = why_stale(process, server_alive, workers)
            if stale is None:
                continue
            sub, message, expected = stale
            yield self.finding(
                subject,
                message,
                sub=sub,
                expected=expected,
                observed=f"pid {process.pid}",
                evidence=[Evidence(source=PROCESS_SOURCE, lines=[describe(process)])],
                remediation=fix,
                severity=Severity.ERROR if held_mib(process) else Severity.WARNING,
            )
