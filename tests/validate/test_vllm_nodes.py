"""`vfix validate vllm` through Ansible on an SSH test node, against the vLLM test double:
the role copies the driver, the driver launches the server, the results and logs come back."""

from __future__ import annotations

from pathlib import Path

import pytest

from vfix.validate import runs
from vfix.vocabulary import Layer, Verdict

pytestmark = [pytest.mark.nodes, pytest.mark.slow]

DOUBLES = Path(__file__).resolve().parents[1] / "doubles"


def smoke_vars(**extra: object) -> dict[str, object]:
    return {"vllm_smoke_model": "/opt/model", "vllm_smoke_tp": 2,
            "vllm_smoke_serve_cmd": "python3 /opt/doubles/fake_vllm_server.py",
            "vllm_smoke_ready_timeout_s": 20, "vllm_smoke_teardown_timeout_s": 5, **extra}


@pytest.fixture
def smoke_node(tmp_path, test_nodes):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"vocab_size": 1024}')
    # Its own network namespace: the server's port cannot collide with anything on the host.
    nodes = test_nodes(1, netns=True,
                       binds={str(DOUBLES): "/opt/doubles", str(model): "/opt/model"})
    return nodes, nodes.write_inventory(tmp_path / "hosts.yml", user="ansible")


def test_smoke_run_on_a_node_passes_and_brings_back_results_and_logs(tmp_path, smoke_node):
    nodes, inventory = smoke_node
    report = runs.validate_vllm(inventory, None, tmp_path / "out", smoke_vars())
    [node] = report.nodes
    assert node.host == nodes[0].name and node.verdict is Verdict.PASS, node.findings
    assert node.metrics["tp1_token_agreement"] == 1.0 and node.metrics["tp2.ranks"] == 2
    host_dir = tmp_path / "out" / node.host
    assert {p.name for p in host_dir.iterdir()} >= {
        "result.json", "driver.json", "vllm-serve-tp2.log", "vllm-serve-tp1.log"}
    assert not [p for p in nodes[0].processes() if "fake_vllm_server" in p]


def test_a_server_that_dies_is_diagnosed_from_the_fetched_log(tmp_path, smoke_node):
    _, inventory = smoke_node
    report = runs.validate_vllm(inventory, None, tmp_path / "out", smoke_vars(
        vllm_smoke_env={"FAKE_VLLM_MODE": "die-at-start"}))
    [node] = report.nodes
    assert node.verdict is Verdict.FAIL
    [finding] = node.findings
    assert finding.check == "vllm-smoke[not-ready]" and finding.layer is Layer.VERSIONS
