"""Action plugin for `vfix_probe`: run the node probe in one pipelined SSH round trip.

The probe module is a stdlib script. Run as an old-style module, Ansible would copy it and an
args file to a remote temp dir and clean up after (five or more SSH operations per host, no
pipelining). Here its source is piped to the node's python3 in script mode (`python3 - ARGS`,
which prints the probe document), with become applied as for any module, so a host costs one
round trip and writes nothing on the node. Check mode is safe: the probe only reads.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

DEFAULT_SECTION_TIMEOUT = 20.0


class ActionModule(ActionBase):
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self._task.args
        command = self._command(args, task_vars)
        source = self._probe_source()
        done = self._low_level_execute_command(command, sudoable=True, in_data=source)
        if done.get("rc") != 0:
            stderr = (done.get("stderr") or done.get("stdout") or "").strip().splitlines()
            raise AnsibleActionFail(f"the probe exited {done.get('rc')}: "
                                    f"{stderr[-1] if stderr else 'no output'}")
        try:
            document = json.loads(done.get("stdout") or "")
        except ValueError as error:
            raise AnsibleActionFail(f"the probe printed no JSON document ({error})") from None
        result.update(changed=False, ansible_facts={"vfix_probe": document})
        return result

    def _command(self, args: dict[str, Any], task_vars: dict[str, Any]) -> str:
        # The probe needs only python3; an inventory's interpreter (even a template) wins.
        python = self._templar.template(task_vars.get("ansible_python_interpreter") or "python3")
        sysctls = args.get("extra_sysctls") or []
        if isinstance(sysctls, str):
            sysctls = [s.strip() for s in sysctls.split(",") if s.strip()]
        if not isinstance(sysctls, list) or not all(isinstance(s, str) for s in sysctls):
            raise AnsibleActionFail("extra_sysctls must be a list of sysctl names")
        # The probe's own argument parser checks the values (its error becomes the failure).
        words = [str(python), "-", "--python", str(args.get("python_interpreter") or "python3"),
                 "--section-timeout", str(args.get("section_timeout") or DEFAULT_SECTION_TIMEOUT)]
        for name in sysctls:
            words += ["--sysctl", name]
        return " ".join(shlex.quote(word) for word in words)

    def _probe_source(self) -> bytes:
        found = self._shared_loader_obj.module_loader.find_plugin_with_context("vfix_probe")
        if not found.resolved or not found.plugin_resolved_path:
            raise AnsibleActionFail("the vfix_probe module is not on the module path")
        with open(found.plugin_resolved_path, "rb") as handle:
            return handle.read()
