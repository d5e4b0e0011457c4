"""The nccl_tests role on an SSH test node without a CUDA toolkit: the role stops at its
precondition with the reason, and `vfix validate nccl` turns that into a FAIL for the node
(no traceback, nothing half-built). The build and run themselves ran on the real H200
(tests/data/validate-h200)."""

from __future__ import annotations

import pytest

from vfix.validate import runs
from vfix.vocabulary import Verdict

pytestmark = [pytest.mark.nodes, pytest.mark.slow]

FAKE_NCCL_H = "#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n"


def test_missing_nvcc_fails_the_node_with_the_reason(tmp_path, test_nodes):
    nodes = test_nodes(1, seed={"/opt/nccl/include/nccl.h": FAKE_NCCL_H})
    inventory = nodes.write_inventory(tmp_path / "hosts.yml", user="ansible")
    report = runs.validate_nccl(inventory, None, tmp_path / "out",
                                {"nccl_tests_nccl_home": "/opt/nccl",
                                 "nccl_tests_source_dir": str(tmp_path)})
    [node] = report.nodes
    assert node.verdict is Verdict.FAIL
    [finding] = node.findings
    assert finding.check == "nccl-tests[role-failed]"
    assert "nvcc" in finding.message and "2.28.9" in finding.message
    assert not node_paths_under(nodes[0], "/var/cache/vfix")


def node_paths_under(node, prefix: str) -> list[str]:
    return [path for path in node.changed_paths() if path.startswith(prefix)]
