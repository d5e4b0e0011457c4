"""vLLM's engine core died without a word of its own: killed by a signal.

The front end says "Engine core initialization failed. See root cause above" (at start-up) or
"EngineDeadError: EngineCore encountered an issue. See stack trace (above)" (while serving), or
the executor "WorkerProc initialization failed due to an exception in a background process" (a
worker it started ended before it was ready), but nothing printed an error above it: Python
never saw the end, so a signal killed the process. On GPU hosts that is most often the kernel
OOM killer (host RAM, a container's memory limit).
"""

from __future__ import annotations

from vfix.diagnose.model import Candidate, Evidence, FixStep

MARKERS = ("Engine core initialization failed", "EngineDeadError: EngineCore encountered an issue",
           "WorkerProc initialization failed")
CONFIDENCE = 0.4


def killed_candidate(front_end: Evidence) -> Candidate:
    return Candidate(
        layer="resources",
        root_cause="host_oom_killed",
        confidence=CONFIDENCE,
        evidence=(front_end,),
        explanation=("The engine core process died without printing an error (nothing precedes "
                     "the front end's report): a signal killed it, most often the kernel OOM "
                     "killer (host RAM or the container's memory limit)."),
        fix=(FixStep("Check the kernel log and the container's memory events for an OOM kill; "
                     "give the host/container more RAM or lower CPU-side memory (swap space, "
                     "parallel loading).", None),),
        check_next=("dmesg -T | grep -i 'killed process'; the memory.events of the container's "
                    "cgroup (oom_kill)",
                    "df -h /dev/shm: a SIGBUS from a full /dev/shm kills it just as silently"),
        signature="engine-core-died-silently",
        kind="cause",
        matches=1,
    )
