"""The node probe: `vfix_probe.py` (stdlib-only script and Ansible module) and how to run it
on this machine without Ansible."""

from vfix.probe.local import PROBE_SCRIPT, run_local_probe

__all__ = ["PROBE_SCRIPT", "run_local_probe"]
