"""Real SSH test nodes: one shared read-only rootfs, an overlay per node, sshd in namespaces.

    cluster = Cluster.create()                 # takes a slot, makes this session's ssh key
    nodes = cluster.start(4, netns=False, seed=seeds.with_default(seeds.SMALL_SHM))
    nodes.write_inventory(path, user="ansible")
    nodes[0].snapshot(); nodes[0].kill(); nodes.stop()
    cluster.close()

A node is `unshare --mount --uts --ipc --pid --fork --kill-child=SIGKILL` running a shell that
mounts overlay(upper; seed layer; rootfs), its own /proc (with /proc/sys read-only: vm.* and
kernel.* are not namespaced), /sys read-only, a private /dev, /dev/shm, /run, /tmp, then
`exec chroot ROOT sshd -D`. With `netns=True` it first joins its own network namespace, wired
to the slot's bridge.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.harness import seeds as seeds_module
from tests.harness.rootfs import ANSIBLE_USER, ensure_rootfs
from tests.harness.seeds import Seed, SeedFile
from tests.harness.slots import NODE_MARKER, Slot, acquire_slot, ip, kill_recorded

HOST_PORT = 2222  # 22 may be taken on 0.0.0.0 by the machine's own sshd
NETNS_PORT = 22
BOOT_TIMEOUT_S = 10.0
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
# Ansible's remote temp dirs live on tmpfs so they never show up as node changes.
TMPFS_DIRS = ("/run", "/tmp", "/root/.ansible", f"/home/{ANSIBLE_USER}/.ansible")
LOGIN_RECORDS = ("/var/log/wtmp", "/var/log/btmp", "/var/log/lastlog")
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    # Runs in the child before exec: the node dies with the pytest process, even on SIGKILL.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class Node:
    """One running (or stopped) test node."""

    name: str
    index: int  # the last address octet, unique within the slot
    address: str
    port: int
    dir: Path
    rootfs: Path
    netns: str | None = None
    binds: Mapping[str, str] = field(default_factory=dict)
    generation: int = 0
    process: subprocess.Popen[bytes] | None = None
    seed: Mapping[str, str | bytes | SeedFile] = field(default_factory=dict)

    # --- layout ---------------------------------------------------------------------------
    @property
    def seed_dir(self) -> Path:
        return self.dir / "seed"

    @property
    def upper_dir(self) -> Path:
        """Exactly what the node wrote since its last (re)start, as overlayfs stores it."""
        return self.dir / f"upper-{self.generation}"

    @property
    def work_dir(self) -> Path:
        return self.dir / f"work-{self.generation}"

    @property
    def mountpoint(self) -> Path:
        return self.dir / "root"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def root(self) -> Path:
        """The node's whole filesystem as the host sees it (while running)."""
        init = self.init_pid()
        if init is None:
            raise RuntimeError(f"{self.name} is not running")
        return Path(f"/proc/{init}/root")

    def init_pid(self) -> int | None:
        """PID (host view) of the node's PID 1, sshd."""
        if self.process is None or self.process.poll() is not None:
            return None
        try:
            pid = self.process.pid
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        except OSError:
            return None
        return int(children.split()[0]) if children.split() else None

    # --- life cycle -----------------------------------------------------------------------
    def prepare(self, seed: Mapping[str, str | bytes | SeedFile], authorized_key: str) -> None:
        """Rebuild the seed layer and give the node a fresh, empty upper dir."""
        self.seed = dict(seed)
        shutil.rmtree(self.seed_dir, ignore_errors=True)
        self.seed_dir.mkdir(parents=True)
        files: dict[str, str | bytes | SeedFile] = dict(seed)
        files["/root/.ssh/authorized_keys"] = SeedFile(authorized_key, 0o600)
        home = self.rootfs / "home" / ANSIBLE_USER
        owner = home.stat()
        files[f"/home/{ANSIBLE_USER}/.ssh/authorized_keys"] = SeedFile(
            authorized_key, 0o600, owner.st_uid, owner.st_gid)
        for path, content in files.items():
            self._seed_file(path, content)
        for source, target in self.binds.items():  # mount points live in the seed layer
            self._seed_parents(target)
            mount_point = self.seed_dir / target.lstrip("/")
            if Path(source).is_dir():
                mount_point.mkdir(exist_ok=True)
            else:
                mount_point.touch()
        old = self.generation
        self.generation += 1
        for stale in (self.dir / f"upper-{old}", self.dir / f"work-{old}"):
            shutil.rmtree(stale, ignore_errors=True)
        self.upper_dir.mkdir()
        self.work_dir.mkdir()
        self.mountpoint.mkdir(exist_ok=True)

    def _seed_parents(self, node_path: str) -> None:
        # A seed-layer directory hides the rootfs one's owner and mode: copy them over.
        parts = Path(node_path.lstrip("/")).parts[:-1]
        for depth in range(1, len(parts) + 1):
            relative = Path(*parts[:depth])
            here = self.seed_dir / relative
            if here.exists():
                continue
            below = self.rootfs / relative
            here.mkdir()
            if below.is_dir():
                info = below.stat()
                os.chown(here, info.st_uid, info.st_gid)
                os.chmod(here, stat.S_IMODE(info.st_mode))
            elif relative.name == ".ssh":
                owner = here.parent.stat()
                os.chown(here, owner.st_uid, owner.st_gid)
                os.chmod(here, 0o700)

    def _seed_file(self, node_path: str, content: str | bytes | SeedFile) -> None:
        if not node_path.startswith("/"):
            raise ValueError(f"seed paths are absolute node paths, not {node_path!r}")
        spec = content if isinstance(content, SeedFile) else SeedFile(content)
        self._seed_parents(node_path)
        target = self.seed_dir / node_path.lstrip("/")
        data = spec.content.encode() if isinstance(spec.content, str) else spec.content
        target.write_bytes(data)
        os.chown(target, spec.uid, spec.gid)
        os.chmod(target, spec.mode)

    def boot_script(self) -> str:
        root = shlex.quote(str(self.mountpoint))
        lower = f"{self.seed_dir}:{self.rootfs}"
        lines = [
            "set -e",
            f"mount -t overlay overlay -o lowerdir={lower},upperdir={self.upper_dir},"
            f"workdir={self.work_dir} {root}",
            f"mount -t proc proc {root}/proc",
            f"mount --bind {root}/proc/sys {root}/proc/sys",
            f"mount -o remount,bind,ro {root}/proc/sys",
            f"mount -t sysfs -o ro sysfs {root}/sys",
            f"mount -t tmpfs -o mode=0755,size=1m tmpfs {root}/dev",
        ]
        for dev in DEV_NODES:
            lines += [f"touch {root}/dev/{dev}", f"mount --bind /dev/{dev} {root}/dev/{dev}"]
        lines += [
            f"mkdir {root}/dev/pts {root}/dev/shm",
            f"mount -t devpts -o newinstance,ptmxmode=0666 devpts {root}/dev/pts",
            f"ln -s pts/ptmx {root}/dev/ptmx",
            f"mount -t tmpfs -o mode=1777,size=256m tmpfs {root}/dev/shm",
        ]
        user_home = (self.rootfs / "home" / ANSIBLE_USER).stat()
        for tmp in TMPFS_DIRS:
            options = "mode=1777" if tmp == "/tmp" else "mode=0755"
            if tmp.startswith(f"/home/{ANSIBLE_USER}/"):
                options += f",uid={user_home.st_uid},gid={user_home.st_gid}"
            lines.append(f"mount -t tmpfs -o {options} tmpfs {root}{tmp}")
        lines.append(f"mkdir -p {root}/run/sshd")
        for record in LOGIN_RECORDS:  # sshd's login accounting would show up as node changes
            lines.append(f"mount --bind /dev/null {root}{record}")
        for source, target in self.binds.items():
            lines += [f"mount --bind {shlex.quote(source)} {root}{shlex.quote(target)}",
                      f"mount -o remount,bind,ro {root}{shlex.quote(target)}"]
        lines += [
            f"hostname {self.name}",
            f"exec chroot {root} /usr/sbin/sshd -D -e -o ListenAddress={self.address}:{self.port}",
        ]
        return "\n".join(lines)

    def spawn(self, lock_fd: int | None, die_with_parent: bool) -> None:
        command = ["unshare", "--mount", "--uts", "--ipc", "--pid", "--fork",
                   "--kill-child=SIGKILL", "--propagation", "private",
                   "/bin/sh", "-c", self.boot_script(), NODE_MARKER, self.name]
        if self.netns:
            command = ["nsenter", f"--net=/run/netns/{self.netns}", *command]
        log = open(self.dir / "boot.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True, pass_fds=(lock_fd,) if lock_fd is not None else (),
                preexec_fn=_die_with_parent if die_with_parent else None)
        finally:
            log.close()
        (self.dir / "pid").write_text(f"{self.process.pid}\n")

    def wait_ready(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited at boot: {self.boot_log()}")
            with contextlib.suppress(OSError), socket.create_connection(
                    (self.address, self.port), timeout=0.2) as sock:
                sock.settimeout(1.0)
                if sock.recv(4).startswith(b"SSH-"):
                    return
            time.sleep(0.01)
        raise RuntimeError(f"{self.name} did not start sshd on {self.address}:{self.port}: "
                           f"{self.boot_log()}")

    def boot_log(self) -> str:
        try:
            return (self.dir / "boot.log").read_text(errors="replace").strip()[-2000:]
        except OSError:
            return "(no boot log)"

    def kill(self) -> None:
        """SIGKILL the node now (also mid-run): sshd and every session on it die at once."""
        if self.process is None:
            return
        kill_recorded(self.dir / "pid")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    stop = kill

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    # --- looking inside -------------------------------------------------------------------
    def processes(self) -> list[str]:
        """Command lines of the processes running inside the node."""
        init = self.init_pid()
        if init is None:
            return []
        try:
            namespace = os.readlink(f"/proc/{init}/ns/pid")
        except OSError:
            return []
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if os.readlink(entry / "ns/pid") == namespace:
                    found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ")
                                 .decode(errors="replace").strip())
        return found

    def wait_for_process(self, needle: str, timeout: float = 30.0) -> str:
        """Block until a process whose command line contains `needle` runs on the node."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for cmdline in self.processes():
                if needle in cmdline:
                    return cmdline
            time.sleep(0.02)
        raise TimeoutError(f"no process matching {needle!r} on {self.name} in {timeout}s")

    def exec(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run a command inside the node (all its namespaces and its root), as root."""
        init = self.init_pid()
        if init is None:
            raise RuntimeError(f"{self.name} is not running")
        return subprocess.run(["nsenter", "-t", str(init), "-m", "-u", "-i", "-p", "-n", "-r",
                               "-w", *argv], capture_output=True, text=True, check=check)

    def read(self, node_path: str) -> str:
        return (self.root / node_path.lstrip("/")).read_text()

    def snapshot(self) -> dict[str, tuple[Any, ...]]:
        """Every entry of the upper dir: path -> (kind, mode, uid, gid, content digest).

        Two equal snapshots mean the node changed nothing in between, byte for byte.
        """
        entries: dict[str, tuple[Any, ...]] = {}
        for path in sorted(_walk(self.upper_dir)):
            info = path.lstat()
            relative = "/" + str(path.relative_to(self.upper_dir))
            if stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(info.st_mode):
                digest = os.readlink(path)
            elif stat.S_ISCHR(info.st_mode):
                digest = "whiteout" if info.st_rdev == 0 else f"chr {info.st_rdev}"
            else:
                digest = ""
            entries[relative] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode),
                                 info.st_uid, info.st_gid, digest)
        return entries

    def changed_paths(self) -> list[str]:
        """Paths the node wrote, created or deleted since it started.

        Directories overlayfs merely copied up (to hold a changed file) are left out; a new,
        re-owned, re-moded or replaced (opaque) directory is a change.
        """
        changed = []
        for path, (kind, mode, uid, gid, _) in self.snapshot().items():
            if kind == stat.S_IFDIR and not self._directory_changed(path, mode, uid, gid):
                continue
            changed.append(path)
        return changed

    def _directory_changed(self, path: str, mode: int, uid: int, gid: int) -> bool:
        with contextlib.suppress(OSError):
            if os.getxattr(self.upper_dir / path.lstrip("/"), "trusted.overlay.opaque") == b"y":
                return True
        for layer in (self.seed_dir, self.rootfs):
            below = layer / path.lstrip("/")
            if below.is_dir() and not below.is_symlink():
                info = below.stat()
                return (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) != (mode, uid, gid)
        return True


