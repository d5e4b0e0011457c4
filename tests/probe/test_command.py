"""`vfix probe` on this (GPU-less) machine: exit 0, the absence reported, JSON or summary."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vfix.errors import VfixError
from vfix.probe import run_local_probe


def vfix(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vfix", "probe", *args], capture_output=True,
                          text=True, timeout=300, check=False)


def test_json_document() -> None:
    proc = vfix("--json", "--python", "/nonexistent/python")
    assert proc.returncode == 0, proc.stderr
    facts = json.loads(proc.stdout)
    assert list(facts)[:2] == ["host", "collected_at"]
    assert {"versions", "gpus", "topology", "system", "processes", "errors"} <= set(facts)
    if not facts["gpus"]:
        assert any(error["section"] == "gpus" for error in facts["errors"])
    assert facts["system"]["cpu"]["cores"] >= 1
    # a missing interpreter is reported, not fatal
    assert facts["versions"]["python"] is None
    assert any("/nonexistent/python" in e["reason"] for e in facts["errors"])


def test_readable_summary() -> None:
    proc = vfix("--python", "python3")
    assert proc.returncode == 0, proc.stderr
    assert "collected" in proc.stdout and "CPU" in proc.stdout
    assert "no GPU visible" in proc.stdout or "GPUs" in proc.stdout


def test_bad_option_is_exit_2() -> None:
    proc = vfix("--section-timeout", "0")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_runner_rejects_nonpositive_timeout() -> None:
    with pytest.raises(VfixError, match="must be positive"):
        run_local_probe(section_timeout=0)
