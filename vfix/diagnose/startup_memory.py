"""Whose GPU memory was it: another process's, or did the job ask too much?

vLLM's start-up check, "Free memory on device cuda:0 (F/T GiB) on startup is less than desired
GPU memory utilization (U, R GiB)", reads as another process holding the GPU. But when nearly
all of the GPU is free, nothing else holds it: the CUDA context, the driver and the job's own
communicators took the rest, and --gpu-memory-utilization asks for more than an empty GPU gives.

Conversely, torch's out-of-memory message lists who holds the GPU ("Process 8308 has 122.51 GiB
memory in use ... this process has 12.79 GiB"): when another process holds a quarter of it or
more, the memory this job sized for was taken, whatever else the job asked for.
"""

from __future__ import annotations

import re

from vfix.diagnose.model import Candidate, Evidence

TAKEN_SIGNATURE = "gpu-memory-taken"
# at least this share of the GPU free: no other process worth naming holds it
NEARLY_ALL_FREE = 0.95
# torch's CUDA OOM message: the GPU's capacity ("capacty" in torch 2.1), the processes on it,
# and this process's share ("this process has"; older releases give only what PyTorch
# allocated and reserved)
_TORCH_OOM = re.compile(r"total capac\w* of (?P<total>[\d.]+) GiB of which .*?"
                        r"(?P<others>(?:Process \d+ has [\d.]+ [KMG]iB memory in use\. ?)+)")
_OWN = re.compile(r"this process has (?P<own>[\d.]+) (?P<own_unit>[KMG]iB)"
                  r"|Of the allocated memory (?P<allocated>[\d.]+) (?P<allocated_unit>[KMG]iB) is "
                  r"allocated by PyTorch, and (?P<reserved>[\d.]+) (?P<reserved_unit>[KMG]iB)")
# what torch's message says was free; without the process list (from a container it sees none
# of the host's), what is neither free nor this process's is held by others
_FREE = re.compile(r"total capac\w* of (?P<total>[\d.]+) GiB of which (?P<free>[\d.]+) "
                   r"(?P<free_unit>[KMG]iB) is free")
