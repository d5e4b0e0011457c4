"""Ranks of one job that found their GPU busy.

A GPU in EXCLUSIVE_PROCESS compute mode takes one process. When ranks of a job other than its
first one get "CUDA-capable device(s) is/are busy or unavailable", and rank 0 does not, the
earlier ranks took the GPUs first and the later ones landed on GPUs already taken: ranks
sharing a GPU (the local rank not used to pick the device, more tasks than GPUs), not a
leftover process of another job, which would stop rank 0 as well (and is the cause when
nvidia-smi lists an orphan on the GPUs).
"""

from __future__ import annotations

import re

from vfix.diagnose.model import Candidate

_BUSY = re.compile(r"\bdevices?(?:\(s\))? (?:is/are|are|is) busy or unavailable")
_RANK = re.compile(r"^rank(\d+)$")  # the source the scanner gives "[rank4]: ..." lines
_MIN_RANKS = 2


def ranks_sharing_gpus(top: Candidate, orphan_listed: bool) -> Candidate | None:
    """duplicate_gpu_assignment for a busy-device failure (`top`) that two or more ranks of
    the job hit, none of them rank 0, when no orphan is listed on the GPUs."""
    if top.root_cause != "stale_gpu_process" or orphan_listed:
        return None
    busy = [evidence for evidence in top.evidence if _BUSY.search(evidence.text)]
    ranks = {int(found[1]) for evidence in busy
             if evidence.source and (found := _RANK.match(evidence.source))}
    if len(ranks) < _MIN_RANKS or 0 in ranks:
        return None
    return Candidate.rule_cause(
        "ranks-found-their-gpu-busy", "visibility", "duplicate_gpu_assignment", top.confidence,
        tuple(busy[:3]),
        explanation=(f"Ranks {', '.join(map(str, sorted(ranks)))} found their GPU busy while "
                     "rank 0 did not: in EXCLUSIVE_PROCESS compute mode a GPU takes one "
                     "process, so these ranks landed on GPUs that earlier ranks of the same "
                     "job had taken (each rank's device not set from its local rank, or more "
                     "tasks per node than GPUs)."),
        fix=("Give each rank its own GPU: torch.cuda.set_device(LOCAL_RANK) before any CUDA "
             "call, as many tasks per node as GPUs (--ntasks-per-node = --gpus-per-node), or "
             "--gpu-bind=single:1 under Slurm."),
        check="nvidia-smi --query-gpu=index,compute_mode --format=csv; the job's tasks per "
              "node against its GPUs per node")
