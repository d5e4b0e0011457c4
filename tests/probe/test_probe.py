"""The node probe as a program: no GPU, a replayed H200, missing/denied tools, timeouts,
Ansible module mode, and that it changes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.probe.fake_node import (
    DEAD_PARENT,
    FAKE_TOOLS,
    FAKE_TOOLS_DENIED,
    GPU_PID,
    PROBE,
    REPO,
    build_fake_root,
    run_probe,
)
from vfix.facts import build_facts

TOP_KEYS = {"probe_version", "host", "collected_at", "options", "os", "python", "libraries",
            "gpus", "topology", "system", "kernel_logs", "network", "processes", "errors",
            "duration_s"}


def test_no_gpu_no_nvidia_smi_is_an_ordinary_result() -> None:
    document = run_probe("--no-pynvml")
    assert set(document) >= TOP_KEYS
    assert document["gpus"]["nvidia_smi"]["error"] == "not found: nvidia-smi"
    facts = build_facts(document)
    assert facts.gpus == []
    reasons = {error.section: error.reason for error in facts.errors}
    assert "not found: nvidia-smi" in reasons["gpus"]
    assert reasons["topology"] == "nvidia-smi topo -m: not found: nvidia-smi"


def test_pynvml_without_a_driver_falls_back_and_says_why() -> None:
    pytest.importorskip("pynvml")
    document = run_probe()
    if document["gpus"].get("source") == "pynvml":
        pytest.skip("this machine has a working NVIDIA driver")
    assert "pynvml" in document["gpus"]["pynvml_unavailable"] or \
        "nvmlInit failed" in document["gpus"]["pynvml_unavailable"]


def test_replayed_h200_node(tmp_path: Path) -> None:
    root = build_fake_root(tmp_path / "node")
    facts = build_facts(run_probe("--no-pynvml", "--sysctl", "net.core.somaxconn",
                                  root=root, path=[FAKE_TOOLS],
                                  env={"NCCL_DEBUG": "INFO", "VLLM_API_KEY": "sk-123",
                                       "HF_TOKEN": "not-collected"}))
    gpu = facts.gpus[0]
    assert (gpu.name, gpu.uuid, gpu.memory_total_mib) == (
        "NVIDIA H200", "GPU-5027c4df-2cb2-df68-ec7e-94814f2a5db7", 143771)
    assert gpu.numa_node == 0  # from /sys/bus/pci/devices/0000:00:06.0/numa_node
    assert facts.versions.kernel_module == "580.159.04"
    assert facts.versions.kernel_module_flavor == "open"
    assert facts.versions.nvml_driver == "580.159.04"
    assert facts.versions.cuda_driver == "13.0"
    assert facts.versions.os_pretty == "Ubuntu 24.04.3 LTS"
    assert facts.topology.cpu_affinity == {"GPU0": "0-15"}
    assert gpu.compute_capability == "9.0"  # from the query CSV: -q -x lacks it
    system = facts.system
    assert system.sysctl["net.core.somaxconn"] == "4096"
    assert system.sysctl["vm.overcommit_memory"] == "1"
    assert system.shm.mount_options == "rw,relatime,size=134217728k"
    assert system.memory_total_bytes == 131961788 * 1024
    assert (system.cpu.cores, system.cpu.sockets, system.cpu.numa_nodes) == (16, 1, 1)
    assert system.iommu.cmdline_flags == ["intel_iommu=on", "iommu=pt"]
    assert system.iommu.groups == 3
    assert system.ulimits.nofile_soft == 20000 and system.ulimits.memlock_soft == -1
    assert system.limits_files["/etc/security/limits.d/90-vllm.conf"] == [
        "* hard memlock unlimited"]
    assert system.nccl_conf == {"NCCL_IB_HCA": "mlx5_0", "NCCL_SOCKET_IFNAME": "eth0",
                                "NCCL_AUTH_TOKEN": "<redacted>"}
    assert system.env["NCCL_DEBUG"] == "INFO"
    assert system.env["VLLM_API_KEY"] == "<redacted>"
    assert "HF_TOKEN" not in system.env
    assert system.virtualization.container == "docker"
    assert "/proc/cpuinfo: hypervisor flag" in system.virtualization.evidence
    assert system.ib_devices[0].ports[0].link_layer == "InfiniBand"
    assert {i.name: i.kind for i in system.interfaces} == {"eth0": "ether", "ib0": "infiniband"}
    assert system.lspci_nvidia_gpus == ["0000:00:06.0"]
    assert system.docker.present is False and system.docker.daemon_json == {
        "default-runtime": "nvidia"}
    holder = facts.processes.gpu[0]
    assert holder.pid == GPU_PID and holder.ppid == DEAD_PARENT
    assert holder.devices == ["/dev/nvidia0", "/dev/nvidiactl"]
    assert holder.parent_alive is False
    assert holder.cmdline == "python3 -m vllm.entrypoints.openai.api_server"
    assert holder.start_time == "2025-12-02T13:53:20Z"  # btime 1764680000 + 360000/100 s
    ports = {(p.address, p.port): p.pid for p in facts.processes.listening}
    assert ports == {("0.0.0.0", 29500): GPU_PID, ("::", 8000): None}


def test_query_csv_fallback_when_xml_fails(tmp_path: Path) -> None:
    data = tmp_path / "capture"
    data.mkdir()
    source = REPO / "tests" / "data" / "h200-1gpu"
    for name in ("topo-m.txt", "query-gpu.csv", "query-apps.csv"):
        (data / name).write_text((source / name).read_text())
    (data / "nvidia-smi-q.xml").write_text("")  # nvidia-smi printed nothing
    facts = build_facts(run_probe("--no-pynvml", path=[FAKE_TOOLS],
                                  env={"FAKE_NVIDIA_SMI_DATA": str(data)}))
    assert facts.gpus[0].name == "NVIDIA H200"
    assert facts.gpus[0].compute_capability == "9.0"
    assert facts.versions.nvml_driver == "580.159.04"


def test_denied_dmesg_and_lspci_without_capabilities(tmp_path: Path) -> None:
    facts = build_facts(run_probe("--no-pynvml", path=[FAKE_TOOLS_DENIED]))
    assert facts.system.iommu.dmesg_readable is False
    assert facts.system.iommu.dmesg_lines == []
    reasons = {error.section: error.reason for error in facts.errors}
    assert "Operation not permitted" in reasons["system.iommu"]
    assert facts.system.acs == []  # lspci ran but showed no ACS capability


def test_a_hanging_tool_costs_its_timeout_not_the_probe() -> None:
    started = time.monotonic()
    document = run_probe("--no-pynvml", "--section-timeout", "1", path=[FAKE_TOOLS],
                         env={"FAKE_NVIDIA_SMI_SLEEP": "30"})
    assert time.monotonic() - started < 20
    assert document["topology"]["topo_m"]["error"] == "timed out after 1s"
    facts = build_facts(document)
    assert any("timed out" in error.reason for error in facts.errors)
    assert facts.system.cpu.cores  # the other sections still answered


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_probe_changes_nothing(tmp_path: Path) -> None:
    root = build_fake_root(tmp_path / "node")
    before = _tree_digest(root)
    run_probe("--no-pynvml", root=root, path=[FAKE_TOOLS])
    assert _tree_digest(root) == before


def test_ansible_module_mode(tmp_path: Path) -> None:
    args = tmp_path / "args"
    args.write_text(json.dumps({"python_interpreter": "python3", "section_timeout": 10,
                                "extra_sysctls": ["net.core.somaxconn"]}))
    proc = subprocess.run([sys.executable, str(PROBE), str(args)], capture_output=True,
                          text=True, check=True, timeout=120)
    result = json.loads(proc.stdout)
    assert result["changed"] is False
    document = result["ansible_facts"]["vfix_probe"]
    assert document["options"]["sysctls"] == ["net.core.somaxconn"]
    assert "net.core.somaxconn" in document["system"]["sysctl"]
    assert build_facts(result).host == document["host"]  # the wrapper is accepted too


def test_ansible_module_bad_args_fail_cleanly(tmp_path: Path) -> None:
    args = tmp_path / "args"
    args.write_text(json.dumps({"section_timeout": -3}))
    proc = subprocess.run([sys.executable, str(PROBE), str(args)], capture_output=True,
                          text=True, timeout=60, check=False)
    result = json.loads(proc.stdout)
    assert result["failed"] is True and "section_timeout" in result["msg"]


def test_script_rejects_bad_options() -> None:
    proc = subprocess.run([sys.executable, str(PROBE), "--section-timeout", "0"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "must be positive" in proc.stderr


@pytest.mark.slow
def test_runs_as_an_ansible_module(tmp_path: Path) -> None:
    """Through real Ansible (ansible-runner, local connection): the document comes back as
    ansible_facts.vfix_probe, which is what a jsonfile fact cache stores."""
    ansible_runner = pytest.importorskip("ansible_runner")
    os.environ.setdefault("ANSIBLE_CONFIG", str(REPO / "ansible.cfg"))
    result = ansible_runner.run(
        private_data_dir=str(tmp_path), host_pattern="localhost", module="vfix_probe",
        module_args="section_timeout=10 extra_sysctls=net.core.somaxconn",
        inventory=f"localhost ansible_connection=local ansible_python_interpreter={sys.executable}",
        envvars={"ANSIBLE_LIBRARY": str(REPO / "vfix" / "probe"),
                 "ANSIBLE_CONFIG": str(REPO / "ansible.cfg")},
        quiet=True)
    assert result.rc == 0, result.stdout.read()[-2000:]
    ok = [event for event in result.host_events("localhost") if event["event"] == "runner_on_ok"]
    answer = ok[0]["event_data"]["res"]
    assert answer["changed"] is False
    facts = build_facts(answer["ansible_facts"]["vfix_probe"], host="localhost")
    assert facts.host == "localhost" and facts.system.cpu.cores
    assert "net.core.somaxconn" in facts.system.sysctl


def _oldest_python() -> str | None:
    for candidate in ("/root/.pyenv/versions/3.8.18/bin/python3.8", "python3.8"):
        found = shutil.which(candidate)
        if found and subprocess.run([found, "--version"], capture_output=True,
                                    check=False).returncode == 0:  # pyenv shims can fail
            return found
    return None


def test_runs_on_python_3_8_with_the_stdlib_only() -> None:
    python38 = _oldest_python()
    if python38 is None:
        pytest.skip("no Python 3.8 interpreter here")
    proc = subprocess.run([python38, "-I", str(PROBE), "--python", python38, "--no-pynvml"],
                          capture_output=True, text=True, timeout=120, check=True)
    document = json.loads(proc.stdout)
    assert document["os"]["probe_python"].startswith("3.8.")
    assert json.loads(document["python"]["text"])["version"].startswith("3.8.")
    assert not [e for e in document["errors"] if "Error" in e["reason"]]


def test_non_utf8_and_truncated_tool_output(tmp_path: Path) -> None:
    data = tmp_path / "capture"
    data.mkdir()
    source = REPO / "tests" / "data"
    xml = (source / "h200-1gpu" / "nvidia-smi-q.xml").read_bytes()
    (data / "nvidia-smi-q.xml").write_bytes(xml[:9000])  # cut mid-document
    topo = (source / "topo" / "h100-8gpu-nv18-8nic.txt").read_bytes()
    (data / "topo-m.txt").write_bytes(topo[:600] + b"\xff\xfe\x80 garbled" + topo[600:1200])
    root = build_fake_root(tmp_path / "node")
    (root / "etc/os-release").write_bytes(b'PRETTY_NAME="Caf\xe9 OS"\nID=cafe\n')
    facts = build_facts(run_probe("--no-pynvml", root=root, path=[FAKE_TOOLS],
                                  env={"FAKE_NVIDIA_SMI_DATA": str(data)}))
    assert facts.versions.os_pretty == "Caf\ufffd OS" and facts.versions.os_id == "cafe"
    assert facts.versions.nvml_driver == "580.159.04"  # read before the cut
    assert facts.topology.links["GPU0"]["GPU1"] == "NV18"
    sections = {error.section for error in facts.errors}
    assert {"gpus", "topology"} <= sections


def test_runs_from_stdin_as_the_gather_action_plugin_pipes_it() -> None:
    proc = subprocess.run([sys.executable, "-", "--no-pynvml", "--sysctl", "net.core.somaxconn"],
                          input=PROBE.read_bytes(), capture_output=True, timeout=120, check=True)
    document = json.loads(proc.stdout)
    assert document["options"]["sysctls"] == ["net.core.somaxconn"]
    assert document["system"]["cpu"]["processors"] >= 1
