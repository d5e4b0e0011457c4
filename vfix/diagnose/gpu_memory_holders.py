"""Who held the GPU's memory when a job ran out of it, as nvidia-smi listed the processes.

An operator who sees an out-of-memory error runs nvidia-smi, and pastes its process table
("|    0   N/A  N/A     88410      C   /opt/monailabel/venv/bin/python   22590MiB |") or
`--query-compute-apps` ("2214731, /opt/blender/blender, 45770 MiB") beside the error. When a
process other than the one that failed holds a quarter of the GPU or more, that process took
the memory the job sized for: a leftover from an earlier run, or another job on the same GPU.
The failing process is known by the PIDs its lines carry ("neuro-seg[2291]", "pid=268",
NCCL's "host:pid:tid"); without them nothing is said, since the table may list the failing
process itself. Of the table's processes, only those on the failing GPU count (named by the
error, "GPU=0", or the row of the failing process), and in a list without GPUs only those of
another name than the failing process's (not the job's other ranks). A listed process that
`ps` shows re-parented to init (PPID 1: its launcher, a shell or a batch job, is gone) counts
whatever the failing process's PIDs: an orphan from an earlier run is no rank of this one. So
does any process but its own beside DCGM's diagnostic that could not allocate the GPU's memory.

The same rows tell a job whose ranks all landed on one GPU (a local rank never used to pick the
device, `-gpu_id 0` for every task): several processes of one program on one GPU while nvidia-smi
lists another GPU next to empty, or three or more of them on the only GPU listed when the job ran
out of memory there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from vfix.diagnose.model import Candidate, Evidence
from vfix.diagnose.startup_memory import TAKEN_SHARE, taken_by_others

KEYWORDS = ("MiB",)
# a `ps` row with PPID 1, right-aligned in its column (matched by the folded automaton: as one
# of the packed searcher's keywords, its blanks slowed a serving log's scan by a tenth)
FOLDED_KEYWORDS = ("    1 ",)

# nvidia-smi's process table: GPU, GI, CI, PID, type, name, memory
_TABLE_ROW = re.compile(r"\|\s+(?P<gpu>\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(?P<pid>\d+)\s+"
                        r"(?:C|G|C\+G|M|M\+C)\s+(?P<name>\S.*?)\s+(?P<mib>\d+)\s?MiB\s*\|")
# and its memory column: "|  23891MiB /  24564MiB |"
_TABLE_USAGE = re.compile(r"\|\s+(?P<used>\d+)\s?MiB\s*/\s*(?P<total>\d+)\s?MiB\s+\|")
_CSV_MIB = re.compile(r"^(?P<mib>\d+) MiB$")
_CSV_PID = re.compile(r"^\d{3,}$")  # not a GPU index (nor PID 1, init)
_CSV_ID = re.compile(r"^(?:GPU-[0-9a-fA-F-]+|[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)$")
_CSV_INDEX = re.compile(r"^\d{1,2}$")  # a `--query-gpu` row's GPU index
_IDLE_MIB = 64  # what an idle GPU shows in use (the driver's own, 0 to a few MiB)

# the PIDs and the GPU a failing line names
_OWN_PID = re.compile(r"\[(\d{2,})\]|\bpid[=: ]\s*(\d+)|\bPID[=: ]?\s*(\d+)"
                      r"|^\S+:(\d+):\d+ \[\d+\]")  # NCCL's "host:pid:tid [dev]"
_FAILED_GPU = re.compile(r"\bGPU[= ]?(\d+)\b|\bcuda:(\d+)|\bdevice (\d+)\b")

# a `ps` row of a process whose parent is init: "1640552       1  2-03:41:18 Sl   /opt/...",
# "gitlab-+ 2214871       1  0 Dec08 ?  00:12:01 /opt/tritonserver/bin/tritonserver"; PID and
# PPID, then the elapsed time, a state, ps -ef's C column or a user (before the command or the
# elapsed time: "1877302       1 svc-dia  1-02:17:44 Sl  /opt/...")
_ORPHAN = re.compile(r"^\s*(?:[a-z_][\w.+-]*\s+)?(?P<pid>\d{3,})\s{2,}1\s+"
                     r"(?:[a-z_][\w.+-]*\s+)?"
                     r"(?:(?:\d+-)?\d{1,2}:\d\d\b|[RSDZTIW][sl<NL+]*\s|\d{1,3}\s+\S|/)")

# DCGM's diagnostic that could not allocate the GPU's memory, and its own processes: what else
# is listed on the GPU holds what it wanted
_SEES_OTHERS = re.compile(r"Please check for other processes")
_DIAGNOSTIC = re.compile(r"\b(?:nvvs|dcgm\w*|nv-hostengine)\b")

_TAKEN_GIB = 16.0  # when no total was listed
_MAX_ROWS = 256

# what a job that ran out of GPU memory is taken for (not a cause that says whose memory it was)
_OUT_OF_MEMORY = frozenset({"gpu_oom", "gpu_oom_weights", "cudagraph_capture_oom"})


class Row(NamedTuple):
    """A process nvidia-smi lists: its GPU's index (the table's) or None, its GPU as the row
    names it (index, bus id or UUID) or None, PID, name ("" when not asked for) and MiB."""

    gpu: int | None
    device: str | None
    pid: int
    name: str
    mib: int


class Holder(NamedTuple):
    row: Row
    evidence: Evidence


class Orphan(NamedTuple):
    pid: int


class IdleGpu(NamedTuple):
    """A GPU listed with next to nothing in use, and its total memory in MiB when given."""

    total_mib: int | None


Reading = Row | int | Orphan | IdleGpu


def read(text: str) -> Reading | None:
    """A process row, a GPU's total memory in MiB, an idle GPU, or the PID of a process
    re-parented to init."""
    if orphan := _ORPHAN.match(text):
        return Orphan(int(orphan["pid"]))
    if row := _TABLE_ROW.search(text):
        return Row(int(row["gpu"]), row["gpu"], int(row["pid"]), row["name"], int(row["mib"]))
    if usage := _TABLE_USAGE.search(text):
        total = int(usage["total"])
        return IdleGpu(total) if int(usage["used"]) <= _IDLE_MIB else total
    return _csv(text)


def _csv(text: str) -> Reading | None:
    """A `--query-compute-apps` row (a PID, one memory field and a name, a bus id or UUID or
    both, in any order), or a `--query-gpu` row with the used (and total) memory."""
    fields = [part.strip() for part in text.strip().split(",")]
    if len(fields) < 2:
        return None
    sizes = [int(found["mib"]) for part in fields if (found := _CSV_MIB.match(part))]
    pids = [part for part in fields if _CSV_PID.match(part)]
    ids = [part for part in fields if _CSV_ID.match(part)]
    if not pids and sizes and (_CSV_INDEX.match(fields[0]) or ids):
        if min(sizes) <= _IDLE_MIB:  # memory.used (memory.total is the larger)
            return IdleGpu(max(sizes) if len(sizes) == 2 else None)
        return max(sizes) if len(sizes) == 2 else None
    if len(sizes) == 2:
        return max(sizes)
    names = [part for part in fields if not _CSV_MIB.match(part) and not _CSV_ID.match(part)
             and not part.isdigit() and re.search(r"[A-Za-z]", part) and "%" not in part]
    if len(sizes) != 1 or len(pids) != 1 or len(names) > 1 or not (names or ids):
        return None
    return Row(None, ids[0].upper() if ids else None, int(pids[0]), names[0] if names else "",
               sizes[0])


@dataclass(slots=True)
class GpuMemoryHolders:
    """The processes the log lists on its GPUs, and the largest GPU total it shows."""

    holders: list[Holder] = field(default_factory=list)
    total_mib: int = 0
    orphans: set[int] = field(default_factory=set)
    idle_gpus: int = 0

    def add(self, evidence: Evidence, reading: Reading) -> None:
        if isinstance(reading, Orphan):
            if len(self.orphans) < _MAX_ROWS:
                self.orphans.add(reading.pid)
        elif isinstance(reading, IdleGpu):
            self.idle_gpus += 1
            self.total_mib = max(self.total_mib, reading.total_mib or 0)
        elif isinstance(reading, int):
            self.total_mib = max(self.total_mib, reading)
        elif len(self.holders) < _MAX_ROWS:
            self.holders.append(Holder(reading, evidence))

    def crowded(self, out_of_memory: bool) -> Candidate | None:
        """duplicate_gpu_assignment when one GPU runs several processes of one program while
        another GPU is listed idle, or (`out_of_memory`: the job ran out of GPU memory) three or
        more of them on the only GPU the rows name."""
        crowds: dict[tuple[str, str], dict[int, Holder]] = {}
        for holder in self.holders:
            if holder.row.device is not None and not _DIAGNOSTIC.search(holder.row.name):
                crowds.setdefault((holder.row.device, holder.row.name), {})[holder.row.pid] = holder
        crowd = max(crowds.values(), key=len, default={})
        alone = out_of_memory and len(crowd) >= 3 and len({device for device, _ in crowds}) == 1
        if len(crowd) < 2 or not (self.idle_gpus or alone):
            return None
        rows = list(crowd.values())
        first = rows[0].row
        name = f" ({first.name})" if first.name else ""
        idle = f" while {self.idle_gpus} other GPU(s) sat idle" if self.idle_gpus else ""
        return Candidate.rule_cause(
            "processes-crowded-on-one-gpu", "visibility", "duplicate_gpu_assignment", 0.7,
            tuple(holder.evidence for holder in rows[:3]),
            explanation=(f"nvidia-smi lists {len(rows)} processes of one program{name} on the "
                         f"same GPU ({first.device}){idle}: the job's ranks all chose one device "
                         "(each process's device not taken from its local rank, a hard-coded "
                         "device 0, a launcher that gave every task the same GPU), so they share "
                         "its memory and compute."),
            fix=("Give each rank its own GPU: set the device from LOCAL_RANK (or the launcher's "
                 "--gpus-per-task / --gpu-bind / CUDA_VISIBLE_DEVICES per task), or run as many "
                 "ranks as the GPUs the job has."),
            check="nvidia-smi --query-compute-apps=pid,process_name,gpu_bus_id,used_memory "
                  "--format=csv (one process per GPU)")

    def orphan_listed(self) -> bool:
        """Whether a process nvidia-smi lists is one `ps` shows re-parented to init."""
        return any(holder.row.pid in self.orphans for holder in self.holders)

    def out_of_memory_crowded(self, failure: Candidate) -> Candidate | None:
        """duplicate_gpu_assignment when `failure` is an out-of-memory error on a crowded GPU."""
        return self.crowded(True) if failure.root_cause in _OUT_OF_MEMORY else None

    def held_elsewhere(self, failure: Candidate) -> Candidate | None:
        """Another process as the cause when `failure` is an out-of-memory error and a process
        that is not the failing one holds a quarter of the GPU or more."""
        if failure.root_cause not in _OUT_OF_MEMORY or not self.holders:
            return None
        texts = [evidence.text for evidence in failure.evidence]
        own = {int(pid) for text in texts for found in _OWN_PID.finditer(text)
               for pid in found.groups() if pid}
        gpus = {int(gpu) for text in texts for found in _FAILED_GPU.finditer(text)
                for gpu in found.groups() if gpu}
        others = self._others(own, gpus, any(_SEES_OTHERS.search(text) for text in texts))
        if not others:
            return None
        largest = max(others, key=lambda holder: holder.row.mib)
        held_gib = largest.row.mib / 1024
        if (held_gib < _TAKEN_GIB if not self.total_mib
                else largest.row.mib < TAKEN_SHARE * self.total_mib):
            return None
        of_total = f" of the GPU's {self.total_mib / 1024:.3g} GiB" if self.total_mib else ""
        name = f" ({largest.row.name})" if largest.row.name else ""
        return taken_by_others(
            "gpu-memory-held-by-listed-process", failure,
            (failure.evidence[0], largest.evidence),
            f"Process {largest.row.pid}{name} held {held_gib:.3g} GiB{of_total} when this "
            "job ran out of GPU memory: the memory it needed was taken by another process (a "
            "leftover from an earlier run, a notebook kernel, another job on the same GPU).")

    def _others(self, own: set[int], gpus: set[int], by_a_diagnostic: bool) -> list[Holder]:
        """The listed processes that are neither the failing one nor its siblings: on the
        failing GPU (named by the error, or the one the failing process is listed on) when the
        table gives GPUs; else not of the failing process's name (a job's other ranks), and
        orphans whether or not the failing process is listed. Nothing when the failing process
        is not known by its PID, but for orphans and, when DCGM's diagnostic failed, any process
        but its own (on the failing GPU when the error names it)."""
        rows = [holder.row for holder in self.holders]
        if not own:
            return [holder for holder in self.holders
                    if (holder.row.pid in self.orphans
                        or (by_a_diagnostic and not _DIAGNOSTIC.search(holder.row.name)))
                    and (not gpus or holder.row.gpu is None or holder.row.gpu in gpus)]
        own_rows = [row for row in rows if row.pid in own]
        if any(row.gpu is not None for row in rows):
            gpus = gpus | {row.gpu for row in own_rows if row.gpu is not None}
            return [holder for holder in self.holders
                    if holder.row.pid not in own and holder.row.gpu in gpus]
        names = {row.name for row in own_rows}
        return [holder for holder in self.holders if holder.row.pid not in own
                and (holder.row.pid in self.orphans
                     or (own_rows and holder.row.name not in names))]
