"""Ranks of one job that found their GPU busy (EXCLUSIVE_PROCESS): the job's own ranks share a
GPU when rank 0 got its GPU and later ranks did not; an orphan nvidia-smi lists is the cause."""

from __future__ import annotations

from vfix.diagnose import diagnose_text

_BUSY = ("[rank{}]: torch.AcceleratorError: CUDA error: CUDA-capable device(s) is/are busy or "
         "unavailable\n")


def _busy(*ranks: int) -> str:
    return "".join(_BUSY.format(rank) for rank in ranks)


def test_later_ranks_finding_their_gpu_busy_share_gpus_with_earlier_ones() -> None:
    result = diagnose_text(_busy(4, 5, 6))
    assert (result.layer, result.root_cause) == ("visibility", "duplicate_gpu_assignment")
    assert "Ranks 4, 5, 6 found their GPU busy while rank 0 did not" in (
        result.candidates[0].explanation)


def test_rank_0_busy_or_one_rank_alone_is_another_process() -> None:
    assert diagnose_text(_busy(0, 1, 2)).root_cause == "stale_gpu_process"
    assert diagnose_text(_busy(3)).root_cause == "stale_gpu_process"


def test_an_orphan_listed_on_the_gpus_is_the_cause() -> None:
    orphan = ("00000000:3A:00.0, 2771408, /apps/wxfm/bin/python, 61228 MiB\n"
              "2771408       1 Dl      06:41:17 wxops    /apps/wxfm/bin/python -m wxfm.train\n")
    assert diagnose_text(_busy(3, 5) + orphan).root_cause == "stale_gpu_process"
