"""The ansible-runner wrapper, on this machine (local connection) and an unreachable host."""

from __future__ import annotations

import socket
import tomllib
from pathlib import Path

import pytest
import yaml

from vfix.ansible import paths
from vfix.ansible.progress import Progress
from vfix.ansible.runner import HostOutcome, failure_reason, run_playbook
from vfix.errors import VfixError

REPO = Path(__file__).resolve().parents[2]
LOCAL = {"ansible_connection": "local",
         "ansible_python_interpreter": "{{ ansible_playbook_python }}"}


def _closed_port() -> int:
    with socket.socket() as sock:  # bound, never listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write(path: Path, document: object) -> Path:
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _play(*tasks: dict) -> list[dict]:
    return [{"name": "Test play", "hosts": "all", "gather_facts": False, "tasks": list(tasks)}]


@pytest.mark.slow
def test_facts_come_from_the_fact_cache_and_unreachable_hosts_are_data(tmp_path):
    inventory = _write(tmp_path / "hosts.yml", {"all": {"hosts": {
        "localhost": LOCAL,
        "ghost": {"ansible_host": "127.0.0.1", "ansible_port": _closed_port(),
                  "ansible_connection": "ssh"}}}})
    playbook = _write(tmp_path / "play.yml", _play(
        {"name": "Reach the host", "ansible.builtin.ping": {}},
        {"name": "Remember a fact", "ansible.builtin.set_fact": {
            "cacheable": True, "vfix_test": {"big": "x" * 800_000, "n": 7}}}))
    events = []
    result = run_playbook(str(playbook), inventory, progress=False, event_handler=events.append)

    local, ghost = result.hosts["localhost"], result.hosts["ghost"]
    assert local.status is HostOutcome.OK and local.reason is None
    assert local.facts["vfix_test"]["n"] == 7
    assert len(local.facts["vfix_test"]["big"]) == 800_000  # not blanked like an event would be
    assert ghost.status is HostOutcome.UNREACHABLE
    assert "Connection refused" in (ghost.reason or "")
    assert ghost.facts == {}
    assert result.failed_hosts == ["ghost"]
    assert any(e.get("event") == "playbook_on_stats" for e in events)


@pytest.mark.slow
def test_a_failed_task_names_itself_and_why(tmp_path):
    inventory = _write(tmp_path / "hosts.yml", {"all": {"hosts": {"localhost": LOCAL}}})
    playbook = _write(tmp_path / "play.yml", _play(
        {"name": "Break on purpose", "ansible.builtin.fail": {"msg": "shm is 64M\nsecond line"}},
        {"name": "Never reached", "ansible.builtin.debug": {"msg": "no"}}))
    host = run_playbook(str(playbook), inventory, progress=False).hosts["localhost"]
    assert host.status is HostOutcome.FAILED
    assert host.reason == "shm is 64M"
    assert host.failed_task == "Break on purpose"


@pytest.mark.slow
def test_check_mode_reports_a_change_without_making_it(tmp_path):
    inventory = _write(tmp_path / "hosts.yml", {"all": {"hosts": {"localhost": LOCAL}}})
    target = tmp_path / "written.conf"
    playbook = _write(tmp_path / "play.yml", _play(
        {"name": "Write a file", "ansible.builtin.copy": {
            "dest": str(target), "content": "x\n", "mode": "0644"}}))
    host = run_playbook(str(playbook), inventory, check=True, diff=True,
                        progress=False).hosts["localhost"]
    assert host.status is HostOutcome.CHANGED and host.changed == 1
    assert not target.exists()


def test_bad_inputs_fail_before_ansible_starts(tmp_path):
    with pytest.raises(VfixError, match="does not exist"):
        run_playbook("gather", tmp_path / "missing.yml")
    with pytest.raises(VfixError, match="playbook no_such_playbook not found"):
        run_playbook("no_such_playbook", REPO / "inventories" / "local")
    with pytest.raises(VfixError, match="forks must be at least 1"):
        run_playbook("gather", REPO / "inventories" / "local", forks=0)


def test_failure_reasons_are_one_line():
    assert failure_reason({"msg": "first\nsecond"}) == "first"
    assert failure_reason({"module_stderr": "Traceback\n  x\nValueError: bad"}) == "ValueError: bad"
    assert failure_reason({"rc": 1}) == "no reason given"
    assert failure_reason(None) == "no reason given"
    assert len(failure_reason({"msg": "y" * 1000})) == 300


def test_progress_shows_each_host_status():
    progress = Progress(["node1", "node2"], "gather", enabled=False)
    progress.update("node1", "running", "Run the vfix node probe")
    progress.update("node2", "unreachable", "Run the vfix node probe")
    progress.update("node2", "ok")  # a later event never hides the failure
    text = progress.render_text()
    assert "node1" in text and "running" in text
    assert "node2" in text and "unreachable" in text


def test_ansible_content_is_found_in_the_checkout():
    assert paths.ansible_home() == REPO
    assert paths.playbook_path("gather") == REPO / "playbooks" / "gather.yml"
    env = paths.ansible_environment()
    assert env["ANSIBLE_CONFIG"] == str(REPO / "ansible.cfg")
    assert (Path(env["ANSIBLE_LIBRARY"]) / "vfix_probe.py").is_file()


def test_ansible_content_is_found_in_a_wheel_layout(tmp_path, monkeypatch):
    # Lay files out as pyproject's force-include puts them in the wheel: vfix/_ansible/...
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    mapping = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    package = tmp_path / "site" / "vfix"
    package.mkdir(parents=True)
    for source, target in mapping.items():
        destination = tmp_path / "site" / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.symlink_to(REPO / source)
    monkeypatch.setattr(paths, "PACKAGE_DIR", package)
    assert paths.ansible_home() == package / "_ansible"
    assert paths.playbook_path("gather") == package / "_ansible" / "playbooks" / "gather.yml"
    assert paths.default_inventory() == package / "_ansible" / "inventories" / "local"
