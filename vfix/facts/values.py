"""Small, forgiving converters for tool output: "143771 MiB" -> 143771, "N/A" -> None."""

from __future__ import annotations

import re

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
NOT_AVAILABLE = {"", "n/a", "[n/a]", "not supported", "[not supported]", "unknown", "none",
                 "[unknown error]", "requested functionality has been deprecated"}


def clean(text: object) -> str | None:
    """Trimmed text, or None for the N/A family."""
    if text is None:
        return None
    value = str(text).strip()
    return None if value.lower() in NOT_AVAILABLE else value


def to_int(text: object) -> int | None:
    number = to_float(text)
    return None if number is None else int(number)


def to_float(text: object) -> float | None:
    value = clean(text)
    if value is None:
        return None
    match = NUMBER.search(value)
    if match is None:
        return None
    try:
        number = float(match.group(0))
    except (ValueError, OverflowError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def to_bool(text: object) -> bool | None:
    """Enabled/Yes/On/Active/1 -> True, Disabled/No/Off/Not Active/0 -> False, else None."""
    value = clean(text)
    if value is None:
        return None
    lowered = value.lower()
    if lowered in ("enabled", "yes", "on", "active", "true", "1"):
        return True
    if lowered in ("disabled", "no", "off", "not active", "false", "0"):
        return False
    return None
