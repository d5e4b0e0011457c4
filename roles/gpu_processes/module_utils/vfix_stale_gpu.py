"""Which GPU processes are proven stale, and how to end them. Standard library only.

This file is the single place that decides. The `vfix_gpu_processes` module of the role calls it
on the node; the controller's tests import it directly and property-test `select_stale` on
synthetic process tables.

A process is a candidate only when it holds a GPU (an open /dev/nvidiaN, or it is listed by
`nvidia-smi --query-compute-apps`). Rules, first match wins:

1. protected (nvidia-persistenced, DCGM, fabric manager, nvidia-smi, configured extras): keep
2. owner not in the configured users (when users are configured): keep, another user's job
3. listens on a TCP port, or matches a server pattern: keep, a live server
4. runs in a systemd service cgroup: keep, a managed service is not an orphan
5. matches a configured worker pattern (vLLM/Ray workers): stale unless a live server of the
   same user exists
6. parent alive and not init or a subreaper: keep
7. re-parented to init, but a live server of the same user exists: keep (it may own it)
8. otherwise: stale, the parent is gone and no live server remains
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

GPU_DEVICE = re.compile(r"^/dev/nvidia\d+$")

# Never terminated, whatever the configuration says.
BUILTIN_PROTECTED = (
    r"nvidia-persistenced",
    r"nv-hostengine",
    r"dcgm",
    r"fabricmanager",
    r"nv-fabricmanager",
    r"nvidia-smi",
    r"nvlsm",
)

DEFAULT_SERVER_PATTERNS = (r"vllm\s+serve", r"vllm\.entrypoints", r"vllm/entrypoints")
DEFAULT_INIT_NAMES = (
    "systemd",
    "init",
    "tini",
    "dumb-init",
    "docker-init",
    "containerd-shim",
    "containerd-shim-runc-v2",
    "conmon",
    "catatonit",
)


@dataclass(frozen=True)
class Proc:
    """One row of the process table, as read from /proc (or synthesised by a test)."""

    pid: int
    ppid: int
    user: str
    comm: str = ""
    cmdline: str = ""
    start_ticks: int = 0
    cgroup: str = ""
    gpu_devices: tuple[str, ...] = ()
    listening_ports: tuple[int, ...] = ()
    gpu_memory_mib: int | None = None  # from nvidia-smi compute-apps, None if not listed

    @property
    def holds_gpu(self) -> bool:
        return bool(self.gpu_devices) or self.gpu_memory_mib is not None


@dataclass(frozen=True)
class Policy:
    worker_patterns: tuple[str, ...] = ()
    server_patterns: tuple[str, ...] = DEFAULT_SERVER_PATTERNS
    protected_patterns: tuple[str, ...] = ()
    users: tuple[str, ...] = ()  # empty: every user's orphans are eligible
    init_names: tuple[str, ...] = DEFAULT_INIT_NAMES


@dataclass(frozen=True)
class Decision:
    pid: int
    user: str
    cmdline: str
    stale: bool
    reason: str
    gpu_memory_mib: int | None = None
    start_ticks: int = 0


@dataclass
class Outcome:
    pid: int
    # terminated-by-sigterm | terminated-by-sigkill | already-gone | pid-reused | survived
    result: str
    detail: str = ""


@dataclass
class TerminationReport:
    outcomes: list[Outcome] = field(default_factory=list)
    verification: str = "not run"
    memory_released: bool | None = None
    gpu_memory_used_before_mib: dict[str, int] = field(default_factory=dict)
    gpu_memory_used_after_mib: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


# --- selection ------------------------------------------------------------------------------


def _search(patterns: Iterable[str], text: str) -> str | None:
    for pattern in patterns:
        if re.search(pattern, text, flags=re.IGNORECASE):
            return pattern
    return None


def _names(proc: Proc) -> str:
    argv0 = proc.cmdline.split(" ", 1)[0] if proc.cmdline else ""
    return f"{proc.comm} {os.path.basename(argv0)} {proc.cmdline}"


def protected_by(proc: Proc, policy: Policy) -> str | None:
    return _search(BUILTIN_PROTECTED + tuple(policy.protected_patterns), _names(proc))


def systemd_unit(proc: Proc) -> str | None:
    """The systemd service a process runs in, from its cgroup path (`…/foo.service`)."""
    last = proc.cgroup.rstrip("/").rsplit("/", 1)[-1]
    return last if last.endswith(".service") else None


def _is_init(proc: Proc | None, policy: Policy) -> bool:
    return proc is None or proc.pid <= 1 or proc.comm in policy.init_names


def live_server_of(proc: Proc, table: dict[int, Proc], policy: Policy) -> Proc | None:
    """Another process of the same user that is a live vLLM server (by pattern, or a GPU holder
    listening on a port)."""
    for other in table.values():
        if other.pid == proc.pid or other.user != proc.user:
            continue
        if _search(policy.server_patterns, other.cmdline):
            return other
        if other.holds_gpu and other.listening_ports:
            return other
    return None


def _decide(proc: Proc, table: dict[int, Proc], policy: Policy) -> tuple[bool, str]:
    protected = protected_by(proc, policy)
    if protected:
        return False, f"protected process (matches {protected!r}): never terminated"
    if policy.users and proc.user not in policy.users:
        return False, f"owned by {proc.user!r}, not one of gpu_processes_users {list(policy.users)}"
    if proc.listening_ports:
        return False, f"live server: listens on tcp port {proc.listening_ports[0]}"
    own_server = _search(policy.server_patterns, proc.cmdline)
    if own_server:  # a server still loading its model has not bound its port yet
        return False, f"live server: matches server pattern {own_server!r}"
    unit = systemd_unit(proc)
    if unit:
        return False, f"managed by systemd unit {unit}"
    server = live_server_of(proc, table, policy)
    worker = _search(policy.worker_patterns, proc.cmdline)
    if worker:
        if server:
            return False, f"matches worker pattern {worker!r}; live server pid {server.pid} exists"
        return True, f"matches worker pattern {worker!r} and no live server of user {proc.user!r}"
    parent = table.get(proc.ppid)
    if not _is_init(parent, policy):
        assert parent is not None
        return False, f"parent alive: pid {parent.pid} ({parent.comm})"
    if server:
        return False, f"re-parented to init, but live server pid {server.pid} may own it"
    gone = "parent gone" if parent is None and proc.ppid > 1 else "re-parented to init"
    return True, f"{gone} (ppid {proc.ppid}), no live server of user {proc.user!r}"


def select_stale(processes: Sequence[Proc], policy: Policy) -> list[Decision]:
    """One decision per GPU-holding process, in pid order; `stale` marks the ones to end."""
    table = {proc.pid: proc for proc in processes}
    decisions = []
    for proc in sorted(processes, key=lambda p: p.pid):
        if not proc.holds_gpu:
            continue
        stale, reason = _decide(proc, table, policy)
        decisions.append(Decision(proc.pid, proc.user, proc.cmdline, stale, reason,
                                  proc.gpu_memory_mib, proc.start_ticks))
    return decisions


# --- reading the live table -----------------------------------------------------------------


def _read(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")


def _stat_fields(pid: int) -> tuple[str, str, int, int]:
    """(comm, state, ppid, start_ticks) from /proc/PID/stat; comm may hold spaces and parens."""
    raw = _read(f"/proc/{pid}/stat")
    comm = raw[raw.index("(") + 1 : raw.rindex(")")]
    rest = raw[raw.rindex(")") + 2 :].split()
    return comm, rest[0], int(rest[1]), int(rest[19])


def start_ticks_of(pid: int) -> int | None:
    """Start time of a live, non-zombie process; None when it is gone or a zombie."""
    try:
        _, state, _, start = _stat_fields(pid)
    except (OSError, ValueError, IndexError):
        return None
    return None if state in ("Z", "X") else start


def _listening_inodes() -> dict[str, int]:
    inodes: dict[str, int] = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = _read(name).splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) > 9 and parts[3] == "0A":  # TCP_LISTEN
                inodes[parts[9]] = int(parts[1].rsplit(":", 1)[1], 16)
    return inodes


def _user_names() -> dict[int, str]:
    names: dict[int, str] = {}
    try:
        for line in _read("/etc/passwd").splitlines():
            parts = line.split(":")
            if len(parts) > 2 and parts[2].isdigit():
                names.setdefault(int(parts[2]), parts[0])
    except OSError:
        pass
    return names


def compute_apps_memory(run: Callable[[list[str]], str | None]) -> dict[int, int]:
    """pid -> used MiB from `nvidia-smi --query-compute-apps` (empty without nvidia-smi)."""
    out = run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
               "--format=csv,noheader,nounits"])
    memory: dict[int, int] = {}
    for line in (out or "").splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit():
            memory[int(parts[0])] = int(parts[1]) if parts[1].isdigit() else 0
    return memory


def gpu_memory_used(run: Callable[[list[str]], str | None]) -> dict[str, int]:
    out = run(["nvidia-smi", "--query-gpu=index,memory.used", "--format=csv,noheader,nounits"])
    used: dict[str, int] = {}
    for line in (out or "").splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) == 2 and parts[1].isdigit():
            used[parts[0]] = int(parts[1])
    return used


def run_command(argv: list[str]) -> str | None:
    """Output of a read-only command, None when it is missing, fails or hangs."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def read_process_table(run: Callable[[list[str]], str | None] = run_command) -> list[Proc]:
    """Every process on this host (in this PID namespace), with GPU devices and listeners."""
    listening = _listening_inodes()
    users = _user_names()
    memory = compute_apps_memory(run)
    table = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            comm, state, ppid, start = _stat_fields(pid)
            if state in ("Z", "X"):
                continue
            cmdline = _read(f"/proc/{pid}/cmdline").replace("\0", " ").strip()
            uid = os.stat(f"/proc/{pid}").st_uid
            cgroup = _read(f"/proc/{pid}/cgroup").splitlines()[-1].split(":", 2)[-1]
        except (OSError, ValueError, IndexError):
            continue  # it ended while we read it
        devices, ports = _open_files(pid, listening)
        table.append(Proc(pid=pid, ppid=ppid, user=users.get(uid, str(uid)), comm=comm,
                          cmdline=cmdline, start_ticks=start, cgroup=cgroup,
                          gpu_devices=devices, listening_ports=ports,
                          gpu_memory_mib=memory.get(pid)))
    return table


