"""nccl-tests whose processes each ran alone: every one printed its own header as rank 0.

nccl-tests lists the ranks of its communicator in its header ("#  Rank  0 Group  0 Pid 882104
on node-a device  0 [0000:18:00] NVIDIA H100"). When the launcher and the MPI library do not
share a process-management interface (srun --mpi=pmi2 with an Open MPI 5 built for PMIx), or
the tests were built without MPI, each process starts as a world of one: the log holds one
header per process, all as rank 0, each test passes on one GPU, and the bus bandwidth reads 0.
Nothing fails, and no two GPUs ever talked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vfix.diagnose.model import Candidate, Evidence

# Lines that may list a rank; the scanner only hands over lines holding one of these.
KEYWORDS = ("#  Rank ",)
_RANK = re.compile(r"^#\s+Rank\s+(?P<rank>\d+)\s+Group\s+\d+\s+Pid\s+(?P<pid>\d+)\s+on\s+\S+")
_ALONE = 2  # processes seen as rank 0 that show they ran alone


def read(text: str) -> tuple[int, int] | None:
    """(rank, PID) of a line of nccl-tests' rank list; None for any other line."""
    found = _RANK.match(text)
    return (int(found["rank"]), int(found["pid"])) if found else None


@dataclass(slots=True)
class NcclTestsRanks:
    """The processes that listed themselves as rank 0, and whether any other rank was listed."""

    alone: dict[int, Evidence] = field(default_factory=dict)  # PID: its rank-0 line (_ALONE)
    others_listed: bool = False

    def add(self, evidence: Evidence, reading: tuple[int, int]) -> None:
        rank, pid = reading
        if rank:
            self.others_listed = True
        elif len(self.alone) < _ALONE:
            self.alone.setdefault(pid, evidence)

    def ran_alone(self) -> Candidate | None:
        """mpi_pmi_mismatch when processes of several PIDs were each rank 0 and no other rank
        was listed; None otherwise."""
        if self.others_listed or len(self.alone) < _ALONE:
            return None
        return Candidate.rule_cause(
            "nccl-tests-ranks-alone", "versions", "mpi_pmi_mismatch", 0.7,
            tuple(self.alone.values()),
            explanation=("nccl-tests printed one header per process, each as rank 0 of its own "
                         "communicator: the processes never joined one MPI world, so every test "
                         "ran on one GPU and measured no communication (bus bandwidth 0). The "
                         "launcher and the MPI library do not share a process-management "
                         "interface (srun --mpi=pmi2 with an Open MPI built for PMIx), or the "
                         "tests were built without MPI."),
            fix=("Launch with the plugin the MPI library supports (srun --mpi=pmix for Open "
                 "MPI 5; srun --mpi=list shows what Slurm has), or use mpirun inside the "
                 "allocation; build nccl-tests with MPI=1 MPI_HOME=<the MPI the job uses>."),
            check="srun --mpi=list; ompi_info | grep -i pmix; ldd all_reduce_perf | grep mpi")
