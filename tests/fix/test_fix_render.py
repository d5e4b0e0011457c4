"""Diff rendering of Ansible results, and the fix command's refusals (exit 2, one line)."""

from __future__ import annotations

import subprocess
import sys

from vfix.fix.diffs import render_diff


def test_render_diff_unified_and_prepared():
    text = render_diff([{"before": "a\nb\n", "after": "a\nc\n", "before_header": "/etc/x",
                         "after_header": "/etc/x"}, {"prepared": "+ line"}])
    assert "--- /etc/x" in text and "-b" in text and "+c" in text and "+ line" in text
    assert render_diff({"before": "same", "after": "same"}) == ""
    assert render_diff(None) == ""


def _vfix(*args):
    return subprocess.run([sys.executable, "-m", "vfix", "fix", *args],
                          capture_output=True, text=True, timeout=120)


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    for args, reason in ((["--only", "no-such-check", "--facts", str(tmp_path)], "unknown check"),
                         (["--tags", "nope", "--facts", str(tmp_path)], "unknown role"),
                         (["--facts", str(tmp_path / "missing")], "missing"),
                         (["--apply", "--facts", str(tmp_path)], "needs the inventory")):
        done = _vfix(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert reason in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