def _open_files(pid: int, listening: dict[str, int]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    devices: set[str] = set()
    ports: set[int] = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return (), ()
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if GPU_DEVICE.match(target):
            devices.add(target)
        elif target.startswith("socket:["):
            port = listening.get(target[8:-1])
            if port is not None:
                ports.add(port)
    return tuple(sorted(devices)), tuple(sorted(ports))


# --- termination ----------------------------------------------------------------------------


def _wait_gone(pids: Iterable[int], starts: dict[int, int], seconds: float) -> set[int]:
    """Wait up to `seconds`; return the pids still alive (same start time, not a zombie)."""
    deadline = time.monotonic() + seconds
    alive = {pid for pid in pids if start_ticks_of(pid) == starts[pid]}
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = {pid for pid in alive if start_ticks_of(pid) == starts[pid]}
    return alive


def _signal_all(pids: Iterable[int], starts: dict[int, int], sig: int) -> dict[int, str]:
    """Signal each pid that still is the process we selected; say what happened to the others."""
    skipped: dict[int, str] = {}
    for pid in pids:
        current = start_ticks_of(pid)
        if current is None:
            skipped[pid] = "already-gone"
        elif current != starts[pid]:
            skipped[pid] = "pid-reused"
        else:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                skipped[pid] = "already-gone"
    return skipped


def terminate(selected: Sequence[Decision], grace_seconds: float, kill_wait_seconds: float,
              verify_timeout_seconds: float,
              run: Callable[[list[str]], str | None] = run_command) -> TerminationReport:
    """SIGTERM, wait the grace period, SIGKILL what is left, then verify GPU memory is released."""
    report = TerminationReport(gpu_memory_used_before_mib=gpu_memory_used(run))
    listed_before = set(compute_apps_memory(run))
    starts = {d.pid: d.start_ticks for d in selected}
    pids = list(starts)
    skipped = _signal_all(pids, starts, signal.SIGTERM)
    termed = [pid for pid in pids if pid not in skipped]
    after_term = _wait_gone(termed, starts, grace_seconds)
    skipped.update(_signal_all(after_term, starts, signal.SIGKILL))
    survivors = _wait_gone([p for p in after_term if p not in skipped], starts, kill_wait_seconds)
    for pid in pids:
        if pid in skipped:
            report.outcomes.append(Outcome(pid, skipped[pid]))
        elif pid in survivors:
            report.outcomes.append(Outcome(pid, "survived", "still running after SIGKILL"))
        elif pid in after_term:
            report.outcomes.append(Outcome(pid, "terminated-by-sigkill",
                                           f"ignored SIGTERM for {grace_seconds:g}s"))
        else:
            report.outcomes.append(Outcome(pid, "terminated-by-sigterm"))
    _verify_release(report, pids, listed_before, verify_timeout_seconds, run)
    return report


def _verify_release(report: TerminationReport, pids: Sequence[int], listed_before: set[int],
                    timeout: float, run: Callable[[list[str]], str | None]) -> None:
    """The ended pids must leave nvidia-smi's compute-apps list. When nvidia-smi never listed them
    (another PID namespace, e.g. a container), total memory.used must drop instead."""
    if run(["nvidia-smi", "-L"]) is None:
        report.verification = "skipped: nvidia-smi is not available on this host"
        return
    watched = set(pids) & listed_before
    before_total = sum(report.gpu_memory_used_before_mib.values())
    deadline = time.monotonic() + timeout
    while True:
        holding = watched & set(compute_apps_memory(run))
        report.gpu_memory_used_after_mib = gpu_memory_used(run)
        dropped = sum(report.gpu_memory_used_after_mib.values()) < before_total
        released = not holding if watched else dropped
        if released or time.monotonic() >= deadline:
            break
        time.sleep(0.5)
    report.memory_released = released
    if not released:
        report.verification = (f"GPU memory still held by pid(s) {sorted(holding)}" if watched
                               else "GPU memory.used did not drop after termination")
    elif watched:
        report.verification = (f"released: pid(s) {sorted(watched)} no longer listed by "
                               "nvidia-smi --query-compute-apps")
    else:
        report.verification = (f"released: memory.used fell from {before_total} MiB to "
                               f"{sum(report.gpu_memory_used_after_mib.values())} MiB")
