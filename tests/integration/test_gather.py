"""`vfix gather` against real SSH test nodes: many hosts, become, a node dying mid-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import seeds
from vfix.gather import HostState, gather, load_run_dir

pytestmark = [pytest.mark.nodes, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


def vfix(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "vfix", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_gather_across_four_nodes_writes_a_run_that_reads_back(tmp_path, test_nodes):
    nodes = test_nodes(4, seed=seeds.nvidia_smi_double())
    inventory = nodes.write_inventory(
        tmp_path / "hosts.yml", user="root",
        groups={"gpu_h200": [n.name for n in nodes]},
        host_vars={nodes[0].name: {"vfix_expected_gpus": 1, "unrelated_var": "x"}})
    run = gather(inventory, out=tmp_path / "run", progress=False)

    assert sorted(run.ok_hosts) == sorted(n.name for n in nodes)
    for node in nodes:
        facts = run.facts[node.name]
        assert facts.host == node.name
        assert facts.system.hostname == node.name  # evidence came from that node
        assert [g.name for g in facts.gpus] == ["NVIDIA H200"]  # the double's real capture
        assert facts.group_names == ["gpu_h200"]
        assert node.changed_paths() == []  # gathering is read-only
    assert run.facts[nodes[0].name].group_vars == {"vfix_expected_gpus": 1}

    again = load_run_dir(run.path)
    assert again.record == run.record
    assert again.facts == run.facts
    record = json.loads((run.path / "run.json").read_text())
    assert record["inventory"] == str(inventory)
    assert all(h["status"] == "ok" and h["duration_s"] > 0 for h in record["hosts"].values())
    probe = json.loads((run.path / f"{nodes[1].name}.probe.json").read_text())
    assert probe["probe_version"]


def test_become_through_the_unprivileged_user(tmp_path, test_nodes):
    nodes = test_nodes(2)
    as_user = gather(nodes.write_inventory(tmp_path / "user.yml", user="ansible", become=False),
                     out=tmp_path / "user", progress=False)
    as_root = gather(nodes.write_inventory(tmp_path / "become.yml", user="ansible", become=True),
                     out=tmp_path / "become", progress=False)
    for node in nodes:
        plain = json.loads((as_user.path / f"{node.name}.probe.json").read_text())
        became = json.loads((as_root.path / f"{node.name}.probe.json").read_text())
        assert plain["processes"]["is_root"] is False
        assert became["processes"]["is_root"] is True
    assert as_root.facts[nodes[0].name].system.hostname == nodes[0].name


def test_a_node_killed_mid_run_is_reported_and_the_others_complete(tmp_path, test_nodes):
    nodes = test_nodes(4)
    victim = nodes[2]
    victim_seed = seeds.with_default(seeds.nvidia_smi_double(delay_s=60))
    nodes.reset()  # all fresh, then give only the victim a slow GPU tool
    victim.kill()
    nodes.cluster.boot([victim], victim_seed)
    inventory = nodes.write_inventory(tmp_path / "hosts.yml", user="ansible")

    process = vfix("gather", "-i", str(inventory), "--out", str(tmp_path / "run"))
    victim.wait_for_process("nvidia-smi", timeout=60)  # the probe is running on it now
    victim.kill()
    stdout, stderr = process.communicate(timeout=120)

    assert process.returncode == 1, stderr
    run = load_run_dir(tmp_path / "run")
    assert sorted(run.ok_hosts) == sorted(n.name for n in nodes if n is not victim)
    status = run.statuses[victim.name]
    assert status.status in (HostState.UNREACHABLE, HostState.FAILED)
    assert status.reason
    assert victim.name in stdout and status.status.value in stdout


def test_nothing_reachable_is_an_operational_error(tmp_path, test_nodes):
    nodes = test_nodes(2)
    inventory = nodes.write_inventory(tmp_path / "hosts.yml")
    for node in nodes:
        node.kill()
    process = vfix("gather", "-i", str(inventory), "--out", str(tmp_path / "run"))
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2
    assert stderr.startswith("vfix: error: no host could be probed") and stderr.count("\n") == 1
    run = load_run_dir(tmp_path / "run")  # the evidence of the failure is still written
    assert run.ok_hosts == [] and sorted(run.bad_hosts) == sorted(n.name for n in nodes)
    assert all(s.status is HostState.UNREACHABLE for s in run.statuses.values())


def test_limit_selects_hosts(tmp_path, test_nodes):
    nodes = test_nodes(3)
    inventory = nodes.write_inventory(tmp_path / "hosts.yml",
                                      groups={"a": [nodes[0].name, nodes[1].name]})
    run = gather(inventory, limit=f"a:!{nodes[1].name}", out=tmp_path / "run", progress=False)
    assert list(run.statuses) == [nodes[0].name]
    assert run.record.limit == f"a:!{nodes[1].name}"
