"""Property tests of the stale-GPU-process selection on synthetic process tables."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

ROLE = Path(__file__).resolve().parents[2] / "roles/gpu_processes"


def _load_selection_module():
    """The role's stdlib-only module, imported from roles/ where it ships."""
    spec = importlib.util.spec_from_file_location(
        "vfix_stale_gpu", ROLE / "module_utils/vfix_stale_gpu.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["vfix_stale_gpu"] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


sg = _load_selection_module()

PROTECTED_COMMANDS = [
    "/usr/bin/nvidia-persistenced --user nvidia-persistenced",
    "/usr/bin/nv-hostengine -n --service-account nvidia-dcgm",
    "/usr/bin/dcgm-exporter -f /etc/dcgm-exporter/dcp-metrics-included.csv",
    "/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg",
    "nvidia-smi --query-gpu=memory.used --format=csv -l 1",
]
OTHER_COMMANDS = [
    "python3 train.py --epochs 3",
    "python3 -m vllm.entrypoints.openai.api_server --model m",
    "vllm serve /models/llama --tensor-parallel-size 2",
    "ray::RayWorkerWrapper.execute_method",
    "VLLM::Worker_TP1",
    "/usr/bin/python3 -c import torch",
    "bash",
    "sshd: ansible@pts/0",
]
USERS = ["root", "vllm", "alice"]
WORKER_PATTERNS = [r"ray::RayWorkerWrapper", r"VLLM::Worker"]


@st.composite
def tables(draw):
    """A process table: init (pid 1), a few parents, and processes referring to them."""
    count = draw(st.integers(min_value=1, max_value=14))
    pids = draw(st.lists(st.integers(min_value=2, max_value=400), min_size=count,
                         max_size=count, unique=True))
    procs = [sg.Proc(pid=1, ppid=0, user="root", comm=draw(st.sampled_from(["systemd", "tini"])),
                     cmdline="/sbin/init")]
    for pid in pids:
        command = draw(st.sampled_from(PROTECTED_COMMANDS + OTHER_COMMANDS))
        comm = command.split(" ", 1)[0].rsplit("/", 1)[-1][:15]
        procs.append(sg.Proc(
            pid=pid,
            ppid=draw(st.sampled_from([0, 1, *pids, 9999])),  # 9999: a parent that is gone
            user=draw(st.sampled_from(USERS)),
            comm=comm,
            cmdline=command,
            start_ticks=draw(st.integers(min_value=1, max_value=10**6)),
            cgroup=draw(st.sampled_from(["/user.slice/user-0.slice/session-3.scope",
                                         "/system.slice/vllm.service", "/", ""])),
            gpu_devices=draw(st.sampled_from([(), ("/dev/nvidia0",), ("/dev/nvidia0",
                                                                       "/dev/nvidia3")])),
            listening_ports=draw(st.sampled_from([(), (), (8000,)])),
            gpu_memory_mib=draw(st.sampled_from([None, None, 512, 70000])),
        ))
    return procs


policies = st.builds(
    sg.Policy,
    worker_patterns=st.sampled_from([(), tuple(WORKER_PATTERNS)]),
    protected_patterns=st.sampled_from([(), (r"train\.py",)]),
    users=st.sampled_from([(), ("vllm",), ("root", "vllm")]),
)


def _stale(procs, policy):
    by_pid = {p.pid: p for p in procs}
    return [by_pid[d.pid] for d in sg.select_stale(procs, policy) if d.stale]


def _parent_live(proc, by_pid):
    parent = by_pid.get(proc.ppid)
    return parent is not None and parent.pid > 1 and parent.comm not in sg.DEFAULT_INIT_NAMES


def _live_server_exists(proc, procs):
    return any(
        other.pid != proc.pid and other.user == proc.user
        and (any(re.search(p, other.cmdline) for p in sg.DEFAULT_SERVER_PATTERNS)
             or (other.holds_gpu and other.listening_ports))
        for other in procs
    )


@settings(max_examples=250, deadline=None)
@given(tables(), policies)
def test_never_selects_persistenced_dcgm_fabric_manager_or_nvidia_smi(procs, policy):
    for proc in _stale(procs, policy):
        assert not re.search(r"persistenced|hostengine|dcgm|fabricmanager|nvidia-smi",
                             proc.cmdline), proc


@settings(max_examples=250, deadline=None)
@given(tables(), policies)
def test_never_selects_a_live_server_or_what_a_live_server_may_own(procs, policy):
    for proc in _stale(procs, policy):
        assert not proc.listening_ports
        assert not any(re.search(p, proc.cmdline) for p in sg.DEFAULT_SERVER_PATTERNS)
        assert not _live_server_exists(proc, procs)


@settings(max_examples=250, deadline=None)
@given(tables(), policies)
def test_never_selects_a_job_with_a_live_parent_unless_it_is_a_configured_worker(procs, policy):
    by_pid = {p.pid: p for p in procs}
    for proc in _stale(procs, policy):
        if _parent_live(proc, by_pid):
            assert any(re.search(p, proc.cmdline) for p in policy.worker_patterns), proc


@settings(max_examples=250, deadline=None)
@given(tables(), policies)
def test_never_selects_other_users_services_or_non_gpu_processes(procs, policy):
    for proc in _stale(procs, policy):
        assert proc.holds_gpu
        assert not policy.users or proc.user in policy.users
        assert not proc.cgroup.endswith(".service")
        assert not re.search(r"train\.py", proc.cmdline) or not policy.protected_patterns


@settings(max_examples=200, deadline=None)
@given(tables(), policies)
def test_every_gpu_holder_gets_exactly_one_decision_with_a_reason(procs, policy):
    decisions = sg.select_stale(procs, policy)
    assert [d.pid for d in decisions] == sorted(p.pid for p in procs if p.holds_gpu)
    assert all(d.reason for d in decisions)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(USERS), st.sampled_from([0, 1, 777]), st.booleans())
