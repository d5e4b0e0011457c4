"""goss-style matchers: one operator and an expected value, tested against an observed value.

Operators: `eq`, `ne`, `ge`, `le`, `in`, `match` (regular expression, searched), `semver`
(a PEP 440 specifier such as ">=2.28,<3"), and `value` (plain data for a check, never tested).
`ge`/`le` accept sizes with binary suffixes ("16Gi", "64M", "1T") besides plain numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

OPERATORS = ("eq", "ne", "ge", "le", "in", "match", "semver", "value")

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGTP]?)(i?B?)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}


def parse_quantity(value: Any) -> float:
    """A number, or a size string with a binary suffix ("16Gi", "64M") in bytes."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, int | float):
        return float(value)
    match = _SIZE.match(str(value))
    if not match:
        raise ValueError(f"{value!r} is not a number or a size like 16Gi")
    return float(match.group(1)) * _UNITS[match.group(2).upper()]


def _loose_version(text: str) -> Version:
    """'2.28.3-1' or '580.159.04' or '2.11.0+cu130' as a comparable version."""
    cleaned = str(text).strip().split("-", 1)[0]
    return Version(cleaned)


@lru_cache(maxsize=4096)
def _satisfies(constraint: str, observed: str) -> bool:
    """A fleet has few distinct versions: cached, since parsing dominates the comparison."""
    try:
        return _loose_version(observed) in SpecifierSet(constraint)
    except InvalidVersion:
        return False


@dataclass(frozen=True)
class Matcher:
    op: str
    expected: Any
    reason: str | None = None
    _bound: float = field(default=0.0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.op not in OPERATORS:
            raise ValueError(f"unknown matcher {self.op!r} (one of {', '.join(OPERATORS)})")
        if self.op in ("ge", "le") and self.expected is not None:
            object.__setattr__(self, "_bound", parse_quantity(self.expected))
        if self.op == "semver":
            try:
                SpecifierSet(str(self.expected))
            except InvalidSpecifier as error:
                raise ValueError(f"invalid semver constraint {self.expected!r}") from error
        if self.op == "match":
            try:
                re.compile(str(self.expected))
            except re.error as error:
                raise ValueError(
                    f"invalid regular expression {self.expected!r}: {error}"
                ) from error
        if self.op == "in" and not isinstance(self.expected, list):
            raise ValueError("'in' needs a list")

    def test(self, observed: Any) -> bool:
        """True when the observed value satisfies the matcher. `None` never satisfies."""
        if self.op == "value" or self.expected is None:
            return True
        if observed is None:
            return False
        if self.op == "eq":
            return _same(observed, self.expected)
        if self.op == "ne":
            return not _same(observed, self.expected)
        if self.op == "in":
            return any(_same(observed, item) for item in self.expected)
        if self.op == "match":
            return re.search(str(self.expected), str(observed)) is not None
        if self.op == "semver":
            return _satisfies(str(self.expected), str(observed))
        try:
            number = parse_quantity(observed)
        except ValueError:
            return False
        bound = self._bound
        return number >= bound if self.op == "ge" else number <= bound

    def describe(self) -> str:
        symbols = {
            "eq": "==",
            "ne": "!=",
            "ge": ">=",
            "le": "<=",
            "in": "one of",
            "match": "matches",
        }
        if self.op == "semver":
            return str(self.expected)
        if self.op == "value":
            return str(self.expected)
        return f"{symbols[self.op]} {self.expected}"


def _same(observed: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(observed, bool):
        return _as_bool(observed) == _as_bool(expected)
    if isinstance(expected, int | float) and not isinstance(observed, bool):
        try:
            return float(observed) == float(expected)
        except (TypeError, ValueError):
            return False
    return str(observed).strip().lower() == str(expected).strip().lower()


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on", "enabled"):
        return True
    if text in ("0", "false", "no", "off", "disabled"):
        return False
    return None


def matcher_from(entry: Any, default_op: str = "eq") -> Matcher:
    """A matcher from policy data: `{ge: 16Gi, reason: ...}` or a bare value (`default_op`)."""
    if isinstance(entry, Matcher):
        return entry
    if isinstance(entry, dict):
        ops = [key for key in entry if key != "reason"]
        if len(ops) != 1:
            raise ValueError(f"a matcher needs exactly one of {', '.join(OPERATORS)}, got {ops}")
        return Matcher(ops[0], entry[ops[0]], entry.get("reason"))
    return Matcher(default_op, entry)
