"""Facts built from the probe documents captured on the real H200 node (tests/data/probe/h200,
README there has the exact commands): the real values, by both GPU paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vfix.facts import HostFacts, build_facts

H200 = Path(__file__).resolve().parents[1] / "data" / "probe" / "h200"


def facts_from(name: str) -> HostFacts:
    return build_facts(json.loads((H200 / name).read_text()))


@pytest.mark.parametrize("name", ["probe.json", "probe-nvidia-smi.json"])
def test_real_h200_values(name: str) -> None:
    facts = facts_from(name)
    gpu = facts.gpus[0]
    assert len(facts.gpus) == 1
    assert gpu.name == "NVIDIA H200" and gpu.compute_capability == "9.0"
    assert gpu.pci_bus_id == "00000000:00:06.0" and gpu.uuid.startswith("GPU-")
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (143771, 0)
    assert gpu.architecture == "Hopper"
    assert gpu.persistence_mode is True
    assert (gpu.mig_mode_current, gpu.ecc_mode_current) == ("Disabled", "Enabled")
    assert gpu.ecc_uncorrected_volatile == 0 and gpu.remapped_rows_pending is False
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_current) == (5, 5, 16)
    assert (gpu.clocks_sm_max_mhz, gpu.power_limit_w) == (1980, 700.0)
    assert gpu.vbios == "96.00.A5.00.1A" and gpu.nvlinks is None  # NVLink: NotSupported
    v = facts.versions
    assert (v.kernel_module, v.kernel_module_flavor, v.nvml_driver) == ("580.159.04", "open",
                                                                       "580.159.04")
    assert v.cuda_driver == "13.0"
    assert v.package("torch") == "2.11.0" and v.torch_cuda == "13.0"
    assert v.package("nvidia-nccl-cu13") == "2.28.9"
    nccl = {lib.origin: lib for lib in v.nccl}
    assert set(nccl) == {"pip", "system"}  # the NCCL drift the project detects
    assert (nccl["pip"].version, nccl["pip"].package, nccl["pip"].loaded_by_torch) == (
        "2.28.9", "nvidia-nccl-cu13", True)
    assert (nccl["system"].version, nccl["system"].loaded_by_torch) == ("2.28.3", False)
    assert nccl["system"].path == "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3"
    assert nccl["system"].package == "libnccl2"  # the package of the file, not of a symlink
    assert {r.version for r in v.cuda_runtimes} == {"13.0.96"}
    assert (v.os_pretty, v.glibc, v.python.version if v.python else None) == (
        "Ubuntu 24.04.3 LTS", "2.39", "3.12.3")
    assert facts.topology.devices == ["GPU0"] and facts.topology.cpu_affinity == {"GPU0": "0-15"}
    s = facts.system
    assert s.cpu.cores == 16 and s.cpu.vendor == "GenuineIntel"
    assert s.virtualization.is_vm and s.virtualization.container == "docker"
    assert s.iommu.default_domain == "Translated" and s.iommu.dmesg_readable
    assert s.shm.mount_options == "rw,relatime,size=134217728k"
    assert s.sysctl["kernel.pid_max"] == "32768" and s.ulimits.nofile_soft == 20000
    assert s.lspci_nvidia_gpus == ["0000:00:06.0"]
    assert facts.processes.gpu == []  # idle GPU; the probe's own nvidia-smi runs not counted
    assert [(e.section, e.reason) for e in facts.errors] == [
        ("system.acs", "lspci: not found: lspci")]


def test_the_two_gpu_paths_agree() -> None:
    by_nvml, by_smi = facts_from("probe.json").gpus[0], facts_from("probe-nvidia-smi.json").gpus[0]
    same = ("name", "uuid", "pci_bus_id", "compute_capability", "memory_total_mib",
            "persistence_mode", "mig_mode_current", "mig_mode_pending", "compute_mode",
            "ecc_mode_current", "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate",
            "retired_pages_pending", "remapped_rows_pending", "remapped_rows_failure",
            "pcie_gen_current", "pcie_gen_max", "pcie_width_current", "pcie_width_max",
            "clocks_sm_max_mhz", "clocks_mem_max_mhz", "clocks_locked_sm_mhz",
            "throttle_reasons", "power_limit_w", "nvlinks", "vbios", "memory_used_mib",
            "architecture")
    assert {f: getattr(by_nvml, f) for f in same} == {f: getattr(by_smi, f) for f in same}