def test_an_orphan_holding_a_gpu_with_no_live_server_is_selected(user, ppid, with_memory):
    orphan = sg.Proc(pid=4242, ppid=ppid, user=user, comm="python3",
                     cmdline="python3 -c import torch", gpu_devices=("/dev/nvidia0",),
                     gpu_memory_mib=1024 if with_memory else None)
    init = sg.Proc(pid=1, ppid=0, user="root", comm="systemd", cmdline="/sbin/init")
    [decision] = sg.select_stale([init, orphan], sg.Policy())
    assert decision.stale
    assert "no live server" in decision.reason


def test_a_live_parent_keeps_the_process_and_says_which_parent():
    parent = sg.Proc(pid=100, ppid=1, user="root", comm="bash", cmdline="bash")
    child = sg.Proc(pid=101, ppid=100, user="root", comm="python3", cmdline="python3 x.py",
                    gpu_devices=("/dev/nvidia0",))
    [decision] = sg.select_stale([parent, child], sg.Policy())
    assert not decision.stale
    assert decision.reason == "parent alive: pid 100 (bash)"


def test_ray_worker_under_live_raylet_is_stale_only_when_the_server_is_gone():
    raylet = sg.Proc(pid=50, ppid=1, user="vllm", comm="raylet", cmdline="raylet --x")
    worker = sg.Proc(pid=51, ppid=50, user="vllm", comm="ray::RayWorker",
                     cmdline="ray::RayWorkerWrapper.execute_method", gpu_memory_mib=60000)
    server = sg.Proc(pid=40, ppid=1, user="vllm", comm="python3",
                     cmdline="python3 -m vllm.entrypoints.openai.api_server")
    policy = sg.Policy(worker_patterns=(r"ray::RayWorkerWrapper",))
    assert not sg.select_stale([raylet, worker, server], policy)[0].stale
    assert sg.select_stale([raylet, worker], policy)[0].stale


def test_compute_apps_and_memory_parsers_read_real_nvidia_smi_csv():
    apps = "12345, 70000\n23456, [N/A]\n"
    assert sg.compute_apps_memory(lambda argv: apps) == {12345: 70000, 23456: 0}
    assert sg.gpu_memory_used(lambda argv: "0, 1\n1, 80000\n") == {"0": 1, "1": 80000}
    assert sg.compute_apps_memory(lambda argv: None) == {}
