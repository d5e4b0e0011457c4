"""`nvidia-smi topo -m` parsing on real captures (H200 1-GPU, public 8-GPU and PCIe boxes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vfix.facts.topology import parse_p2p_matrix, parse_topo_matrix, parse_topo_matrix_with_errors

DATA = Path(__file__).resolve().parents[1] / "data"


def read(name: str) -> str:
    return (DATA / name).read_text()


def test_h200_single_gpu_with_ansi_header() -> None:
    topo, errors = parse_topo_matrix_with_errors(read("h200-1gpu/topo-m.txt"))
    assert errors == []
    assert topo.devices == ["GPU0"]
    assert topo.links == {"GPU0": {"GPU0": "X"}}
    assert topo.cpu_affinity == {"GPU0": "0-15"} and topo.numa_affinity == {"GPU0": "0"}


def test_hgx_h100_nvlink_with_nic_rows_and_legend() -> None:
    topo, errors = parse_topo_matrix_with_errors(read("topo/h100-8gpu-nv18-8nic.txt"))
    assert errors == []
    assert len(topo.devices) == 16
    assert all(topo.links[f"GPU{a}"][f"GPU{b}"] == "NV18" for a in range(8) for b in range(8)
               if a != b)
    assert topo.links["GPU3"]["NIC3"] == "PIX" and topo.links["GPU3"]["NIC4"] == "SYS"
    assert topo.links["NIC5"]["GPU5"] == "PIX"
    assert topo.cpu_affinity["GPU4"] == "48-95,144-191" and topo.numa_affinity["GPU4"] == "1"
    assert "NIC0" not in topo.cpu_affinity  # NIC rows carry no affinity
    assert topo.nic_names["NIC7"] == "mlx5_7"


def test_dgx_a100_tabs_pxb_and_eight_numa_nodes() -> None:
    topo = parse_topo_matrix(read("topo/a100-8gpu-nv12-10nic-tabs.txt"))
    assert topo.links["GPU0"]["GPU7"] == "NV12"
    assert topo.links["GPU0"]["NIC0"] == "PXB" and topo.links["NIC8"]["NIC9"] == "PIX"
    assert topo.numa_affinity == {"GPU0": "3", "GPU1": "3", "GPU2": "1", "GPU3": "1",
                                  "GPU4": "7", "GPU5": "7", "GPU6": "5", "GPU7": "5"}
    assert len(topo.nic_names) == 10


@pytest.mark.parametrize(("name", "gpus", "nics", "kinds"), [
    ("topo/rtx4090-8gpu-pcie-2nic-tabs.txt", 8, 2, {"SYS", "PHB", "PIX"}),
    ("topo/rtx6000ada-4gpu-pcie-4nic.txt", 4, 4, {"SYS", "NODE", "PIX"}),
])
def test_pcie_boxes(name: str, gpus: int, nics: int, kinds: set[str]) -> None:
    topo, errors = parse_topo_matrix_with_errors(read(name))
    assert errors == []
    assert sum(d.startswith("GPU") for d in topo.devices) == gpus
    assert sum(d.startswith("NIC") for d in topo.devices) == nics
    found = {v for row in topo.links.values() for v in row.values()} - {"X"}
    assert found == kinds
    assert not any(v.startswith("NV") for row in topo.links.values() for v in row.values())


def test_legacy_mlx5_columns_without_nic_legend() -> None:
    text = ("\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\nGPU0\t X \tNV1\tPHB\t0-7\n"
            "GPU1\tNV1\t X \tPHB\t0-7\nmlx5_0\tPHB\tPHB\t X \t\n\nLegend:\n\n  X    = Self\n")
    topo, errors = parse_topo_matrix_with_errors(text)
    assert errors == []
    assert topo.devices == ["GPU0", "GPU1", "mlx5_0"]
    assert topo.links["mlx5_0"]["GPU1"] == "PHB" and topo.cpu_affinity["GPU1"] == "0-7"


def test_truncated_matrix_keeps_what_came_and_reports_the_rest() -> None:
    text = read("topo/h100-8gpu-nv18-8nic.txt")
    cut = text[: text.index("GPU5    NV18") + 40]
    topo, errors = parse_topo_matrix_with_errors(cut)
    assert topo.links["GPU4"]["NIC4"] == "PIX"
    assert "GPU5" in topo.links and len(topo.links["GPU5"]) < 16
    assert any("GPU5 is truncated" in e for e in errors)
    assert any("rows missing" in e and "GPU6" in e for e in errors)


def test_garbage_and_unknown_link_values() -> None:
    assert parse_topo_matrix_with_errors("")[1] == []
    assert parse_topo_matrix_with_errors("Failed to initialize NVML: Driver/library version "
                                         "mismatch\n")[1] == ["no topology header (GPU0 ...) "
                                                              "found"]
    topo, errors = parse_topo_matrix_with_errors("\tGPU0\tGPU1\nGPU0\t X \tZZZ\nGPU1\tNV4\t X \n")
    assert topo.links["GPU0"]["GPU1"] == "ZZZ"
    assert errors == ["GPU0->GPU1: unknown link type 'ZZZ'"]


def test_p2p_read_matrix() -> None:
    p2p, errors = parse_p2p_matrix(read("h200-1gpu/topo-p2p.txt"))
    assert p2p == {"GPU0": {"GPU0": "X"}} and errors == []
    p2p, _ = parse_p2p_matrix("\tGPU0\tGPU1\nGPU0\tX\tCNS\nGPU1\tCNS\tX\n")
    assert p2p["GPU1"]["GPU0"] == "CNS"
