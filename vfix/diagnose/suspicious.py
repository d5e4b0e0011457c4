"""Lines that show *a* failure, whether or not a signature explains it.

They decide `unknown` versus `no_failure`, give the first failing rank when no signature
matched, and are shown to the operator when the cause is unknown.
"""

from __future__ import annotations

import re
from collections import deque

from vfix.diagnose.model import Evidence
from vfix.diagnose.sources import line_source

# keyword -> how strongly it signals a failure (3: an exception or crash line itself)
KEYWORDS: dict[str, int] = {
    "Traceback (most recent call last)": 1,
    "Error: ": 3,
    "Exception: ": 3,
    "Error(": 2,
    "ERROR": 2,
    "CRITICAL": 2,
    "NCCL WARN": 2,
    "Segmentation fault": 3,
    "core dumped": 3,
    "terminate called": 3,
    "Aborted": 2,
    "FAILED": 2,
    "Fatal": 2,
    "fatal error": 2,
    "died unexpectedly": 2,
    "Killed": 1,
    "undefined symbol": 3,
    "cannot open shared object file": 3,
}
_EXCEPTION_LINE = re.compile(r"(?:^|[\s:\]\)])(?:[\w]+\.)*\w*(?:Error|Exception|Exit)\b: ")
# A line logged at INFO/WARNING/DEBUG level (vLLM, glog/c10 or Python logging) reports,
# it does not fail: vLLM logs handled tracebacks and predictions ("can cause ...") this way.
_BENIGN_LEVEL = re.compile(
    r"\b(?:INFO|WARNING|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d"
    r"|(?:^|\]:)\[[IWD]\d{4} \d\d:\d\d:\d\d"
    r"|^(?:INFO|WARNING|DEBUG):[\w.]+:"
    r"|\bNCCL INFO\b"
)
_KEEP = 20
_SHOW = 8


def is_benign_level(text: str) -> bool:
    return _BENIGN_LEVEL.search(text[:300]) is not None


class SuspiciousLines:
    """Keeps the first and the last few suspicious lines (bounded)."""

    def __init__(self) -> None:
        self.count = 0
        self._first: list[tuple[int, Evidence]] = []
        self._last: deque[tuple[int, Evidence]] = deque(maxlen=_KEEP)

    def feed(self, line: int, text: str, score: int) -> None:
        if is_benign_level(text) and "NCCL WARN" not in text:
            return
        if _EXCEPTION_LINE.search(text):
            score = max(score, 3)
        self.count += 1
        item = (score, Evidence(line, text, line_source(text)))
        if len(self._first) < _KEEP:
            self._first.append(item)
        else:
            self._last.append(item)

    def _all(self) -> list[tuple[int, Evidence]]:
        return self._first + list(self._last)

    def first_failure(self) -> Evidence | None:
        """The earliest exception/crash line, else the earliest suspicious line."""
        items = self._all()
        strong = [e for s, e in items if s >= 3]
        chosen = strong or [e for _, e in items]
        return chosen[0] if chosen else None

    def top(self) -> tuple[Evidence, ...]:
        ranked = sorted(self._all(), key=lambda item: (-item[0], item[1].line))[:_SHOW]
        return tuple(sorted((e for _, e in ranked), key=lambda e: e.line))
