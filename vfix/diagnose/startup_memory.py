"""vLLM's start-up memory check: did another process take the memory, or did the flag ask too much?

"Free memory on device cuda:0 (F/T GiB) on startup is less than desired GPU memory utilization
(U, R GiB)" reads as another process holding the GPU. But when nearly all of the GPU is free,
nothing else holds it: the CUDA context, the driver and the job's own communicators took the
rest, and --gpu-memory-utilization asks for more than an empty GPU gives.
"""

from __future__ import annotations

import re

from vfix.diagnose.model import Candidate, FixStep

TAKEN_SIGNATURE = "gpu-memory-taken"
# at least this share of the GPU free: no other process worth naming holds it
NEARLY_ALL_FREE = 0.95
_FREE_OF_TOTAL = re.compile(r"Free memory on device \S+ \((?P<free>\d+(?:\.\d+)?)/"
                            r"(?P<total>\d+(?:\.\d+)?) GiB\) on startup is less than")


def asked_too_much(taken: Candidate) -> Candidate | None:
    """The utilization answer when `taken` (the memory-taken candidate) quotes a GPU that was
    nearly all free; None otherwise."""
    if taken.signature != TAKEN_SIGNATURE:
        return None
    for evidence in taken.evidence:
        found = _FREE_OF_TOTAL.search(evidence.text)
        if found is None:
            continue
        free, total = float(found["free"]), float(found["total"])
        if total <= 0 or free / total < NEARLY_ALL_FREE:
            return None
        return Candidate(
            layer="resources",
            root_cause="gpu_memory_utilization_too_high",
            confidence=taken.confidence,
            evidence=(evidence,),
            explanation=(f"{free:g} of {total:g} GiB were free when vLLM started: no other "
                         "process holds this GPU. --gpu-memory-utilization asks for more than "
                         "an empty GPU gives; the CUDA context, the driver and the job's own "
                         "communicators keep the rest."),
            fix=(FixStep("Lower --gpu-memory-utilization below the free share (for example "
                         f"{_below(free / total)}).", None),),
            check_next=("nvidia-smi --query-compute-apps=pid,used_memory --format=csv: no "
                        "other process should be listed",),
            signature="gpu-memory-utilization-above-free",
            kind="cause",
            matches=taken.matches,
        )
    return None


def _below(free_share: float) -> str:
    """A utilization a little under the free share, rounded down to two decimals."""
    return f"{int(free_share * 100 - 2) / 100:.2f}"
