"""Set the torch all-reduce benchmark beside nccl-tests' all_reduce_perf on the same node.

torch's all_reduce is in-place, so nccl-tests' in-place columns are compared, at the largest
size both runs measured. At world size 1 busbw is 0 for both by definition and in-place
all-reduce is a no-op for NCCL, so no bandwidth comparison is meaningful: said, not faked.
"""

from __future__ import annotations

from dataclasses import dataclass

from vfix.validate.allreduce_verdict import AllreduceResult
from vfix.validate.nccl_output import NcclRun


@dataclass(frozen=True)
class Comparison:
    size: int | None
    nccl_busbw: float | None
    torch_busbw: float | None
    ratio: float | None  # torch / nccl-tests
    comparable: bool
    within_tolerance: bool | None
    reason: str


def compare_busbw(nccl: NcclRun, torch: AllreduceResult, tolerance: float = 0.10) -> Comparison:
    nccl_sizes = {row.size: row for row in nccl.results}
    torch_sizes = {row.size: row for row in torch.rows}
    common = sorted(set(nccl_sizes) & set(torch_sizes))
    if not common:
        return Comparison(None, None, None, None, False, None, "no size measured by both")
    size = common[-1]
    nccl_bw, torch_bw = nccl_sizes[size].in_place.busbw, torch_sizes[size].busbw
    if torch.world_size <= 1 or nccl.world_size <= 1:
        return Comparison(size, nccl_bw, torch_bw, None, False, None,
                          "world size 1: busbw = algbw x 2(n-1)/n is 0 for both by definition")
    if nccl.world_size != torch.world_size:
        return Comparison(size, nccl_bw, torch_bw, None, False, None,
                          f"different world sizes ({nccl.world_size} vs {torch.world_size})")
    ratio = torch_bw / nccl_bw if nccl_bw else None
    within = ratio is not None and abs(ratio - 1) <= tolerance
    return Comparison(size, nccl_bw, torch_bw, ratio, True, within,
                      f"in-place busbw at {size} B, tolerance {tolerance:.0%}")
