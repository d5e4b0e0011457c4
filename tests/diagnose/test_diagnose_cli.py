"""`vfix diagnose`: exit codes, formats, the documented JSON fields, stdin, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import typer
from typer.testing import CliRunner

from vfix.commands.diagnose import diagnose
from vfix.diagnose.render import Format

LOGS = Path(__file__).resolve().parent.parent / "data" / "logs"
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "vfix" / "diagnose"
                     / "result.schema.json").read_text())
FAILED = LOGS / "dev" / "dynamo-1408-shm-tp2.log"
HEALTHY = LOGS / "dev" / "h200-vllm026-serve-ok.log"


def make_app() -> typer.Typer:
    # The same registration vfix/cli.py does, on an app of its own for isolation.
    app = typer.Typer(add_completion=False)

    @app.callback()
    def root() -> None:
        """vfix"""

    app.command("diagnose")(diagnose)
    return app


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(make_app(), ["diagnose", *args], input=stdin)
    return result.exit_code, result.output


def test_json_has_exactly_the_documented_fields() -> None:
    code, out = run(str(FAILED), str(HEALTHY), "--format", "json")
    assert code == 0
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)  # additionalProperties: false everywhere
    assert [d["root_cause"] for d in data] == ["shm_too_small", "none"]
    assert data[0]["candidates"][0]["fix"][0]["role"] == "shm"


def test_every_corpus_log_renders_valid_json() -> None:
    paths = [str(p) for p in sorted(LOGS.glob("*/*.log"))]
    code, out = run(*paths, "-f", "json")
    jsonschema.validate(json.loads(out), SCHEMA)
    assert code in (0, 1)


def test_unknown_failure_exits_1_and_shows_suspicious_lines() -> None:
    code, out = run("-", "-f", "table",
                    stdin=b"Traceback (most recent call last):\nKeyError: 'zzz'\n")
    assert code == 1
    assert "unknown" in out and "KeyError" in out


def test_stdin_and_markdown() -> None:
    code, out = run("-", "--format", "markdown", stdin=FAILED.read_bytes())
    assert code == 0
    assert "## -: cause_found — `shm_too_small` (resources)" in out
    assert "(vfix role `shm`)" in out


def test_table_names_cause_evidence_fix_and_nccl_summary() -> None:
    code, out = run(str(FAILED), "-f", "table")
    assert code == 0
    for text in ("shm_too_small", "evidence L13", "fix:", "role shm",
                 "nccl: channels: 00-01 P2P/IPC"):
        assert text in out


def test_missing_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(make_app(), ["diagnose", str(tmp_path / "nope.log")])
    assert result.exit_code != 0
    assert "nope.log: no such file" in str(result.exception)


def test_empty_and_binary_input_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    binary = tmp_path / "core"
    binary.write_bytes(bytes(range(256)) * 100)
    code, out = run(str(empty), str(binary), "-f", "json")
    assert code == 2
    assert [d["status"] for d in json.loads(out)] == ["unusable", "unusable"]


@pytest.mark.parametrize("fmt", list(Format))
def test_every_format_renders(fmt: Format) -> None:
    code, out = run(str(FAILED), "--format", fmt.value)
    assert code == 0 and "shm_too_small" in out


def test_per_rank_files_name_the_rank_that_failed_first(tmp_path: Path) -> None:
    lines = (Path(__file__).parent / "interleaved_tp2.log").read_text().splitlines()
    rank0 = tmp_path / "rank0.log"
    rank1 = tmp_path / "rank1.log"
    rank0.write_text("\n".join(x for x in lines if "rank=1" not in x) + "\n")
    rank1.write_text("\n".join(x for x in lines if "rank=1" in x) + "\n")
    code, out = run(str(rank0), str(rank1), "-f", "table")
    assert code == 0
    assert f"first failing input: {rank1} (shm_too_small)" in out.replace("\n", "")


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_a_reader_that_stops_early_leaves_the_verdict_as_the_exit_code(fmt: str) -> None:
    # `vfix diagnose … | head -c 10`: the real command, its stdout a pipe closed after 10 bytes
    command = [sys.executable, "-m", "vfix", "diagnose", "--format", fmt, *[str(FAILED)] * 60]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert len(process.stdout.read(10)) == 10
        process.stdout.close()
        stderr = process.stderr.read()
    assert process.returncode == 0  # the cause was found: not 1 (findings) from click or rich
    assert stderr == b""
