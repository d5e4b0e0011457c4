"""The node-side smoke driver against the vLLM test double, as real processes on this machine:
launch, readiness or death, probes, ramp, TP=1 comparison and a verified teardown."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vfix.validate.vllm_verdict import judge_smoke
from vfix.vocabulary import Verdict

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "vfix" / "validate" / "node" / "vllm_smoke.py"
DOUBLE = ROOT / "tests" / "doubles" / "fake_vllm_server.py"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def smoke(tmp_path: Path, mode: str = "", tp: int = 2, *extra: str) -> dict:
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text('{"vocab_size": 1024}')
    output = tmp_path / "result.json"
    env = {"PATH": "/usr/bin:/bin", "FAKE_VLLM_MODE": mode}
    subprocess.run([sys.executable, str(DRIVER), "--model", str(model), "--tp", str(tp),
                    "--port", str(free_port()), "--serve-cmd", f"{sys.executable} {DOUBLE}",
                    "--log-dir", str(tmp_path / "logs"), "--output", str(output),
                    "--ready-timeout-s", "8", "--teardown-timeout-s", "3", *extra],
                   check=True, timeout=60, env=env)
    return json.loads(output.read_text())


def test_healthy_server_with_tp1_comparison(tmp_path):
    doc = smoke(tmp_path, "", 2, "--compare-tp1")
    assert [run["tp"] for run in doc["runs"]] == [2, 1]
    first = doc["runs"][0]
    assert first["ready"] and first["ranks"]["ranks"] == [0, 1]
    assert first["completion"]["token_ids"] == first["repeat"]["token_ids"]
    assert [r["status"] for r in first["ramp"]] == [200, 200, 200, 200]
    assert first["past_limit"]["status"] == 400
    assert first["teardown"]["remaining_pids"] == [] and first["teardown"]["exit_code"] == 0
    node = judge_smoke("local", doc, tmp_path / "logs", diagnoser=None)
    assert node.verdict is Verdict.PASS and node.metrics["tp1_token_agreement"] == 1.0


@pytest.mark.parametrize(("mode", "check"), [
    ("tp-drift", "vllm-smoke[tp-agreement]"),
    ("missing-rank", "vllm-smoke[ranks]"),
    ("no-limit", "vllm-smoke[past-limit]"),
])
def test_misbehaving_servers_are_caught(tmp_path, mode, check):
    doc = smoke(tmp_path, mode, 2, "--compare-tp1")
    node = judge_smoke("local", doc, tmp_path / "logs", diagnoser=None)
    assert check in [f.check for f in node.findings]


def test_death_at_start_is_diagnosed_from_the_log(tmp_path):
    doc = smoke(tmp_path, "die-at-start", 1)
    [run] = doc["runs"]
    assert run["ready"] is False and run["exit_code"] == 1
    node = judge_smoke("local", doc, tmp_path / "logs")
    [finding] = node.findings
    assert finding.check == "vllm-smoke[not-ready]"
    assert "flashinfer" in finding.message


def test_never_ready_times_out(tmp_path):
    doc = smoke(tmp_path, "never-ready", 1, "--ready-timeout-s", "3")
    [run] = doc["runs"]
    assert run["ready"] is False and "not healthy after 3 s" in run["reason"]
    assert run["teardown"]["remaining_pids"] == []


def test_a_child_that_ignores_sigterm_is_killed_and_reported(tmp_path):
    doc = smoke(tmp_path, "linger", 1)
    teardown = doc["runs"][0]["teardown"]
    assert len(teardown["leftover_pids"]) == 1 and teardown["remaining_pids"] == []
    assert teardown["signal"] == "SIGTERM+SIGKILL"
    node = judge_smoke("local", doc, tmp_path / "logs", diagnoser=None)
    assert [f.check for f in node.findings] == ["vllm-smoke[teardown-sigkill]"]
