"""The `vfix` root: only the command being run is imported; --help lists all without importing."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vfix.cli import COMMANDS, main
from vfix.commands.lazy import load_command

COMMANDS_DIR = Path(__file__).resolve().parents[1] / "vfix" / "commands"
NOT_COMMANDS = {"__init__", "lazy", "output"}

LOADED_AFTER = """
import json, sys
from vfix.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def loaded_after(*args: str) -> tuple[int, str, set[str]]:
    """Run vfix ARGS in a fresh interpreter: exit code, stdout, the modules it imported."""
    proc = subprocess.run([sys.executable, "-c", LOADED_AFTER, *args], capture_output=True,
                          text=True, timeout=120, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], proc.stdout, set(report["modules"])


def command_modules(modules: set[str]) -> set[str]:
    helpers = {f"vfix.commands.{name}" for name in NOT_COMMANDS}  # shared by commands, not one
    return {m for m in modules if m.startswith("vfix.commands.")} - helpers


def test_probe_help_imports_only_the_probe_command() -> None:
    code, out, modules = loaded_after("probe", "--help")
    assert code == 0 and "--section-timeout" in out
    assert command_modules(modules) == {"vfix.commands.probe"}
    assert not {"ahocorasick_rs", "ansible_runner", "vfix.diagnose"} & modules


def test_root_help_lists_every_command_without_importing_any() -> None:
    code, out, modules = loaded_after("--help")
    assert code == 0
    assert command_modules(modules) == set()
    assert "pydantic" not in modules
    listed = [line.split()[1] for line in out.splitlines()
              if len(line.split()) > 1 and line.split()[1] in COMMANDS]
    assert listed == list(COMMANDS)


def test_diagnose_loads_its_native_dependency_only_itself() -> None:
    code, out, modules = loaded_after("diagnose", "--help")
    assert code == 0 and "--format" in out
    assert "ahocorasick_rs" in modules
    assert command_modules(modules) == {"vfix.commands.diagnose"}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_listed_help_is_the_commands_own_first_paragraph(name: str) -> None:
    command = load_command(name, COMMANDS[name], "rich")
    own = inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ")
    assert COMMANDS[name].help == own


def test_every_command_module_is_listed() -> None:
    modules = {f"vfix.commands.{p.stem}" for p in COMMANDS_DIR.glob("*.py")
               if p.stem not in NOT_COMMANDS}
    assert modules == {entry.module for entry in COMMANDS.values()}


def test_unknown_command_is_one_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["prob"])
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert "No such command 'prob'. Did you mean 'probe'?" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["audit", "--format", "bogus"],
    ["diagnose", "--nope"],
    ["preflight", "--model", "x", "--tp", "two"],
    ["validate", "nccl", "--bogus"],
])
def test_bad_options_are_one_line_exit_2(argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert err.startswith("vfix: error: ") and err.count("\n") == 1, err
    assert f"see 'vfix {argv[0]}" in err


def test_validate_stays_a_group(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["validate", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert all(kind in out for kind in ("nccl", "allreduce", "vllm"))
