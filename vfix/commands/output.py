"""Where a command's report goes: standard output, or the file named by --output."""

from __future__ import annotations

import sys
from pathlib import Path

from vfix.errors import VfixError


def write_report(text: str, output: Path | None) -> None:
    """Print the report, or write it to OUTPUT; a file that cannot be written is exit 2."""
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise VfixError(f"cannot write {output}: {error.strerror}") from None