_PROCESS = re.compile(r"Process (?P<pid>\d+) has (?P<size>[\d.]+) (?P<unit>[KMG]iB)")
# another process holding this share of the GPU or more took what the job sized for
TAKEN_SHARE = 0.25
_GIB = {"KiB": 1 / 2**20, "MiB": 1 / 2**10, "GiB": 1.0}
_FREE_OF_TOTAL = re.compile(r"Free memory on device (?:\S+ )?\((?P<free>\d+(?:\.\d+)?)/"
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
        return Candidate.rule_cause(
            "gpu-memory-utilization-above-free", "resources", "gpu_memory_utilization_too_high",
            taken.confidence, (evidence,),
            explanation=(f"{free:g} of {total:g} GiB were free when vLLM started: no other "
                         "process holds this GPU. --gpu-memory-utilization asks for more than "
                         "an empty GPU gives; the CUDA context, the driver and the job's own "
                         "communicators keep the rest."),
            fix=("Lower --gpu-memory-utilization below the free share (for example "
                 f"{_below(free / total)})."),
            check=("nvidia-smi --query-compute-apps=pid,used_memory --format=csv: no other "
                   "process should be listed"),
            matches=taken.matches)
    return None


# what a job that ran out of GPU memory may be taken for when another process took the memory
# (not a cause that explains who took it: two ranks on one GPU, a launcher's dropped pin)
_OUT_OF_MEMORY = frozenset({"gpu_oom", "gpu_oom_weights", "stale_gpu_process",
                            "gpu_memory_utilization_too_high", "kv_cache_insufficient",
                            "cudagraph_capture_oom"})


def held_by_another(failure: Candidate) -> Candidate | None:
    """Other processes as the cause when `failure` quotes torch's out-of-memory message with
    other processes holding a quarter of the GPU or more between them (one large leftover, or
    several jobs sharing the GPU). torch lists every process on the GPU,
    this one too (in a container under a PID of the host's): the one whose share matches this
    process's is left out."""
    if failure.root_cause not in _OUT_OF_MEMORY:
        return None  # a cause that explains the memory (two ranks on one GPU, a CUDA graph)
    for evidence in failure.evidence:
        found = _TORCH_OOM.search(evidence.text)
        if found is None:
            if unlisted := _held_unlisted(failure, evidence):
                return unlisted
            continue
        total = float(found["total"])
        held_by = [(p["pid"], float(p["size"]) * _GIB[p["unit"]])
                   for p in _PROCESS.finditer(found["others"])]
        share = _own_share(evidence.text)
        if share is None:
            return None  # which of them is this one?
        own, whole = share
        held_by = [(pid, size) for pid, size in held_by if not _is_own(size, own, whole)]
        if not held_by:
            return None
        held = sum(size for _, size in held_by)
        if held < TAKEN_SHARE * total:
            return None
        largest = sorted(held_by, key=lambda item: -item[1])[:3]
        who = (f"Process {largest[0][0]} holds" if len(held_by) == 1 else
               f"Processes {', '.join(pid for pid, _ in largest)}"
               f"{' and others' if len(held_by) > 3 else ''} hold")
        return taken_by_others(
            "gpu-memory-held-by-another", failure, (evidence,),
            f"{who} {held:.4g} of the GPU's {total:.4g} GiB and this one {own:.4g} GiB: the "
            "memory this job needed was taken by other processes (a leftover worker or notebook "
            "kernel, another job on the same GPU).")
    return None


def _held_unlisted(failure: Candidate, evidence: Evidence) -> Candidate | None:
    """The same when torch lists no process (in a container it sees none of the host's): what
    neither is free nor this process's is held by others."""
    found = _FREE.search(evidence.text)
    share = _own_share(evidence.text)
    if found is None or share is None or not share[1]:
        return None
    total = float(found["total"])
    free = float(found["free"]) * _GIB[found["free_unit"]]
    own = share[0]
    held = total - free - own
    if held < TAKEN_SHARE * total:
        return None
    return taken_by_others(
        "gpu-memory-held-by-another", failure, (evidence,),
        f"Of the GPU's {total:.4g} GiB, {free:.3g} GiB were free and this process held "
        f"{own:.4g} GiB: other processes, which torch could not list (from a container it sees "
        f"none of the host's), held the other {held:.4g} GiB (a leftover worker or notebook "
        "kernel, another job on the same GPU).")


def taken_by_others(signature: str, failure: Candidate, evidence: tuple[Evidence, ...],
                    explanation: str) -> Candidate:
    """stale_gpu_process for an out-of-memory `failure` whose memory other processes held."""
    return Candidate.rule_cause(
        signature, "resources", "stale_gpu_process", failure.confidence, evidence,
        explanation=explanation,
        fix=("Stop the processes that are leftovers (vfix's gpu_processes role lists them, "
             "and stops them only when told to), or run on a GPU they do not use."),
        role="gpu_processes",
        check="nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
        matches=failure.matches)


def _own_share(text: str) -> tuple[float, bool] | None:
    """This process's GiB in torch's out-of-memory message, and whether torch gave it whole
    (False: only what PyTorch allocated and reserved, short of the CUDA context and the rest)."""
    found = _OWN.search(text)
    if found is None:
        return None
    if found["own"]:
        return float(found["own"]) * _GIB[found["own_unit"]], True
    return (float(found["allocated"]) * _GIB[found["allocated_unit"]]
            + float(found["reserved"]) * _GIB[found["reserved_unit"]]), False


def _is_own(size: float, own: float, whole: bool) -> bool:
    """Whether a process of `size` GiB is this one: its share, or (from what PyTorch holds) that
    and up to a quarter more with a few GiB of context, graphs and communicators."""
    if whole:
        return abs(size - own) <= max(1.0, own / 10)
    return own - 1.0 <= size <= own * 1.25 + 2.0


def _below(free_share: float) -> str:
    """A utilization a little under the free share, rounded down to two decimals."""
    return f"{int(free_share * 100 - 2) / 100:.2f}"
