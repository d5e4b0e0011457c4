"""The other captures of the H200 node (plain `nvidia-smi`, `-q`, the pynvml dump, pip list,
system.txt, collect_env) against what the parsers read from the machine-readable outputs:
the facts must say what every capture says."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from vfix.facts import build_facts
from vfix.facts.nvsmi_xml import parse_smi_xml

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURE = DATA / "h200-1gpu"
BENCHMARK = DATA.parent.parent / "benchmarks" / "probe_vs_collect_env.py"
GPU = parse_smi_xml((CAPTURE / "nvidia-smi-q.xml").read_text()).gpus[0]


def q_value(label: str) -> str:
    """First `Label : value` line of `nvidia-smi -q` text."""
    text = (CAPTURE / "nvidia-smi-q.txt").read_text()
    match = re.search(rf"^\s*{re.escape(label)}\s*:\s*(.+?)\s*$", text, re.M)
    assert match, label
    return match.group(1)


def test_plain_q_text_agrees_with_the_xml() -> None:
    assert q_value("Product Name") == GPU.name
    assert q_value("GPU UUID") == GPU.uuid
    assert q_value("VBIOS Version") == GPU.vbios
    assert q_value("Persistence Mode") == "Enabled" and GPU.persistence_mode
    assert q_value("Compute Mode") == GPU.compute_mode
    assert q_value("Total").split()[0] == str(GPU.memory_total_mib)


def test_nvidia_smi_table_agrees() -> None:
    table = (CAPTURE / "nvidia-smi.txt").read_text()
    assert "Driver Version: 580.159.04" in table and "CUDA Version: 13.0" in table
    assert f"{GPU.memory_total_mib}MiB" in table and GPU.name in table
    assert GPU.pci_bus_id in table


def test_pynvml_dump_agrees() -> None:
    dump = json.loads((CAPTURE / "pynvml.txt").read_text().split("\n", 1)[1])
    assert dump["name"] == GPU.name and dump["uuid"] == GPU.uuid and dump["vbios"] == GPU.vbios
    assert dump["cc"] == "(9, 0)" and dump["linkw"] == str(GPU.pcie_width_current)
    assert "NotSupported" in dump["nvlink0"]


def test_pip_list_and_collect_env_agree_with_the_probe_on_that_node() -> None:
    facts = build_facts(json.loads((DATA / "probe" / "h200" / "probe.json").read_text()))
    pip = dict(line.split() for line in (CAPTURE / "pip-subset.txt").read_text().splitlines())
    for name in ("torch", "nvidia-nccl-cu13", "nvidia-cuda-runtime", "nvidia-ml-py"):
        assert facts.versions.package(name) == pip[name], name
    spec = importlib.util.spec_from_file_location("bench", BENCHMARK)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    env = bench.collect_env_fields((CAPTURE / "torch-collect-env.txt").read_text())
    assert env["Nvidia driver version"] == facts.versions.nvml_driver
    assert env["CUDA used to build PyTorch"] == facts.versions.torch_cuda
    assert env["GPU models and configuration"] == f"GPU 0: {facts.gpus[0].name}"
    assert env["NCCL"] == "nvidia-nccl-cu13==" + next(
        lib.version for lib in facts.versions.nccl if lib.loaded_by_torch)
    assert env["Libc version"] == f"glibc-{facts.versions.glibc}"


def test_system_txt_agrees_with_the_probe_on_that_node() -> None:
    facts = build_facts(json.loads((DATA / "probe" / "h200" / "probe.json").read_text()))
    text = (CAPTURE / "system.txt").read_text()
    for name, value in facts.system.sysctl.items():
        assert f"{name} = {value}" in text
    assert f"open files                          (-n) {facts.system.ulimits.nofile_soft}" in text
    assert "iommu: Default domain type: Translated" in text
    assert facts.system.iommu.default_domain == "Translated"
    assert "size=134217728k" in text
    assert str(facts.system.shm.mount_options).endswith("size=134217728k")
