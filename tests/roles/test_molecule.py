"""The remediation roles on real SSH test nodes.

One molecule scenario per role (molecule/<role>/: prepare a broken state, check, converge,
idempotence, verify against the real files), plus a byte-level proof that a dry run of every
role together changes nothing on a node seeded with every broken state.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import seeds

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = ["shm", "iommu_grub", "sysctl", "limits", "nccl_env", "persistence", "clocks",
             "gpu_recovery"]

pytestmark = [pytest.mark.nodes, pytest.mark.slow]


def ansible_env(inventory: Path, ephemeral: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
        "ANSIBLE_FACT_CACHING": "memory",  # keep the shared .vfix/fact_cache out of it
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "NO_COLOR": "1",
        "ANSIBLE_NOCOLOR": "1",
        "VFIX_MOLECULE_INVENTORY": str(inventory),
        "MOLECULE_EPHEMERAL_DIRECTORY": str(ephemeral),
    })
    return env


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_role_scenario(scenario: str, test_nodes, tmp_path: Path) -> None:
    nodes = test_nodes(count=1)
    inventory = nodes.write_inventory(tmp_path / "inventory.yml", user="ansible")
    run = subprocess.run(["molecule", "test", "--scenario-name", scenario], cwd=REPO,
                         env=ansible_env(inventory, tmp_path / "molecule"),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-6000:]


def test_vllm_smoke_scenario(test_nodes, tmp_path: Path) -> None:
    # Its own network namespace: the test double's server port cannot collide with the host.
    nodes = test_nodes(count=1, netns=True)
    inventory = nodes.write_inventory(tmp_path / "inventory.yml", user="ansible")
    run = subprocess.run(["molecule", "test", "--scenario-name", "vllm_smoke"], cwd=REPO,
                         env=ansible_env(inventory, tmp_path / "molecule"),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-6000:]


DRY_RUN = """\
- name: Dry-run every remediation role
  hosts: all
  roles:
    - {role: shm, shm_size: 1G}
    - {role: iommu_grub, iommu_grub_force_on_vm: true, iommu_grub_cpu_vendor: intel}
    - {role: sysctl, sysctl_settings: {vm.max_map_count: 1048576}}
    - {role: limits}
    - {role: nccl_env, nccl_env_settings: {NCCL_SOCKET_IFNAME: eth0}}
    - {role: persistence}
    - {role: clocks, clocks_state: max}
    - {role: gpu_recovery, gpu_recovery_action: reset}
"""


def test_dry_run_changes_zero_bytes(test_nodes, tmp_path: Path) -> None:
    broken = seeds.with_default(seeds.SMALL_SHM, seeds.GRUB_WITHOUT_IOMMU, seeds.LOW_NOFILE,
                                {"/etc/nccl.conf": "NCCL_P2P_DISABLE=1\n"})
    nodes = test_nodes(count=1, seed=broken)
    inventory = nodes.write_inventory(tmp_path / "inventory.yml", user="ansible")
    playbook = tmp_path / "dry_run.yml"
    playbook.write_text(DRY_RUN)
    before = nodes[0].snapshot()
    run = subprocess.run(["ansible-playbook", "-i", str(inventory), "--check", "--diff",
                          str(playbook)], cwd=REPO, env=ansible_env(inventory, tmp_path),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-6000:]
    # The dry run did find work to do (so this is not vacuous) ...
    assert "changed=0" not in run.stdout, run.stdout[-3000:]
    assert "+tmpfs /dev/shm tmpfs defaults,size=1G 0 0" in run.stdout
    # ... and wrote nothing at all on the node.
    assert nodes[0].snapshot() == before
