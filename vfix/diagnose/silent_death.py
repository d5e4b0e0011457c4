"""vLLM's engine core died without a word of its own: killed by a signal.

The front end says "Engine core initialization failed. See root cause above" (at start-up) or
"EngineDeadError: EngineCore encountered an issue. See stack trace (above)" (while serving), or
the executor "WorkerProc initialization failed due to an exception in a background process" (a
worker it started ended before it was ready), but nothing printed an error above it: Python
never saw the end, so a signal killed the process. On GPU hosts that is most often the kernel
OOM killer (host RAM, a container's memory limit). Since vLLM 0.10 the front end names the
exit code of each engine that died ("Failed core proc(s): {'EngineCore_DP0': -7}", minus the
signal's number): a SIGBUS (7) is a shared-memory mapping past the end of a full /dev/shm (the
engine's message queues live there; Docker gives it 64 MiB).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vfix.diagnose.model import Candidate, Evidence, FixStep

MARKERS = ("Engine core initialization failed", "EngineDeadError: EngineCore encountered an issue",
           "WorkerProc initialization failed")
CONFIDENCE = 0.4
_SIGBUS = re.compile(r"Failed core proc\(s\): \{[^}]*: -7\b")


def killed_candidate(report: Sequence[Evidence]) -> Candidate:
    """What killed the engine, from the front end's report (its lines)."""
    bus_error = next((e for e in report if _SIGBUS.search(e.text)), None)
    if bus_error is not None:
        return _killed(
            bus_error, "shm_too_small",
            explanation=("The engine core was killed by SIGBUS (exit code -7) without printing an "
                         "error: a shared-memory mapping ran past the end of /dev/shm, which is "
                         "too small (Docker's default is 64 MiB) for vLLM's message queues."),
            fix=FixStep("Give the container a larger /dev/shm: docker --ipc=host or "
                        "--shm-size 16g; a Kubernetes emptyDir of medium Memory on /dev/shm.",
                        "shm"),
            check_next=("df -h /dev/shm inside the container",))
    return _killed(
        report[0], "host_oom_killed",
        explanation=("The engine core process died without printing an error (nothing precedes "
                     "the front end's report): a signal killed it, most often the kernel OOM "
                     "killer (host RAM or the container's memory limit)."),
        fix=FixStep("Check the kernel log and the container's memory events for an OOM kill; "
                    "give the host/container more RAM or lower CPU-side memory (swap space, "
                    "parallel loading).", None),
        check_next=("dmesg -T | grep -i 'killed process'; the memory.events of the container's "
                    "cgroup (oom_kill)",
                    "df -h /dev/shm: a SIGBUS from a full /dev/shm kills it just as silently"))


def _killed(evidence: Evidence, root_cause: str, explanation: str, fix: FixStep,
            check_next: tuple[str, ...]) -> Candidate:
    return Candidate(layer="resources", root_cause=root_cause, confidence=CONFIDENCE,
                     evidence=(evidence,), explanation=explanation, fix=(fix,),
                     check_next=check_next, signature="engine-core-died-silently", kind="cause",
                     matches=1)
