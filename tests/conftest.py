"""Shared pytest fixtures. The real SSH test nodes: see tests/harness/README.md."""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

# `tests.harness` imports as a package whether pytest runs as `pytest` or `python3 -m pytest`.
REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.harness.nodes import Cluster, NodeSet  # noqa: E402
from tests.harness.seeds import Seed  # noqa: E402


@pytest.fixture(scope="session")
def node_cluster() -> Iterator[Cluster]:
    """This session's slot of test nodes (addresses, netns, key); built/cached rootfs."""
    if os.geteuid() != 0:
        pytest.skip("the SSH test nodes need root (namespaces, mounts)")
    cluster = Cluster.create()
    atexit.register(cluster.close)  # also on an interrupted session
    yield cluster
    cluster.close()


StartNodes = Callable[..., NodeSet]


@pytest.fixture
def test_nodes(node_cluster: Cluster) -> Iterator[StartNodes]:
    """Factory: `test_nodes(count=4, netns=False, seed=None, binds=None)` -> NodeSet.

    Nodes are fresh (empty upper dirs, DEFAULT seed plus `seed`) and stopped after the test.
    """
    started: list[NodeSet] = []

    def start(count: int = 4, netns: bool = False, seed: Seed | None = None,
              binds: Mapping[str, str] | None = None) -> NodeSet:
        node_set = node_cluster.start(count, netns=netns, seed=seed, binds=binds)
        started.append(node_set)
        return node_set

    yield start
    for node_set in started:
        node_set.stop()
