"""The fleet drift scenario on real SSH test nodes: seeded drift found by `vfix audit -i`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import seeds

pytestmark = [pytest.mark.nodes, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
NCCL_CONF_DRIFT = "NCCL_SOCKET_IFNAME=ens9\nNCCL_P2P_DISABLE=1\n"


def vfix(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "vfix", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def findings_by_host(report: dict) -> dict[str, set[str]]:
    return {h["host"]: {f["check"] for f in h["findings"]} for h in report["hosts"]}


def test_seeded_drift_is_found_on_the_right_nodes(tmp_path: Path, test_nodes) -> None:
    nodes = test_nodes(4, seed=seeds.nvidia_smi_double())
    names = [n.name for n in nodes]
    # Seeded drift, on the nodes themselves: node 3 gets a stray /etc/nccl.conf, node 4 a small
    # /dev/shm (remounted inside its own mount namespace).
    nodes[2].exec("sh", "-c", f"printf '{NCCL_CONF_DRIFT}' > /etc/nccl.conf")
    nodes[3].exec("mount", "-o", "remount,size=64M", "/dev/shm")
    before = [node.snapshot() for node in nodes]
    inventory = nodes.write_inventory(tmp_path / "hosts.yml", user="ansible",
                                      groups={"gpu_h200": names})

    done = vfix(tmp_path, "audit", "-i", str(inventory), "--format", "json",
                "--output", str(tmp_path / "audit.json"))
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "audit.json").read_text())
    found = findings_by_host(report)
    assert sorted(found) == sorted(names)

    stray, small = names[2], names[3]
    assert {"nccl-env[hazard]", "nccl-env[differs]", "socket-ifname[missing]"} <= found[stray]
    assert "config-drift[shm-size]" in found[small]
    drift = [f for h in report["hosts"] for f in h["findings"]
             if "-drift[" in f["check"] or f["check"] == "nccl-env[differs]"]
    assert {f["host"] for f in drift} == {stray, small}, drift  # the others match the majority
    shm = next(f for f in drift if f["check"] == "config-drift[shm-size]")
    assert shm["observed"] == "64 MiB" and shm["expected"] == "256 MiB"
    assert "group gpu_h200 majority is 256 MiB (3/4 hosts)" in shm["message"]
    hazard = next(f for h in report["hosts"] if h["host"] == stray for f in h["findings"]
                  if f["check"] == "nccl-env[hazard]")
    assert hazard["evidence"] == [{"source": "/etc/nccl.conf", "lines": ["NCCL_P2P_DISABLE=1"]}]
    assert hazard["remediation"] == {"role": "nccl_env", "vars": {
        "nccl_env_remove": ["NCCL_P2P_DISABLE"]}, "manual": None}
    assert [node.snapshot() for node in nodes] == before  # auditing reads only

    # The same evidence re-judged from the saved run, with a policy that accepts small shm
    # and drops the drift checks: only the NCCL hazards remain.
    (run,) = (tmp_path / ".vfix" / "runs").iterdir()
    policy = tmp_path / "policy.yaml"
    policy.write_text("checks:\n  shm-size: {size: 32M}\n  config-drift: {enabled: false}\n"
                      "  version-drift: {enabled: false}\n")
    again = vfix(tmp_path, "audit", "--facts", str(run), "--policy", str(policy), "-f", "json")
    rejudged = findings_by_host(json.loads(again.stdout))
    assert not any("shm" in check for checks in rejudged.values() for check in checks)
    assert "nccl-env[hazard]" in rejudged[stray]

    # Fix node 3 by hand, gather again: `vfix diff` shows exactly that host's change.
    nodes[2].exec("rm", "/etc/nccl.conf")
    second = vfix(tmp_path, "gather", "-i", str(inventory), "--out", str(tmp_path / "run2"))
    assert second.returncode == 0, second.stderr
    diff = vfix(tmp_path, "diff", str(run), str(tmp_path / "run2"), "--format", "json")
    assert diff.returncode == 1
    changed = {d["host"]: d for d in json.loads(diff.stdout) if d["status"] == "changed"}
    assert set(changed) == {stray}
    assert any(c["key"].startswith("system.nccl_conf") for c in changed[stray]["changes"])
    assert any(f.startswith("nccl-env[hazard]") for f in changed[stray]["findings_resolved"])
