"""The diffs `vfix fix` prints, from Ansible results captured in real dry runs
(tests/data/fix/ansible-diffs/README.md says how)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vfix.fix.apply import _Collector
from vfix.fix.diffs import destination, render_diff, result_diff

DATA = Path(__file__).resolve().parents[1] / "data" / "fix" / "ansible-diffs"
NCCL_TASK = "Ensure the policy's NCCL variables are set and removed ones dropped in /etc/nccl.conf"
SYSCTL_TASK = "Ensure the policy's kernel parameters are in /etc/sysctl.d/90-vfix.conf"


def captured(name: str) -> list[dict[str, Any]]:
    return json.loads((DATA / name).read_text())


def changes(name: str) -> dict[str, str]:
    """Task -> diff text, through the same event handler `vfix fix` uses."""
    collector = _Collector()
    for event in captured(name):
        collector({"event": event["event"],
                   "event_data": {"host": "node1", "task": event["task"], "res": event["res"]}})
    return {change.task: change.diff for change in collector.changes["node1"]}


def test_template_diff_is_headed_by_the_destination_not_ansibles_temp_copy() -> None:
    raw = next(e["res"] for e in captured("nccl_env-template-and-existing-sysctl-file.json")
               if e["task"] == SYSCTL_TASK)
    assert "/.ansible/tmp/" in raw["diff"][0]["after_header"]  # what Ansible itself says
    diff = changes("nccl_env-template-and-existing-sysctl-file.json")[SYSCTL_TASK]
    assert diff.splitlines()[:2] == ["--- /etc/sysctl.d/90-vfix.conf",
                                     "+++ /etc/sysctl.d/90-vfix.conf"]
    assert "-vm.max_map_count = 65530" in diff and "+vm.max_map_count = 1048576" in diff
    assert ".ansible/tmp" not in diff


def test_a_new_file_diffs_from_dev_null() -> None:
    diff = changes("nccl_env-template-and-new-sysctl-file.json")[SYSCTL_TASK]
    assert diff.splitlines()[:3] == ["--- /dev/null", "+++ /etc/sysctl.d/90-vfix.conf",
                                     "@@ -0,0 +1,3 @@"]


def test_nccl_env_dry_run_is_one_diff_of_the_whole_file() -> None:
    diff = changes("nccl_env-template-and-new-sysctl-file.json")[NCCL_TASK]
    assert diff.splitlines() == [
        "--- /etc/nccl.conf", "+++ /etc/nccl.conf", "@@ -1,3 +1,3 @@", " NCCL_DEBUG=WARN",
        "-NCCL_P2P_DISABLE=1", "-NCCL_SOCKET_IFNAME=lo", "+NCCL_SOCKET_IFNAME==eth0",
        "+NCCL_IB_TIMEOUT=22"]


def test_looped_tasks_show_each_changed_items_diff() -> None:
    found = changes("nccl_env-lineinfile-loop.json")
    removal = found["Ensure the NCCL config drops removed variables from /etc/nccl.conf"]
    assert "-NCCL_P2P_DISABLE=1" in removal.splitlines()
    settings = found["Ensure the NCCL config sets the policy's variables in /etc/nccl.conf"]
    assert settings.count("+++ /etc/nccl.conf (content)") == 2
    assert "+NCCL_IB_TIMEOUT=22" in settings.splitlines()


def test_destination_from_result_or_check_mode_arguments() -> None:
    assert destination({"dest": "/etc/a"}) == "/etc/a"
    assert destination({"invocation": {"module_args": {"dest": "/etc/b"}}}) == "/etc/b"
    assert destination({"invocation": {"module_args": {"path": "/etc/c"}}}) == "/etc/c"
    assert destination({}) is None


def test_temp_headers_without_a_destination_fall_back_to_the_before_header() -> None:
    text = render_diff({"before": "a\n", "after": "b\n", "before_header": "/etc/x",
                        "after_header": "/home/ansible/.ansible/tmp/ansible-tmp-1-2/source"})
    assert text.splitlines()[:2] == ["--- /etc/x", "+++ /etc/x"]
    assert result_diff({"changed": True, "results": [{"changed": False, "diff": {
        "before": "a\n", "after": "b\n"}}]}) == ""
