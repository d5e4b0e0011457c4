"""`python3 -m tests.harness up/down`: nodes that outlive the command, for molecule/benchmarks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.harness.slots import ip

pytestmark = pytest.mark.nodes
REPO = Path(__file__).resolve().parents[2]


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.harness", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=True)


def test_up_leaves_nodes_running_and_down_removes_every_trace(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the SSH test nodes need root")
    name = f"pytest-{os.getpid()}"
    inventory = Path(harness("up", "2", "--netns", "--user", "ansible", "--name", name,
                             "--inventory", str(tmp_path / "hosts.yml")).stdout.strip())
    try:
        document = yaml.safe_load(inventory.read_text())
        assert document["all"]["vars"]["ansible_user"] == "ansible"
        hosts = document["all"]["hosts"]
        assert len(hosts) == 2
        for host in hosts.values():
            with socket.create_connection((host["ansible_host"], host["ansible_port"]), 5) as s:
                assert s.recv(4) == b"SSH-"
        key = Path(document["all"]["vars"]["ansible_ssh_private_key_file"])
        slot_dir = key.parent
    finally:
        harness("down", "--name", name)
    assert not slot_dir.exists()
    assert f"vfx{slot_dir.name.removeprefix('slot-')}n" not in ip("netns", "list").stdout