def _walk(top: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            yield Path(dirpath) / name


@dataclass
class NodeSet:
    """Nodes started together; indexable like a list."""

    cluster: Cluster
    nodes: list[Node]

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __getitem__(self, item: int) -> Node:
        return self.nodes[item]

    def by_name(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def reset(self, seed: Seed | None = None) -> None:
        """Fresh state: stop, wipe upper dirs, reseed (default seed if None), start."""
        for node in self.nodes:
            node.kill()
        self.cluster.boot(self.nodes, seeds_module.with_default(seed))

    def stop(self) -> None:
        self.cluster.stop(self)

    def inventory(self, user: str = "root", become: bool | None = None,
                  groups: Mapping[str, list[str]] | None = None,
                  host_vars: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """An Ansible YAML inventory (as data) for these nodes, logging in as `user`."""
        common: dict[str, Any] = {
            "ansible_user": user,
            "ansible_ssh_private_key_file": str(self.cluster.private_key),
            "ansible_python_interpreter": "/usr/bin/python3",
            "ansible_control_path_dir": str(self.cluster.control_dir),
        }
        if become is None:
            become = user != "root"
        if become:
            common["ansible_become"] = True
        hosts = {n.name: {"ansible_host": n.address, "ansible_port": n.port,
                          **dict((host_vars or {}).get(n.name, {}))} for n in self.nodes}
        document: dict[str, Any] = {"all": {"vars": common, "hosts": hosts}}
        if groups:
            document["all"]["children"] = {
                group: {"hosts": {name: None for name in members}}
                for group, members in groups.items()}
        return document

    def write_inventory(self, path: Path, **options: Any) -> Path:
        """Write `inventory(**options)` as YAML to `path` (a file) and return it."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(self.inventory(**options), sort_keys=False))
        return path


class Cluster:
    """This session's slot, ssh key and running node sets."""

    def __init__(self, slot: Slot, rootfs: Path, die_with_parent: bool = True) -> None:
        self.slot = slot
        self.rootfs = rootfs
        self.die_with_parent = die_with_parent
        self.sets: list[NodeSet] = []
        self.dir = slot.dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.private_key = self.dir / "id_ed25519"
        self.control_dir = self.dir / "cp"
        self.control_dir.mkdir(exist_ok=True)
        if not self.private_key.exists():
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vfix-test",
                            "-f", str(self.private_key)], check=True)
        self.public_key = (self.dir / "id_ed25519.pub").read_text()
        self._bridge_up = False

    @classmethod
    def create(cls, die_with_parent: bool = True) -> Cluster:
        rootfs = ensure_rootfs()
        return cls(acquire_slot(), rootfs, die_with_parent)

    def _free_indices(self, count: int) -> list[int]:
        used = {n.index for s in self.sets for n in s.nodes}
        free = [i for i in range(1, 251) if i not in used][:count]
        if len(free) < count:
            raise RuntimeError(f"cannot start {count} more nodes in one session (max 250)")
        return free

    def start(self, count: int, netns: bool = False, seed: Seed | None = None,
              binds: Mapping[str, str] | None = None, prefix: str = "node") -> NodeSet:
        """Start `count` fresh nodes seeded with DEFAULT plus `seed`; ready for SSH on return.

        `binds` maps host paths to node paths, mounted read-only inside every node.
        """
        nodes = []
        for index in self._free_indices(count):
            name = f"{prefix}{index}"
            node_dir = self.dir / name
            node_dir.mkdir(exist_ok=True)
            address, port, ns = (
                (self.slot.netns_address(index), NETNS_PORT, self.slot.netns(index)) if netns
                else (self.slot.host_address(index), HOST_PORT, None))
            nodes.append(Node(name=name, index=index, address=address, port=port, dir=node_dir,
                              rootfs=self.rootfs, netns=ns, binds=dict(binds or {})))
        node_set = NodeSet(self, nodes)
        self.sets.append(node_set)
        try:
            if netns:
                self._wire_netns(nodes)
            self.boot(nodes, seeds_module.with_default(seed))
        except BaseException:
            self.stop(node_set)
            raise
        return node_set

    def boot(self, nodes: list[Node], seed: Mapping[str, str | bytes | SeedFile]) -> None:
        peers = "".join(f"{n.address}\t{n.name}\n" for n in nodes)
        for node in nodes:
            identity = {"/etc/hostname": f"{node.name}\n",
                        "/etc/hosts": f"127.0.0.1\tlocalhost\n{peers}"}
            if node.netns:  # no DNS server is reachable from a namespace: fail fast, not 10 s
                identity["/etc/resolv.conf"] = "# test node: no DNS, names are in /etc/hosts\n"
            node.prepare({**identity, **seed}, self.public_key)
        for node in nodes:  # spawned from this thread: PDEATHSIG follows the spawning thread
            node.spawn(self.slot.lock_fd, self.die_with_parent)
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        for node in nodes:
            node.wait_ready(deadline)

    def _wire_netns(self, nodes: list[Node]) -> None:
        bridge = self.slot.bridge
        if not self._bridge_up:
            ip("link", "add", bridge, "type", "bridge", check=True)
            ip("addr", "add", f"{self.slot.bridge_address}/24", "dev", bridge, check=True)
            ip("link", "set", bridge, "up", check=True)
            self._bridge_up = True
        for node in nodes:
            assert node.netns is not None
            host_side = f"{node.netns}h"
            ip("netns", "add", node.netns, check=True)
            ip("link", "add", host_side, "type", "veth", "peer", "name", "eth0",
               "netns", node.netns, check=True)
            ip("link", "set", host_side, "master", bridge, "up", check=True)
            ip("-n", node.netns, "addr", "add", f"{node.address}/24", "dev", "eth0", check=True)
            ip("-n", node.netns, "link", "set", "lo", "up", check=True)
            ip("-n", node.netns, "link", "set", "eth0", "up", check=True)
            ip("-n", node.netns, "route", "add", "default", "via", self.slot.bridge_address,
               check=True)

    def stop(self, node_set: NodeSet) -> None:
        for node in node_set.nodes:
            node.kill()
        for node in node_set.nodes:
            if node.netns:
                ip("link", "del", f"{node.netns}h")
                ip("netns", "del", node.netns)
            shutil.rmtree(node.dir, ignore_errors=True)
        if node_set in self.sets:
            self.sets.remove(node_set)

    def close(self) -> None:
        """Stop everything and give the slot back (stale cleanup covers a crash instead)."""
        for node_set in list(self.sets):
            self.stop(node_set)
        self.slot.release()
