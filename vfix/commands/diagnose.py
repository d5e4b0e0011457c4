"""`vfix diagnose FILE… | -`: parses options and hands the logs to vfix.diagnose."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from vfix.commands.output import ReportConsole, reader_may_stop_early
from vfix.diagnose import Diagnosis, diagnose_paths, diagnose_stream
from vfix.diagnose.render import Format, render
from vfix.errors import VfixError
from vfix.vocabulary import ExitCode


def diagnose(
    files: list[str] = typer.Argument(..., help="Log files (vLLM, Ray, NCCL_DEBUG, torchrun, "
                                      "dmesg), or - for standard input."),
    output_format: Format = typer.Option(None, "--format", "-f",
                                         help="table (default on a terminal), json or markdown."),
) -> None:
    """Say what broke in failure logs: layer, root cause, evidence lines and the fix."""
    fmt = output_format or (Format.TABLE if sys.stdout.isatty() else Format.JSON)
    if files.count("-") > 1:
        raise VfixError("standard input (-) can be given only once")
    missing = [f for f in files if f != "-" and not Path(f).exists()]
    if missing:
        raise VfixError(f"{missing[0]}: no such file")
    results: list[Diagnosis] = []
    for name in files:
        if name == "-":
            results.append(diagnose_stream(sys.stdin.buffer, name="-"))
        else:
            results.extend(diagnose_paths([name]))
    with reader_may_stop_early():
        render(results, fmt, ReportConsole())
    raise typer.Exit(worst_exit_code(results))


def worst_exit_code(results: list[Diagnosis]) -> int:
    codes = {r.exit_code for r in results}
    for code in (ExitCode.OPERATIONAL_ERROR, ExitCode.FINDINGS):
        if code in codes:
            return code
    return ExitCode.CLEAN
