"""`vfix fix` on real SSH test nodes: the dry run writes nothing, apply fixes and re-audits
clean, a second apply changes nothing, and a node killed mid-run stops the rolling run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness import seeds

pytestmark = [pytest.mark.nodes, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ONLY = "shm-size,nccl-env"  # fixes a re-gather can observe on a test node
BROKEN = seeds.with_default(seeds.SMALL_SHM, {"/etc/nccl.conf": "NCCL_P2P_DISABLE=1\n"})


def vfix(cwd: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "ANSIBLE_FACT_CACHING": "memory"}
    return subprocess.Popen([sys.executable, "-m", "vfix", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = process.communicate(timeout=600)
    return process.returncode, out + err


def test_dry_run_then_apply_then_apply_again(tmp_path, test_nodes):
    nodes = test_nodes(3, seed=BROKEN)
    inventory = nodes.write_inventory(tmp_path / "hosts.yml", user="ansible")
    rc, out = finish(vfix(tmp_path, "gather", "-i", str(inventory), "--out", str(tmp_path / "b")))
    assert rc == 0, out
    facts = ["-i", str(inventory), "--facts", str(tmp_path / "b"), "--only", ONLY]

    # (1) the dry run finds work on every node, and writes not one byte on any of them
    before = [node.snapshot() for node in nodes]
    rc, out = finish(vfix(tmp_path, "fix", *facts))
    assert rc == 1, out
    assert "would change 6 task(s) on 3 host(s)" in out, out
    for line in ("  role shm fixes shm-size[small]\n", '      with shm_size="16G"\n',
                 "  role nccl_env fixes nccl-env[hazard]\n", "  would change: 2 task(s)\n"):
        assert out.count(line) == 3, (line, out)
    assert out.count("      +tmpfs /dev/shm tmpfs defaults,size=16G 0 0") == 3, out  # the diffs
    assert [node.snapshot() for node in nodes] == before

    # (2) apply: rolling, then re-gather and re-audit: clean
    rc, out = finish(vfix(tmp_path, "fix", *facts, "--apply", "--serial", "2"))
    assert rc == 0, out
    for node in nodes:
        assert "NCCL_P2P_DISABLE" not in node.read("/etc/nccl.conf")
        assert "size=16G" in node.read("/etc/fstab")
    assert out.count("after:  PASS, 0 findings") == 3, out

    # (3) the same plan applied again changes nothing
    rc, out = finish(vfix(tmp_path, "fix", *facts, "--apply"))
    assert rc == 0, out
    assert out.count("  changed: 0 task(s)") == 3, out
    assert "changed 0 task(s) on 0 host(s)" in out, out


def test_a_node_killed_mid_run_stops_the_rolling_run_and_is_named(tmp_path, test_nodes):
    nodes = test_nodes(3, seed=BROKEN)
    inventory = nodes.write_inventory(tmp_path / "hosts.yml", user="ansible")
    first, second, third = nodes
    process = vfix(tmp_path, "fix", "-i", str(inventory), "--only", ONLY, "--apply",
                   "--serial", "1", "--max-fail-percent", "0")
    deadline = time.monotonic() + 300
    while not first.changed_paths():  # gathering is read-only: a change means batch 1 runs
        assert process.poll() is None and time.monotonic() < deadline, finish(process)
        time.sleep(0.1)
    second.kill()
    rc, out = finish(process)

    assert rc == 1, out
    assert f"rolling run stopped: {second.name} failed (max fail percentage 0%, serial 1); " \
           f"not run: {third.name}" in out, out
    assert f"{second.name}:\n  role shm" in out
    assert "UNREACHABLE" in out.split(f"{second.name}:\n", 1)[1], out
    assert "NOT RUN" in out.split(f"{third.name}:\n", 1)[1], out
    assert third.changed_paths() == []  # the third node was never touched
    assert "size=16G" in first.read("/etc/fstab")
