"""Visibility and communication: which GPUs each node offers, and which to give the TP group."""

from __future__ import annotations

from dataclasses import dataclass, field

from vfix.facts.model import HostFacts
from vfix.preflight.devices import parse_visible_devices, resolve
from vfix.preflight.plan import Plan
from vfix.preflight.result import CheckResult, Skipped
from vfix.preflight.topology import GpuSet, best_groups, evaluate
from vfix.vocabulary import Layer, Verdict

SRC_CVD = "CUDA C Programming Guide: CUDA_VISIBLE_DEVICES"
SRC_MIG = "NVIDIA MIG User Guide: CUDA device enumeration (one MIG instance per process)"
SRC_TOPO = "nvidia-smi topo -m (facts.topology); vLLM maps TP rank i to visible device i"


@dataclass
class Placement:
    """What one host offers and what preflight picked there."""

    host: str
    visible: list[int]  # physical indices the process would see, in CUDA order
    groups: list[GpuSet] = field(default_factory=list)  # chosen TP groups (one per PP stage)
    results: list[CheckResult] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def chosen(self) -> list[int]:
        return [i for group in self.groups for i in group.indices]


def _result(check: str, layer: Layer, verdict: Verdict, reason: str, source: str,
            host: str) -> CheckResult:
    return CheckResult(check=check, layer=layer, verdict=verdict, reason=reason, source=source,
                       host=host)


def place(facts: HostFacts, plan: Plan, gpus_needed: int) -> Placement:
    """Resolve CUDA_VISIBLE_DEVICES on `facts` and choose the GPUs for `gpus_needed` ranks."""
    host = facts.host
    placement = Placement(host=host, visible=[g.index for g in facts.gpus])
    cvd = plan.cuda_visible_devices
    if cvd is None:
        cvd = facts.system.env.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None:
        _apply_visible_devices(placement, facts, cvd, plan)
    count = len(placement.visible)
    if count < gpus_needed:
        placement.results.append(_result(
            "gpu-count", Layer.VISIBILITY, Verdict.FAIL,
            f"{count} GPU(s) visible, TP x PP on this node needs {gpus_needed}",
            "vLLM starts one worker per visible GPU (world size = TP x PP)", host))
    else:
        placement.results.append(_result(
            "gpu-count", Layer.VISIBILITY, Verdict.PASS,
            f"{count} GPU(s) visible for {gpus_needed} rank(s)",
            "vLLM starts one worker per visible GPU (world size = TP x PP)", host))
    _choose_groups(placement, facts, plan, gpus_needed, user_order=cvd is not None)
    return placement


def visible_devices_without_facts(plan: Plan) -> list[CheckResult]:
    """What CUDA_VISIBLE_DEVICES alone says: usable entries, MIG, and whether there are enough."""
    assert plan.cuda_visible_devices is not None
    cvd = plan.cuda_visible_devices
    devices = parse_visible_devices(cvd)
    results = []
    if devices.has_mig and plan.world_size > 1:
        results.append(CheckResult(
            check="cuda-visible-devices", layer=Layer.VISIBILITY, verdict=Verdict.FAIL,
            reason=f"CUDA_VISIBLE_DEVICES={cvd} names MIG instances: a CUDA process enumerates "
                   f"only one, so TP/PP > 1 cannot use them", source=SRC_MIG))
    elif devices.ignored:
        results.append(CheckResult(
            check="cuda-visible-devices", layer=Layer.VISIBILITY, verdict=Verdict.FAIL,
            reason=f"CUDA_VISIBLE_DEVICES={cvd}: {devices.ignored[0].text!r} is not a device id; "
                   f"CUDA ignores it and every entry after it", source=SRC_CVD))
    usable = len(devices.effective)
    if not devices.has_mig and usable < plan.world_size:
        results.append(CheckResult(
            check="gpu-count", layer=Layer.VISIBILITY, verdict=Verdict.FAIL,
            reason=f"CUDA_VISIBLE_DEVICES={cvd} leaves {usable} GPU(s) for TP x PP = "
                   f"{plan.world_size}", source=SRC_CVD))
    return results


def _apply_visible_devices(placement: Placement, facts: HostFacts, cvd: str, plan: Plan) -> None:
    host = placement.host
    devices = parse_visible_devices(cvd)
    if devices.has_mig:
        verdict = Verdict.FAIL if plan.world_size > 1 else Verdict.WARN
        placement.results.append(_result(
            "cuda-visible-devices", Layer.VISIBILITY, verdict,
            f"CUDA_VISIBLE_DEVICES={cvd} names MIG instances: a CUDA process enumerates only one, "
            f"so TP/PP > 1 cannot use them", SRC_MIG, host))
        placement.visible = []
        return
    resolution = resolve(devices, list(facts.gpus))
    placement.visible = [g.index for g in resolution.gpus]
    if resolution.problems:
        placement.results.append(_result(
            "cuda-visible-devices", Layer.VISIBILITY, Verdict.FAIL,
            f"CUDA_VISIBLE_DEVICES={cvd}: " + "; ".join(resolution.problems), SRC_CVD, host))
    else:
        placement.results.append(_result(
            "cuda-visible-devices", Layer.VISIBILITY, Verdict.PASS,
            f"CUDA_VISIBLE_DEVICES={cvd} -> GPU {placement.visible}", SRC_CVD, host))


def _choose_groups(placement: Placement, facts: HostFacts, plan: Plan, gpus_needed: int,
                   user_order: bool) -> None:
    host = placement.host
    if len(placement.visible) < gpus_needed:
        return
    tp_here = min(plan.tp, gpus_needed)
    stages_here = max(1, gpus_needed // tp_here)
    if tp_here == 1 or not facts.topology.links:
        placement.groups = [evaluate(facts.topology, (i,))
                            for i in placement.visible[:gpus_needed]]
        if tp_here > 1:
            placement.skipped.append(Skipped("tp-topology", f"{host}: facts have no topo -m"))
        return
    best = best_groups(facts.topology, placement.visible, tp_here, stages_here)
    if user_order:
        # The user's order is what vLLM will use: rank i -> i-th visible device.
        order = placement.visible
        placement.groups = [evaluate(facts.topology, tuple(order[s * tp_here:(s + 1) * tp_here]))
                            for s in range(stages_here)]
    else:
        placement.groups = best
    worst = max(placement.groups, key=lambda g: g.worst)
    better = best[0] if best else None
    if worst.spans_sys:
        placement.results.append(_result(
            "tp-topology", Layer.COMMUNICATION, Verdict.WARN,
            f"TP group GPU {list(worst.indices)} spans SYS (cross-socket) links: every layer's "
            f"all-reduce crosses the CPU interconnect; NUMA nodes {list(worst.numa_nodes)}",
            SRC_TOPO, host))
    elif user_order and better is not None and better.worst < worst.worst:
        placement.results.append(_result(
            "tp-topology", Layer.COMMUNICATION, Verdict.WARN,
            f"TP group GPU {list(worst.indices)} runs over {worst.worst_link}; GPU "
            f"{list(better.indices)} are joined by {better.worst_link}", SRC_TOPO, host))
    else:
        placement.results.append(_result(
            "tp-topology", Layer.COMMUNICATION, Verdict.PASS,
            "TP group(s) " + ", ".join(f"GPU {list(g.indices)} via {g.worst_link}"
                                       for g in placement.groups), SRC_TOPO, host))
