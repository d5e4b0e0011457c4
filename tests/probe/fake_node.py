"""Test double of a GPU node's file system (/proc, /sys, /etc) for the probe's ROOT option,
seeded from the real H200 capture (tests/data/h200-1gpu/system.txt), plus helpers to run
the probe against it with the fake tools on PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PROBE = REPO / "vfix" / "probe" / "vfix_probe.py"
FAKE_TOOLS = Path(__file__).resolve().parent / "fake_tools"
FAKE_TOOLS_DENIED = Path(__file__).resolve().parent / "fake_tools_denied"
GPU_PID = 4242
DEAD_PARENT = 4199  # the worker's launcher has exited: a stale GPU holder
SOCKET_INODE = 987654
# Listening on 0.0.0.0:29500 (torch.distributed's default port) and [::]:8000.
TCP_LINE = ("   0: 00000000:733C 00000000:0000 0A 00000000:00000000 00:00000000 00000000"
            f"     0        0 {SOCKET_INODE} 1 0000000000000000 100 0 0 10 0")
TCP6_LINE = ("   0: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000"
             " 0A 00000000:00000000 00:00000000 00000000     0        0 55555 1 0 100 0 0 10 0")
LIMITS = """Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max stack size            8388608              unlimited            bytes
Max processes             515423               515423               processes
Max open files            20000                20000                files
Max locked memory         unlimited            unlimited            bytes
"""


def _write(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def build_fake_root(root: Path) -> Path:
    """A node with one H200 at 0000:00:06.0 (NUMA 0), a vLLM worker holding /dev/nvidia0
    whose parent is gone, an IB port, limits files, /etc/nccl.conf with a secret."""
    files = {
        "/proc/driver/nvidia/version":
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build"
            "  (nixbld@)\nGCC version:  gcc version 15.3.0 (GCC)\n",
        "/proc/cmdline": "console=ttyS0 quiet intel_iommu=on iommu=pt pci=realloc=off\n",
        "/etc/os-release": 'PRETTY_NAME="Ubuntu 24.04.3 LTS"\nID=ubuntu\nVERSION_ID="24.04"\n',
        "/proc/meminfo": "MemTotal:       131961788 kB\nMemFree:        3511000 kB\n",
        "/proc/cpuinfo": "".join(
            f"processor\t: {n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) "
            "Processor\nphysical id\t: 0\nflags\t\t: fpu vme hypervisor avx512f\n\n"
            for n in range(16)),
        "/proc/mounts": "tmpfs /dev/shm tmpfs rw,relatime,size=131961788k 0 0\n"
                        "tmpfs /dev/shm tmpfs rw,relatime,size=134217728k 0 0\n",
        "/proc/sys/kernel/pid_max": "32768\n",
        "/proc/sys/vm/overcommit_memory": "1\n",
        "/proc/sys/vm/overcommit_ratio": "50\n",
        "/proc/sys/kernel/numa_balancing": "0\n",
        "/proc/sys/fs/file-max": "13193412\n",
        "/proc/sys/net/core/somaxconn": "4096\n",
        "/proc/self/limits": LIMITS,
        "/proc/stat": "cpu  1 2 3 4\nbtime 1764680000\n",
        "/proc/net/tcp": "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
                         "retrnsmt   uid  timeout inode\n" + TCP_LINE + "\n",
        "/proc/net/tcp6": "  sl  local_address remote_address st\n" + TCP6_LINE + "\n",
        f"/proc/{GPU_PID}/stat": f"{GPU_PID} (python3) S {DEAD_PARENT} {GPU_PID} {GPU_PID} 0 -1 "
                                 "4194560 " + " ".join(["0"] * 12) + " 360000 0 0\n",
        f"/proc/{GPU_PID}/status": "Name:\tpython3\nUid:\t0\t0\t0\t0\n",
        f"/proc/{GPU_PID}/cmdline": "python3\x00-m\x00vllm.entrypoints.openai.api_server\x00",
        "/sys/bus/pci/devices/0000:00:06.0/vendor": "0x10de\n",
        "/sys/bus/pci/devices/0000:00:06.0/class": "0x030200\n",
        "/sys/bus/pci/devices/0000:00:06.0/device": "0x2335\n",
        "/sys/bus/pci/devices/0000:00:06.0/numa_node": "0\n",
        "/sys/bus/pci/devices/0000:00:06.0/current_link_width": "16\n",
        "/sys/bus/pci/devices/0000:00:06.0/max_link_width": "16\n",
        "/sys/bus/pci/devices/0000:00:01.0/vendor": "0x8086\n",
        "/sys/class/net/eth0/operstate": "up\n",
        "/sys/class/net/eth0/mtu": "9000\n",
        "/sys/class/net/eth0/type": "1\n",
        "/sys/class/net/ib0/operstate": "up\n",
        "/sys/class/net/ib0/mtu": "4092\n",
        "/sys/class/net/ib0/type": "32\n",
        "/sys/class/infiniband/mlx5_0/ports/1/state": "4: ACTIVE\n",
        "/sys/class/infiniband/mlx5_0/ports/1/link_layer": "InfiniBand\n",
        "/sys/class/infiniband/mlx5_0/ports/1/rate": "400 Gb/sec (4X NDR)\n",
        "/sys/class/dmi/id/sys_vendor": "QEMU\n",
        "/sys/devices/system/node/node0/cpulist": "0-15\n",
        "/etc/security/limits.conf": "# comment\n* soft nofile 1048576\n",
        "/etc/security/limits.d/90-vllm.conf": "* hard memlock unlimited\n",
        "/etc/nccl.conf": "NCCL_IB_HCA=mlx5_0\nNCCL_SOCKET_IFNAME=eth0\nNCCL_AUTH_TOKEN=hunter2\n",
        "/etc/docker/daemon.json": '{"default-runtime": "nvidia"}\n',
        "/.dockerenv": "",
    }
    for path, text in files.items():
        _write(root, path, text)
    for group in ("0", "1", "2"):
        (root / "sys/kernel/iommu_groups" / group).mkdir(parents=True, exist_ok=True)
    fd = root / f"proc/{GPU_PID}/fd"
    fd.mkdir(parents=True, exist_ok=True)
    os.symlink("/dev/nvidia0", fd / "3")
    os.symlink("/dev/nvidiactl", fd / "4")
    os.symlink(f"socket:[{SOCKET_INODE}]", fd / "5")
    os.symlink("/tmp/log.txt", fd / "6")
    (root / "dev/shm").mkdir(parents=True, exist_ok=True)
    return root


def run_probe(*args: str, root: Path | None = None, path: list[Path] | None = None,
              env: dict[str, str] | None = None, timeout: float = 120) -> dict[str, Any]:
    """The probe script as a child process; PATH limited to the given dirs + system bins."""
    search = [str(p) for p in (path or [])] + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
    child_env = {"PATH": os.pathsep.join(search), "HOME": os.environ.get("HOME", "/root"),
                 "LANG": "C.UTF-8", **(env or {})}
    if root is not None:
        child_env["VFIX_PROBE_ROOT"] = str(root)
    proc = subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True,
                          env=child_env, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
