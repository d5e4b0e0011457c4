"""Termination on real processes of this machine: SIGTERM, SIGKILL after the grace period, a
reused pid is never signalled, and the live process table is read."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

MODULE = Path(__file__).resolve().parents[2] / "roles/gpu_processes/module_utils/vfix_stale_gpu.py"
spec = importlib.util.spec_from_file_location("vfix_stale_gpu_term", MODULE)
assert spec is not None and spec.loader is not None
sg = importlib.util.module_from_spec(spec)
sys.modules["vfix_stale_gpu_term"] = sg
spec.loader.exec_module(sg)

IGNORES_SIGTERM = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \
                  "print('ready', flush=True); time.sleep(60)"
PLAIN = "import time; print('ready', flush=True); time.sleep(60)"


def start(code: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def decision(process: subprocess.Popen[str], start_ticks: int | None = None):
    ticks = sg.start_ticks_of(process.pid) if start_ticks is None else start_ticks
    return sg.Decision(process.pid, "root", "python3", True, "test", None, ticks)


def no_nvidia_smi(argv):
    return None


def test_sigterm_then_sigkill_after_the_grace_period():
    polite, stubborn = start(PLAIN), start(IGNORES_SIGTERM)
    try:
        report = sg.terminate([decision(polite), decision(stubborn)], grace_seconds=0.5,
                              kill_wait_seconds=5, verify_timeout_seconds=1, run=no_nvidia_smi)
        results = {o.pid: o.result for o in report.outcomes}
        assert results == {polite.pid: "terminated-by-sigterm",
                           stubborn.pid: "terminated-by-sigkill"}
        assert polite.wait(5) == -15 and stubborn.wait(5) == -9
        assert report.verification == "skipped: nvidia-smi is not available on this host"
    finally:
        for process in (polite, stubborn):
            process.kill()


def test_a_pid_whose_start_time_changed_is_not_signalled():
    process = start(PLAIN)
    try:
        stale_view = decision(process, start_ticks=sg.start_ticks_of(process.pid) - 1)
        report = sg.terminate([stale_view], 0.2, 0.2, 0.2, run=no_nvidia_smi)
        assert [o.result for o in report.outcomes] == ["pid-reused"]
        assert process.poll() is None  # still running
    finally:
        process.kill()


def test_the_live_table_of_this_machine_has_this_process_and_its_parent():
    table = {proc.pid: proc for proc in sg.read_process_table(run=no_nvidia_smi)}
    me = table[os.getpid()]
    assert me.ppid == os.getppid() and me.ppid in table
    assert "pytest" in me.cmdline and me.start_ticks > 0
