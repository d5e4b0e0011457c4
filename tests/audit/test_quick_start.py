"""The README quick start: `vfix audit` with no arguments audits this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def test_vfix_audit_with_no_arguments_audits_this_machine(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "vfix", "audit"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr  # findings or none: never an error
    report = json.loads(done.stdout)  # not a TTY: JSON by default
    (host,) = report["hosts"]
    assert host["verdict"] in ("PASS", "WARN", "FAIL")
    checks = {f["check"] for f in host["findings"]}
    (run,) = (tmp_path / ".vfix" / "runs").iterdir()  # the evidence was kept
    facts = json.loads((run / f"{host['host']}.json").read_text())
    if not facts["gpus"] and not facts["versions"]["kernel_module"]:
        # a CPU-only machine (like CI) says so, as information, instead of failing GPU checks
        assert "gpu-count[none]" in checks
        assert not any(c.startswith(("mig-mode", "pcie-link", "iommu-p2p")) for c in checks)
