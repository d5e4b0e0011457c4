"""Run the node probe on this machine, as a child process (no Ansible)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from vfix.errors import VfixError

PROBE_SCRIPT = Path(__file__).with_name("vfix_probe.py")


def run_local_probe(python: str = "python3", section_timeout: float = 20.0,
                    extra_args: list[str] | None = None,
                    env: dict[str, str] | None = None) -> dict[str, Any]:
    """The probe document for this machine. The probe itself never fails; this raises
    VfixError only when the probe could not be started or its output is not JSON."""
    if section_timeout <= 0:
        raise VfixError(f"section timeout must be positive, got {section_timeout}")
    argv = [sys.executable, str(PROBE_SCRIPT), "--python", python,
            "--section-timeout", str(section_timeout), *(extra_args or [])]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False,
                              timeout=section_timeout * 2 + 30,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise VfixError(f"the probe did not finish within {section_timeout * 2 + 30:g}s") from None
    except OSError as error:
        raise VfixError(f"cannot start the probe: {error}") from None
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise VfixError(f"the probe exited with {proc.returncode}: {detail}")
    try:
        document = json.loads(proc.stdout)
    except ValueError as error:
        raise VfixError(f"the probe printed no JSON document ({error})") from None
    if not isinstance(document, dict):
        raise VfixError("the probe printed JSON that is not an object")
    return document
