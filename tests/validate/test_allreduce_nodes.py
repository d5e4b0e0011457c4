"""`vfix validate allreduce` with the gloo backend across namespaced SSH test nodes: a real
torchrun c10d rendezvous over a real network (each node its own network namespace)."""

from __future__ import annotations

import pytest

from vfix.validate import runs
from vfix.vocabulary import Layer, Verdict

pytestmark = [pytest.mark.nodes, pytest.mark.slow]


def test_gloo_allreduce_across_two_namespaced_nodes(tmp_path, test_nodes, torch_cpu_dir):
    nodes = test_nodes(2, netns=True, binds={str(torch_cpu_dir): "/opt/torch"})
    inventory = nodes.write_inventory(tmp_path / "hosts.yml")
    report = runs.validate_allreduce(inventory, None, tmp_path / "out", {
        "allreduce_pythonpath": "/opt/torch", "allreduce_backend": "gloo",
        "allreduce_ifname": "eth0", "allreduce_min_bytes": 65536,
        "allreduce_max_bytes": 1048576, "allreduce_iters": 5, "allreduce_warmup": 1,
        "allreduce_timeout_s": 120})
    assert [n.host for n in report.nodes] == [n.name for n in nodes]
    for node in report.nodes:
        assert node.verdict is Verdict.PASS, node.findings
        assert node.metrics["world_size"] == 2 and node.metrics["nnodes"] == 2
        assert node.metrics["backend"] == "gloo" and node.metrics["wrong"] == 0
        assert node.metrics["largest_bytes"] == 1048576
        busbw, algbw = node.metrics["busbw_gbps"], node.metrics["algbw_gbps"]
        assert isinstance(busbw, float) and isinstance(algbw, float) and busbw > 0
        assert abs(busbw - algbw * 2 * (2 - 1) / 2) < 1e-3  # nccl-tests' factor at n=2


def test_an_unreachable_rendezvous_fails_in_the_network_layer(tmp_path, test_nodes,
                                                               torch_cpu_dir):
    nodes = test_nodes(1, netns=True, binds={str(torch_cpu_dir): "/opt/torch"})
    inventory = nodes.write_inventory(tmp_path / "hosts.yml")
    report = runs.validate_allreduce(inventory, None, tmp_path / "out", {
        "allreduce_pythonpath": "/opt/torch", "allreduce_backend": "gloo",
        # The bridge's own address on the test network: nothing listens on the port there.
        "allreduce_rdzv_host": nodes.cluster.slot.bridge_address, "allreduce_rdzv_port": 29599,
        "allreduce_max_bytes": 65536, "allreduce_timeout_s": 20,
        "allreduce_rdzv_join_timeout_s": 10, "allreduce_rdzv_read_timeout_s": 10})
    for node in report.nodes:
        assert node.verdict is Verdict.FAIL
        [finding] = node.findings
        assert finding.check == "allreduce[did-not-run]" and finding.layer is Layer.NETWORK
