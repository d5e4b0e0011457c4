"""`vfix onboard` end to end on two namespaced SSH test nodes: gather, audit, fix dry run,
all-reduce (gloo) across both nodes; one verdict per node with the numbers; a dry run that
changed nothing on the nodes."""

from __future__ import annotations

import json

import pytest

from vfix.cli import main
from vfix.vocabulary import Verdict

pytestmark = [pytest.mark.nodes, pytest.mark.slow]


def test_onboard_two_nodes_dry_run(tmp_path, test_nodes, torch_cpu_dir, capsys):
    nodes = test_nodes(2, netns=True, binds={str(torch_cpu_dir): "/opt/torch"})
    inventory = nodes.write_inventory(tmp_path / "hosts.yml", user="ansible")
    before = [node.snapshot() for node in nodes]
    with pytest.raises(SystemExit) as exit_info:
        main(["onboard", "-i", str(inventory), "--out", str(tmp_path / "run"), "-f", "json",
              "--allreduce-var", "allreduce_pythonpath=/opt/torch",
              "--allreduce-var", "allreduce_backend=gloo",
              "--allreduce-var", "allreduce_ifname=eth0",
              "--allreduce-var", "allreduce_min_bytes=65536",
              "--allreduce-var", "allreduce_max_bytes=262144"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "onboard"
    assert [n["host"] for n in doc["nodes"]] == [n.name for n in nodes]
    for node in doc["nodes"]:
        metrics = node["metrics"]
        assert metrics["fix.mode"] == "dry-run"
        assert metrics["allreduce.world_size"] == 2 and metrics["allreduce.wrong"] == 0
        assert isinstance(metrics["audit.errors"], int) and isinstance(metrics["fix.steps"], int)
        assert any("nccl-tests not run: no GPU" in note for note in node["notes"])
        assert node["verdict"] in {v.value for v in Verdict}
    failing = any(n["verdict"] == "FAIL" for n in doc["nodes"])
    assert exit_info.value.code == (1 if failing else 0)
    assert [node.snapshot() for node in nodes] == before  # the dry run changed nothing
