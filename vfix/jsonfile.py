"""Read a JSON object from a file; every problem is one VfixError line naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vfix.errors import VfixError


def read_json_object(path: Path, what: str) -> dict[str, Any]:
    """The object in PATH; `what` names the file in errors ("facts file", "model config")."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise VfixError(f"{what} {path} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise VfixError(f"cannot read {what} {path}: {error}") from None
    try:
        document = json.loads(text)
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        detail = (f"line {error.lineno} column {error.colno}: {error.msg}"
                  if isinstance(error, json.JSONDecodeError) else str(error))
        raise VfixError(f"{what} {path} is not valid JSON: {detail}") from None
    if not isinstance(document, dict):
        raise VfixError(f"{what} {path} is not a JSON object, found {type(document).__name__}")
    return document
