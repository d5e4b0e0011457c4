"""Fleet gather: probe every host through Ansible and keep the evidence as a run directory."""

from vfix.gather.gather import gather
from vfix.gather.rundir import HostState, HostStatus, Run, RunRecord, load_run_dir

__all__ = ["HostState", "HostStatus", "Run", "RunRecord", "gather", "load_run_dir"]
