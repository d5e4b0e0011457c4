"""Choosing TP groups on real multi-GPU `nvidia-smi topo -m` captures (tests/data/topo)."""

from __future__ import annotations

from preflight_helpers import DATA, h200, multi_gpu_host

from vfix.facts.model import Topology
from vfix.facts.topology import parse_topo_matrix
from vfix.preflight.placement import place
from vfix.preflight.plan import Plan
from vfix.preflight.topology import best_set, evaluate, link_rank
from vfix.vocabulary import Layer, Verdict


def topo(name: str) -> Topology:
    return parse_topo_matrix((DATA / "topo" / name).read_text())


def test_link_order() -> None:
    ordered = ["NV18", "NV12", "PIX", "PXB", "PHB", "NODE", "SYS", "??"]
    assert sorted(ordered, key=link_rank) == ordered
    assert link_rank("SOC") == link_rank("SYS")


def test_pcie_box_prefers_the_same_numa_node() -> None:
    # RTX 6000 Ada: GPU0-1 and GPU2-3 share a NUMA node (NODE), across them is SYS.
    t = topo("rtx6000ada-4gpu-pcie-4nic.txt")
    pair = best_set(t, [0, 1, 2, 3], 2)
    assert pair is not None and pair.indices == (0, 1) and pair.worst_link == "NODE"
    assert evaluate(t, (0, 2)).spans_sys
    assert best_set(t, [1, 2, 3], 2).indices == (2, 3)  # type: ignore[union-attr]


def test_all_sys_box_still_picks_numa_local_gpus() -> None:
    # RTX 4090 x8: every pair is SYS, so the tie goes to one NUMA node.
    t = topo("rtx4090-8gpu-pcie-2nic-tabs.txt")
    four = best_set(t, list(range(8)), 4)
    assert four is not None and four.spans_sys and four.numa_nodes == ("0",)


def test_nvlink_boxes() -> None:
    h100 = best_set(topo("h100-8gpu-nv18-8nic.txt"), list(range(8)), 4)
    assert h100 is not None and h100.worst_link == "NV18" and h100.numa_nodes == ("0",)
    a100 = best_set(topo("a100-8gpu-nv12-10nic-tabs.txt"), list(range(8)), 8)
    assert a100 is not None and a100.worst_link == "NV12" and not a100.spans_sys


def test_user_order_across_sockets_is_warned_with_a_better_choice() -> None:
    host = multi_gpu_host(h200(), "rtx6000ada-4gpu-pcie-4nic.txt")
    placement = place(host, Plan(tp=2, cuda_visible_devices="0,2"), 2)
    topology = next(r for r in placement.results if r.check == "tp-topology")
    assert topology.layer is Layer.COMMUNICATION and topology.verdict is Verdict.WARN
    assert "spans SYS" in topology.reason
    assert placement.chosen == [0, 2]  # vLLM would use the user's order


def test_no_user_order_picks_the_best_groups_for_tp_and_pp() -> None:
    host = multi_gpu_host(h200(), "rtx6000ada-4gpu-pcie-4nic.txt")
    placement = place(host, Plan(tp=2, pp=2), 4)
    assert [g.indices for g in placement.groups] == [(0, 1), (2, 3)]
    assert next(r for r in placement.results if r.check == "tp-topology").verdict is Verdict.PASS


def test_tp_over_more_gpus_than_visible_fails_visibility() -> None:
    placement = place(h200(), Plan(tp=2), 2)
    count = next(r for r in placement.results if r.check == "gpu-count")
    assert count.layer is Layer.VISIBILITY and count.verdict is Verdict.FAIL


def test_mig_devices_cannot_hold_a_tp_group() -> None:
    placement = place(h200(), Plan(tp=2, cuda_visible_devices="MIG-4f6e1bd5-5a1c-5c5e-9f3b-"
                                                             "0123456789ab"), 2)
    cvd = next(r for r in placement.results if r.check == "cuda-visible-devices")
    assert cvd.verdict is Verdict.FAIL and "MIG" in cvd.reason
