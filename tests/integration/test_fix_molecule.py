"""Molecule scenarios of the gpu_processes and versions roles, on a real SSH test node:
prepare a broken state, check, converge, idempotence, verify against the real processes/files.

The versions scenario downloads pip and two real nvidia-nccl-cu13 wheels once into
~/.cache/vfix/wheels (or $VFIX_WHEEL_CACHE) on the controller; the node has no network.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.nodes, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scenario", ["gpu_processes", "versions"])
def test_fix_role_scenario(scenario: str, test_nodes, tmp_path: Path) -> None:
    nodes = test_nodes(count=1)
    inventory = nodes.write_inventory(tmp_path / "inventory.yml", user="ansible")
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
        "ANSIBLE_FACT_CACHING": "memory",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
        "ANSIBLE_NOCOLOR": "1",
        "VFIX_MOLECULE_INVENTORY": str(inventory),
        "MOLECULE_EPHEMERAL_DIRECTORY": str(tmp_path / "molecule"),
    }
    run = subprocess.run(["molecule", "test", "--scenario-name", scenario], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-6000:]
    assert "idempotence" in run.stdout + run.stderr
