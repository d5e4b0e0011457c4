"""Fixtures for the validation tests: a CPU torch the SSH test nodes can import."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TORCH_VERSION = "2.13.0"  # the CPU build pip has for Python 3.11 (the nodes' bookworm python)


@pytest.fixture(scope="session")
def torch_cpu_dir() -> Path:
    """`pip install torch --target` once into .cache/ (flock-protected across sessions)."""
    target = ROOT / ".cache" / "validate" / f"torch-{TORCH_VERSION}-cpu"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "torch" / "__init__.py").is_file():
            done = subprocess.run(
                [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 "--target", str(target), f"torch=={TORCH_VERSION}"],
                capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                pytest.fail(f"cannot install a CPU torch for the nodes: {done.stderr[-500:]}")
    return target
