"""`vfix gather` on this machine (the default local inventory): exit codes, output, run dir."""

from __future__ import annotations

import json
import socket

import pytest

from vfix.cli import main


def vfix(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.mark.slow
def test_gathering_this_machine_writes_a_run(tmp_path, capsys):
    code, out, err = vfix(capsys, "gather", "--out", str(tmp_path / "run"))
    assert code == 0, err
    assert "1/1 host(s) probed" in out and str(tmp_path / "run") in out
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["hosts"]["localhost"]["status"] == "ok"
    facts = json.loads((tmp_path / "run" / "localhost.json").read_text())
    assert facts["host"] == "localhost"
    assert facts["system"]["hostname"] == socket.gethostname()

    code, _, err = vfix(capsys, "gather", "--out", str(tmp_path / "run"))
    assert code == 2
    assert err == (f"vfix: error: {tmp_path / 'run'} already holds a run; "
                   "choose another --out directory\n")


@pytest.mark.parametrize(("args", "message"), [
    (["-i", "/nonexistent/hosts.yml"], "inventory /nonexistent/hosts.yml does not exist"),
    (["--limit", "no_such_host"], "with limit 'no_such_host' has no hosts"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    code, _, err = vfix(capsys, "gather", *args, "--out", str(tmp_path / "run"))
    assert code == 2
    assert err.startswith("vfix: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()
