"""Where a command's report goes: standard output, or the file named by --output."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from vfix.errors import VfixError


def write_report(text: str, output: Path | None) -> None:
    """Print the report, or write it to OUTPUT; a file that cannot be written is exit 2."""
    if output is None:
        with reader_may_stop_early():
            sys.stdout.write(text)
            sys.stdout.flush()
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise VfixError(f"cannot write {output}: {error.strerror}") from None


@contextmanager
def reader_may_stop_early() -> Iterator[None]:
    """A reader that stops early (`vfix diagnose … | head`) is not the command failing: the
    rest of the report goes nowhere and the exit code stays the verdict's (click would exit 1,
    which reads as findings)."""
    try:
        yield
    except BrokenPipeError:
        # Python flushes stdout again at exit and would complain: point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


class ReportConsole(Console):
    """rich's Console for a report on standard output. A reader that stops early raises
    BrokenPipeError, for `reader_may_stop_early` to handle, instead of rich's exit 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError
