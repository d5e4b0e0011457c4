"""Choose the GPUs for a tensor-parallel group from `nvidia-smi topo -m`.

A TP group all-reduces on every layer, so it runs at the speed of its slowest pair. Links rank
NVLink (more links first) > PIX > PXB > PHB > NODE > SYS, the order of `topo -m`'s legend
from closest to farthest; ties go to the set on fewer NUMA nodes, then to the lower total.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from vfix.facts.model import Topology

LINK_ORDER = ("NV", "PIX", "PXB", "PHB", "NODE", "SYS")
_NV = re.compile(r"^NV(\d+)$")
MAX_CANDIDATES = 16  # brute force over subsets stays small (C(16,8) = 12870)


def link_rank(link: str | None) -> tuple[int, int]:
    """Sort key of one link: lower is closer. Unknown links sort last."""
    text = (link or "").strip().upper()
    if text == "SOC":  # older drivers' name for SYS
        text = "SYS"
    nv = _NV.match(text)
    if nv:
        return (0, -int(nv.group(1)))
    if text in LINK_ORDER:
        return (LINK_ORDER.index(text), 0)
    return (len(LINK_ORDER), 0)


def link_name(rank: tuple[int, int]) -> str:
    kind, count = rank
    if kind == 0:
        return f"NV{-count}"
    return LINK_ORDER[kind] if kind < len(LINK_ORDER) else "unknown"


@dataclass(frozen=True)
class GpuSet:
    indices: tuple[int, ...]
    worst: tuple[int, int]  # link_rank of the slowest pair
    numa_nodes: tuple[str, ...]

    @property
    def worst_link(self) -> str:
        return link_name(self.worst)

    @property
    def spans_sys(self) -> bool:
        return self.worst[0] >= LINK_ORDER.index("SYS")


def gpu_link(topology: Topology, a: int, b: int) -> str | None:
    row = topology.links.get(f"GPU{a}") or {}
    return row.get(f"GPU{b}") or (topology.links.get(f"GPU{b}") or {}).get(f"GPU{a}")


def evaluate(topology: Topology, indices: tuple[int, ...]) -> GpuSet:
    pairs = [link_rank(gpu_link(topology, a, b)) for a, b in combinations(indices, 2)]
    worst = max(pairs) if pairs else (0, 0)
    numa = tuple(sorted({topology.numa_affinity.get(f"GPU{i}", "?") for i in indices}))
    return GpuSet(indices=indices, worst=worst, numa_nodes=numa)


def _sort_key(topology: Topology, gpu_set: GpuSet) -> tuple[object, ...]:
    total = [link_rank(gpu_link(topology, a, b)) for a, b in combinations(gpu_set.indices, 2)]
    return (gpu_set.worst, len(gpu_set.numa_nodes), sorted(total, reverse=True),
            gpu_set.indices)


def best_set(topology: Topology, candidates: list[int], size: int) -> GpuSet | None:
    """The best `size` GPUs out of `candidates`, or None when there are too few."""
    if size > len(candidates):
        return None
    pool = sorted(candidates)[:MAX_CANDIDATES] if len(candidates) > MAX_CANDIDATES \
        else sorted(candidates)
    sets = (evaluate(topology, combo) for combo in combinations(pool, size))
    return min(sets, key=lambda s: _sort_key(topology, s))


def best_groups(topology: Topology, candidates: list[int], tp: int, pp: int) -> list[GpuSet]:
    """PP groups of TP GPUs each, best group first; fewer groups when GPUs run out."""
    remaining = list(candidates)
    groups: list[GpuSet] = []
    for _ in range(pp):
        group = best_set(topology, remaining, tp)
        if group is None:
            break
        groups.append(group)
        remaining = [i for i in remaining if i not in group.indices]
    return groups


def topology_gpu_indices(topology: Topology) -> list[int]:
    return sorted(int(d[3:]) for d in topology.devices if re.fullmatch(r"GPU\d+", d))
