"""`vfix fix --facts DIR` without an inventory: the plan from saved real H200 facts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

FACTS = Path(__file__).resolve().parents[1] / "data/fix/facts-h200"


def _vfix(*args):
    return subprocess.run([sys.executable, "-m", "vfix", "fix", *args],
                          capture_output=True, text=True, timeout=120)


def test_real_nccl_drift_is_a_manual_step_and_fixable_findings_are_planned():
    done = _vfix("--facts", str(FACTS))
    assert done.returncode == 1, done.stderr
    assert "h200-vm:\n  role sysctl fixes sysctl[mismatch]\n" in done.stdout
    assert "MANUAL nccl-libraries[multiple]: 2 NCCL libraries with versions 2.28.3, 2.28.9" \
        in done.stdout
    assert "plan only: saved facts and no inventory" in done.stdout


def test_a_declared_version_matrix_turns_the_nccl_drift_into_the_versions_role(tmp_path):
    shutil.copytree(FACTS, tmp_path / "run")
    file = tmp_path / "run/h200-vm.json"
    facts = json.loads(file.read_text())
    facts["group_vars"] = {"vfix_versions": {"versions_venv": "/opt/torch/.venv",
                                             "versions_nccl_wheel": "nvidia-nccl-cu13",
                                             "versions_nccl_wheel_version": "2.28.9"}}
    file.write_text(json.dumps(facts))
    done = _vfix("--facts", str(tmp_path / "run"), "--only", "nccl-libraries")
    assert done.returncode == 1, done.stderr
    assert "  role versions fixes nccl-libraries[multiple]\n" in done.stdout
    assert '      with versions_allow_reboot=false, versions_nccl_wheel="nvidia-nccl-cu13", ' \
           'versions_nccl_wheel_version="2.28.9", versions_venv="/opt/torch/.venv"' in done.stdout
    assert "MANUAL" not in done.stdout
