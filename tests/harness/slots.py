"""Per-session allocation of node addresses, network namespaces and bridges, without collisions.

Several pytest sessions (and `python3 -m tests.harness up`) share this machine. Each takes a
*slot*: slot k owns `127.77.k.0/24` (nodes in the host network namespace), `10.213.k.0/24`
with bridge `vfxbr<k>` and namespaces `vfx<k>n<i>` (nodes in their own network namespace), and
the state directory `<STATE_DIR>/slot-<k>/`. A slot is held by an exclusive flock on
`slot-<k>.lock`; the kernel drops it when every holder (the session and the node processes,
which inherit the descriptor) is gone, so a crashed session frees its slot by itself. Taking a
slot first removes whatever its last owner left behind (stale cleanup).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

STATE_DIR = Path(os.environ.get("VFIX_TEST_NODES_STATE", "/run/vfix-test-nodes"))
MAX_SLOTS = 200
NODE_MARKER = "vfix-test-node"  # in every node process's command line; checked before a kill
HOST_NET_PREFIX = "127.77"
NETNS_NET_PREFIX = os.environ.get("VFIX_TEST_NODES_NET", "10.213")


@dataclass
class Slot:
    index: int
    lock_fd: int

    @property
    def dir(self) -> Path:
        return STATE_DIR / f"slot-{self.index}"

    @property
    def bridge(self) -> str:
        return f"vfxbr{self.index}"

    @property
    def bridge_address(self) -> str:
        return f"{NETNS_NET_PREFIX}.{self.index}.254"

    def host_address(self, node_index: int) -> str:
        return f"{HOST_NET_PREFIX}.{self.index}.{node_index}"

    def netns_address(self, node_index: int) -> str:
        return f"{NETNS_NET_PREFIX}.{self.index}.{node_index}"

    def netns(self, node_index: int) -> str:
        return f"vfx{self.index}n{node_index}"

    def release(self) -> None:
        if self.lock_fd < 0:
            return
        clean_slot(self.index)
        with contextlib.suppress(OSError):
            os.close(self.lock_fd)
        self.lock_fd = -1


def acquire_slot() -> Slot:
    """Take the lowest free slot (non-blocking flock), cleaning what a dead owner left."""
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    for index in range(MAX_SLOTS):
        fd = os.open(STATE_DIR / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        clean_slot(index)
        return Slot(index=index, lock_fd=fd)
    raise RuntimeError(f"all {MAX_SLOTS} test-node slots under {STATE_DIR} are in use")


def kill_recorded(pid_file: Path) -> None:
    """SIGKILL the node whose unshare PID is recorded in pid_file, if it is still ours."""
    try:
        pid = int(pid_file.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if b"\0" + NODE_MARKER.encode() + b"\0" in cmdline:  # our marker argument, not a path
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # unshare --fork ignores SIGTERM


def ip(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def clean_slot(index: int) -> None:
    """Remove every trace of slot `index`: node processes, veths, namespaces, bridge, files."""
    slot_dir = STATE_DIR / f"slot-{index}"
    for pid_file in slot_dir.glob("*/pid"):
        kill_recorded(pid_file)
    prefix = f"vfx{index}n"
    links = ip("-o", "link", "show").stdout
    for line in links.splitlines():
        name = line.split(":")[1].strip().split("@")[0] if ":" in line else ""
        if name.startswith(prefix) and name.endswith("h"):
            ip("link", "del", name)  # veths linger past `ip netns del` unless deleted first
    for line in ip("netns", "list").stdout.splitlines():
        name = line.split()[0] if line.strip() else ""
        if name.startswith(prefix):
            ip("netns", "del", name)
    if f": vfxbr{index}:" in links:
        ip("link", "del", f"vfxbr{index}")
    shutil.rmtree(slot_dir, ignore_errors=True)
