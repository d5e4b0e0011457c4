"""Host names written compactly, in the bracket notation Slurm and pdsh use: node-[0001-0003,0007].

Names that end in digits are grouped by their prefix and digit count, consecutive numbers become
ranges; every other name is kept as it is. Order: first appearance of each group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def _ranges(numbers: list[int], width: int) -> list[str]:
    spans: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        spans.append(f"{start:0{width}d}" if start == previous
                     else f"{start:0{width}d}-{previous:0{width}d}")
        if number is not None:
            start = previous = number
    return spans


def compact_hosts(hosts: Iterable[str]) -> list[str]:
    """`node-0001, node-0002, node-0003, node-0007, login` -> `node-[0001-0003,0007], login`."""
    groups: dict[tuple[str, int], set[int]] = {}
    order: list[tuple[str, int] | str] = []
    for host in dict.fromkeys(hosts):
        match = _NUMBERED.match(host)
        if not match:
            order.append(host)
            continue
        key = (match.group(1), len(match.group(2)))
        if key not in groups:
            groups[key] = set()
            order.append(key)
        groups[key].add(int(match.group(2)))
    parts: list[str] = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
            continue
        prefix, width = item
        spans = _ranges(sorted(groups[item]), width)
        parts.append(f"{prefix}{spans[0]}" if len(spans) == 1 and "-" not in spans[0]
                     else f"{prefix}[{','.join(spans)}]")
    return parts
