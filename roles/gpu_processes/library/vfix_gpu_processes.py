#!/usr/bin/python
"""Ansible module: list GPU processes with a stale/keep decision each, and end the stale ones.

The decision logic lives in module_utils/vfix_stale_gpu.py (stdlib only, property-tested).
"""

from __future__ import annotations

DOCUMENTATION = r"""
module: vfix_gpu_processes
short_description: Find and terminate proven-stale GPU processes
description:
  - Reads the process table, decides for every process holding a GPU whether it is proven stale,
    and, only with I(terminate=true) and outside check mode, ends the stale ones with SIGTERM, a
    grace period and SIGKILL, then verifies with nvidia-smi that their GPU memory is released.
options:
  terminate: {type: bool, default: false, description: Opt-in to actually end processes.}
  grace_seconds: {type: float, default: 10, description: Wait after SIGTERM before SIGKILL.}
  kill_wait_seconds: {type: float, default: 5, description: Wait after SIGKILL.}
  verify_timeout_seconds: {type: float, default: 30, description: Wait for memory release.}
  worker_patterns: {type: list, elements: str, default: [], description: Worker regexes.}
  server_patterns: {type: list, elements: str, description: Live-server regexes.}
  protected_patterns: {type: list, elements: str, default: [], description: Extra protected.}
  users: {type: list, elements: str, default: [], description: Eligible owners (empty = all).}
  extra_init_names: {type: list, elements: str, default: [], description: More subreapers.}
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402 - after DOCUMENTATION
from ansible.module_utils.vfix_stale_gpu import (  # noqa: E402
    DEFAULT_INIT_NAMES,
    DEFAULT_SERVER_PATTERNS,
    Policy,
    read_process_table,
    select_stale,
    terminate,
)


def _line(decision):
    verdict = "STALE" if decision.stale else "keep"
    memory = "" if decision.gpu_memory_mib is None else f" {decision.gpu_memory_mib} MiB"
    return f"{verdict} pid {decision.pid} user {decision.user}{memory}: {decision.cmdline[:120]}" \
           f" -- {decision.reason}"


def main():
    module = AnsibleModule(
        argument_spec={
            "terminate": {"type": "bool", "default": False},
            "grace_seconds": {"type": "float", "default": 10},
            "kill_wait_seconds": {"type": "float", "default": 5},
            "verify_timeout_seconds": {"type": "float", "default": 30},
            "worker_patterns": {"type": "list", "elements": "str", "default": []},
            "server_patterns": {"type": "list", "elements": "str",
                                "default": list(DEFAULT_SERVER_PATTERNS)},
            "protected_patterns": {"type": "list", "elements": "str", "default": []},
            "users": {"type": "list", "elements": "str", "default": []},
            "extra_init_names": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    params = module.params
    policy = Policy(
        worker_patterns=tuple(params["worker_patterns"]),
        server_patterns=tuple(params["server_patterns"]),
        protected_patterns=tuple(params["protected_patterns"]),
        users=tuple(params["users"]),
        init_names=DEFAULT_INIT_NAMES + tuple(params["extra_init_names"]),
    )
    decisions = select_stale(read_process_table(), policy)
    stale = [d for d in decisions if d.stale]
    result = {
        "changed": False,
        "processes": [_line(d) for d in decisions],
        "stale": [{"pid": d.pid, "user": d.user, "cmdline": d.cmdline, "reason": d.reason,
                   "gpu_memory_mib": d.gpu_memory_mib} for d in stale],
        "terminated": [],
    }
    if stale and params["terminate"]:
        result["changed"] = True
        result["diff"] = {"before": "".join(_line(d) + "\n" for d in stale),
                          "after": "", "before_header": "stale GPU processes",
                          "after_header": "after termination"}
    if not stale or not params["terminate"] or module.check_mode:
        if stale and not params["terminate"]:
            module.warn(f"{len(stale)} stale GPU process(es) found; not terminated because "
                        "gpu_processes_terminate is false")
        module.exit_json(**result)

    report = terminate(stale, params["grace_seconds"], params["kill_wait_seconds"],
                       params["verify_timeout_seconds"])
    result["terminated"] = [vars(outcome) for outcome in report.outcomes]
    result["verification"] = report.verification
    result["memory_released"] = report.memory_released
    result["gpu_memory_used_before_mib"] = report.gpu_memory_used_before_mib
    result["gpu_memory_used_after_mib"] = report.gpu_memory_used_after_mib
    survived = [o.pid for o in report.outcomes if o.result == "survived"]
    if survived or report.memory_released is False:
        module.fail_json(msg=f"stale processes not ended or GPU memory not released: "
                             f"{report.verification}; survived: {survived}", **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
