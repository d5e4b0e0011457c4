"""The test-node harness itself: real sshd, become, seeds, fresh state, kill, isolation."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.harness import seeds
from tests.harness.nodes import Cluster, Node
from tests.harness.slots import STATE_DIR, acquire_slot, ip

pytestmark = pytest.mark.nodes


def ssh(cluster: Cluster, node: Node, user: str, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ssh", "-i", str(cluster.private_key), "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes",
         "-p", str(node.port), f"{user}@{node.address}", command],
        capture_output=True, text=True, timeout=30)


def test_nodes_accept_root_and_the_unprivileged_sudo_user_by_key(node_cluster, test_nodes):
    nodes = test_nodes(2)
    for node in nodes:
        assert ssh(node_cluster, node, "root", "id -u").stdout.strip() == "0"
        user = ssh(node_cluster, node, "ansible", "id -un; sudo -n id -u")
        assert user.stdout.split() == ["ansible", "0"], user.stderr
        assert ssh(node_cluster, node, "root", "hostname").stdout.strip() == node.name


def test_password_logins_are_refused(test_nodes):
    node = test_nodes(1)[0]
    result = subprocess.run(
        ["ssh", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "BatchMode=yes", "-o", "PubkeyAuthentication=no", "-p", str(node.port),
         f"root@{node.address}", "true"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 255
    assert "Permission denied" in result.stderr


def test_seeds_are_visible_and_the_upper_dir_holds_only_node_writes(node_cluster, test_nodes):
    node = test_nodes(1, seed=seeds.SMALL_SHM)[0]
    assert "size=64M" in node.read("/etc/fstab")
    assert node.read("/etc/default/grub") == seeds.GRUB_DEFAULT
    assert node.changed_paths() == []  # logins and sudo leave no trace
    ssh(node_cluster, node, "ansible",
        "sudo -n sh -c 'echo vm.swappiness=1 > /etc/sysctl.d/99-t.conf'")
    assert node.changed_paths() == ["/etc/sysctl.d/99-t.conf"]
    assert (node.upper_dir / "etc/sysctl.d/99-t.conf").read_text() == "vm.swappiness=1\n"


def test_proc_sys_is_read_only_inside_nodes(node_cluster, test_nodes):
    node = test_nodes(1)[0]
    before = Path("/proc/sys/kernel/pid_max").read_text()
    result = ssh(node_cluster, node, "root", "echo 32768 > /proc/sys/kernel/pid_max")
    assert result.returncode != 0
    assert "Read-only file system" in result.stderr
    assert Path("/proc/sys/kernel/pid_max").read_text() == before


def test_reset_gives_fresh_state(node_cluster, test_nodes):
    nodes = test_nodes(2)
    ssh(node_cluster, nodes[0], "root", "echo x > /etc/marker")
    assert nodes[0].changed_paths() == ["/etc/marker"]
    nodes.reset(seed=seeds.LOW_NOFILE)
    assert nodes[0].changed_paths() == []
    assert "nofile" in nodes[1].read("/etc/security/limits.d/90-nofile.conf")
    assert ssh(node_cluster, nodes[0], "root", "test -e /etc/marker").returncode == 1


def test_kill_drops_the_node_mid_session(node_cluster, test_nodes):
    nodes = test_nodes(2)
    session = subprocess.Popen(
        ["ssh", "-i", str(node_cluster.private_key), "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-p", str(nodes[0].port),
         f"root@{nodes[0].address}", "sleep 60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    nodes[0].wait_for_process("sleep 60", timeout=10)
    nodes[0].kill()
    assert session.wait(timeout=10) == 255
    assert not nodes[0].alive
    assert ssh(node_cluster, nodes[1], "root", "true").returncode == 0


def test_namespaced_nodes_talk_to_each_other(test_nodes):
    nodes = test_nodes(2, netns=True)
    probe = (f"import socket; s = socket.create_connection(('{nodes[1].address}', 22), 5); "
             "print(s.recv(4).decode())")
    assert nodes[0].exec("python3", "-c", probe).stdout.strip() == "SSH-"
    assert nodes[0].exec("getent", "hosts", nodes[1].name).stdout.split()[0] == nodes[1].address


def test_read_only_bind_mounts(tmp_path, test_nodes):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "torch.txt").write_text("2.11.0\n")
    (tmp_path / "version").write_text("0.26.0\n")
    node = test_nodes(1, binds={str(tmp_path / "site"): "/opt/site",
                                str(tmp_path / "version"): "/etc/vllm-version"})[0]
    assert node.read("/opt/site/torch.txt") == "2.11.0\n"
    assert node.read("/etc/vllm-version") == "0.26.0\n"
    assert node.changed_paths() == []
    assert node.exec("touch", "/opt/site/x", check=False).returncode != 0


def test_nvidia_smi_double_replays_the_real_capture(test_nodes):
    node = test_nodes(1, seed=seeds.nvidia_smi_double())[0]
    xml = node.exec("nvidia-smi", "-q", "-x").stdout
    assert "NVIDIA H200" in xml
    unknown = node.exec("nvidia-smi", "--query-gpu=name", "--format=csv", check=False)
    assert unknown.returncode == 2 and "no capture" in unknown.stderr


def test_slots_are_exclusive_and_stale_state_is_cleaned(node_cluster):
    other = acquire_slot()
    try:
        assert other.index != node_cluster.slot.index
        leftover = other.dir / "node9"
        leftover.mkdir(parents=True)
        ip("netns", "add", other.netns(9), check=True)
    finally:
        other.release()
    assert not other.dir.exists()
    assert other.netns(9) not in ip("netns", "list").stdout
    assert (STATE_DIR / f"slot-{node_cluster.slot.index}").is_dir()
