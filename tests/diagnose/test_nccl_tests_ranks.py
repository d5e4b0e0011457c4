"""nccl-tests whose processes each listed themselves as rank 0: they never joined one MPI world."""

from __future__ import annotations

from vfix.diagnose import Status, diagnose_text, nccl_tests_ranks


def _header(rank: int, pid: int, host: str = "h2r16n01", device: int = 0) -> str:
    return (f"#  Rank {rank:>2} Group  0 Pid {pid:>6} on {host:>10} device {device:>2} "
            "[0000:18:00] NVIDIA H200\n")


_RESULT = "# Avg bus bandwidth    : 0 \n"


def test_a_rank_line_is_read() -> None:
    assert nccl_tests_ranks.read(_header(3, 120441).rstrip("\n")) == (3, 120441)
    assert nccl_tests_ranks.read("# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824") \
        is None


def test_processes_each_rank_0_ran_alone() -> None:
    result = diagnose_text(_header(0, 120441) + _RESULT + _header(0, 98114, "h2r16n02") + _RESULT)
    assert result.status is Status.CAUSE_FOUND
    assert result.root_cause == "mpi_pmi_mismatch"


def test_one_world_of_several_ranks_or_a_single_run_is_healthy() -> None:
    one_world = _header(0, 120441) + _header(1, 120442, device=1) + _header(0, 98114)
    assert diagnose_text(one_world + _RESULT).status is Status.NO_FAILURE
    one_process_eight_gpus = "".join(_header(rank, 120441, device=rank) for rank in range(8))
    assert diagnose_text(one_process_eight_gpus + _RESULT).status is Status.NO_FAILURE
    assert diagnose_text(_header(0, 120441) + _RESULT).status is Status.NO_FAILURE
