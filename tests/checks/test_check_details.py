"""Details of single checks that the pass/fail scenarios do not pin down."""

from __future__ import annotations

import pytest

from tests.audit.facts_data import cpu_only, h200
from vfix.audit.engine import audit
from vfix.checks.cuda_compat import cuda_of_build
from vfix.checks.gpu_missing import short_bus_id
from vfix.checks.iommu_p2p import effective_domain
from vfix.checks.socket_ifname import missing_interfaces
from vfix.policy import default_policy
from vfix.vocabulary import Severity

UUID = "GPU-5027c4df-2cb2-df68-ec7e-94814f2a5db7"


def checks_found(facts, check_id: str):
    return [f for f in audit([facts], default_policy()).findings if f.check_id == check_id]


@pytest.mark.parametrize(
    ("spec", "missing"),
    [("eth", []), ("=eth", ["eth"]), ("=eth0", []), ("eth0,ib", ["ib"]), ("^eth0,lo", []),
     ("", []), ("ens,bond", ["ens", "bond"])],
)
def test_nccl_interface_lists(spec: str, missing: list[str]) -> None:
    assert missing_interfaces(spec, ["lo", "eth0", "docker0"]) == missing


def test_cuda_build_tags() -> None:
    assert cuda_of_build("2.11.0+cu130") == (13, 0)
    assert cuda_of_build("2.7.1+cu128") == (12, 8)
    assert cuda_of_build("0.26.0") is None


def test_minor_version_compat_is_a_warning() -> None:
    facts = h200(patch={"versions": {"cuda_driver": "12.4",
                                     "python": {"packages": {"torch": "2.7.1+cu128"}}}})
    (finding,) = checks_found(facts, "cuda-compat")
    assert finding.check == "cuda-compat[minor-compat]"
    assert finding.severity is Severity.WARNING


def test_iommu_domain_inference() -> None:
    assert effective_domain(None, ["intel_iommu=on"]) == "Translated"
    assert effective_domain("Translated", ["intel_iommu=on", "iommu=pt"]) == "Passthrough"
    assert effective_domain(None, []) is None


def test_bus_ids_compare_across_spellings() -> None:
    assert short_bus_id("00000000:3B:00.0") == short_bus_id("3b:00.0") == "3b:00.0"


def test_a_live_server_is_never_stale_and_keeps_its_workers() -> None:
    server = {"pid": 10, "ppid": 1, "parent_alive": False, "devices": ["/dev/nvidia0"],
              "cmdline": "python3 -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2",
              "gpu_memory_mib": {UUID: 60000}}
    worker = {"pid": 11, "ppid": 1, "cmdline": "VLLM::Worker_TP1", "devices": ["/dev/nvidia1"],
              "gpu_memory_mib": {UUID: 60000}}
    facts = h200(patch={"processes": {"gpu": [server, worker]}})
    assert checks_found(facts, "stale-gpu-processes") == []
    alone = h200(patch={"processes": {"gpu": [worker]}})
    (finding,) = checks_found(alone, "stale-gpu-processes")
    assert (finding.check, finding.severity) == ("stale-gpu-processes[orphan-worker]",
                                                 Severity.ERROR)


def test_an_orphan_holding_only_a_device_is_a_warning() -> None:
    orphan = {"pid": 12, "ppid": 1, "parent_alive": False, "cmdline": "python3 x.py",
              "devices": ["/dev/nvidiactl", "/dev/nvidia0"]}
    (finding,) = checks_found(h200(patch={"processes": {"gpu": [orphan]}}),
                              "stale-gpu-processes")
    assert finding.severity is Severity.WARNING
    assert finding.remediation.vars["gpu_processes_terminate"] is True


def test_nofile_cites_the_limits_files() -> None:
    facts = h200(patch={"system": {"limits_files": {
        "/etc/security/limits.d/90-nofile.conf": ["* soft nofile 1024", "* hard core 0"]}}})
    (finding,) = checks_found(facts, "nofile")
    sources = [e.source for e in finding.evidence]
    assert "/etc/security/limits.d/90-nofile.conf" in sources
    assert finding.evidence[1].lines == ["* soft nofile 1024"]


def test_nofile_set_on_disk_but_not_in_this_login_says_so() -> None:
    facts = h200(patch={"system": {"limits_files": {
        "/etc/security/limits.d/90-vfix-nofile.conf": ["* soft nofile 65536",
                                                       "* hard nofile 1048576"],
        "/etc/systemd/system.conf.d/90-vfix.conf": ["DefaultLimitNOFILE=65536:1048576"]}}})
    findings = checks_found(facts, "nofile")
    assert findings  # the login still has the old limit: the finding stays
    assert all("already set enough" in f.message and "90-vfix-nofile.conf" in f.message
               for f in findings)
    low = h200(patch={"system": {"limits_files": {
        "/etc/security/limits.d/90-nofile.conf": ["* soft nofile 1024"]}}})
    assert all("already set" not in f.message for f in checks_found(low, "nofile"))


def test_ports_held_by_unknown_processes_are_reported() -> None:
    facts = h200(patch={"processes": {"listening": [
        {"port": 29500, "address": "0.0.0.0", "pid": None, "process": None}]}})
    (finding,) = checks_found(facts, "ports-in-use")
    assert "unknown process" in finding.message


def test_cpu_only_skips_gpu_checks_without_errors() -> None:
    result = audit([cpu_only()], default_policy())
    assert {f.check for f in result.findings} >= {"gpu-count[none]"}
    assert not [f for f in result.findings if f.check_id in (
        "mig-mode", "pcie-link", "persistence-mode", "iommu-p2p", "gpu-missing")]


def test_ib_disable_matters_only_where_an_hca_exists() -> None:
    env = {"system": {"env": {"NCCL_IB_DISABLE": "1"}}}
    assert checks_found(h200(patch=env), "nccl-env") == []
    with_hca = {"system": {**env["system"], "ib_devices": [{"name": "mlx5_0", "ports": []}]}}
    (finding,) = checks_found(h200(patch=with_hca), "nccl-env")
    assert finding.remediation.is_manual  # set in the environment, not /etc/nccl.conf
