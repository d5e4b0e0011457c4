"""Messages that a two-column text table (dcgmi diag's, dcgmi health's) wrapped over its rows.

DCGM prints its results in a table whose right column is about 46 characters wide and wraps a
longer message over the rows below, mid-word:

    | Warning: GPU6             | API call cuMemcpyHtoD failed for GPU 6: 'uncor |
    |                           | rectable ECC error encountered' Check DCGM and |
    |                           |  system logs for errors. Reset GPU. Restart DC |

No row holds the message the CUDA error or the health check printed, so no signature could
match it. `join_wrapped_cells` writes the whole message into the first row of each such group
(the rows below stay as they were, so every line keeps its number). A cell was wrapped when its
text fills it (no padding before the border) and the next row's left cell is empty; a padded
cell ends the message ("| GPU0: Pass |" rows below a short result are not part of it).
"""

from __future__ import annotations

import re

from ahocorasick_rs import BytesAhoCorasick

# A row whose right cell is full, then rows whose left cell is empty.
_WRAPPED = re.compile(rb"(?m)^(\|[^|\n]*\| )([^|\n]*[^ |\n]) (\|[ \t]*\r?\n)"
                      rb"((?:\|[ \t]+\| [^|\n]*\|[ \t]*\r?\n)+)")
# A row that starts with an empty cell. Looked for first with an automaton, which releases the
# GIL (the scanner prepares the next pieces in a worker thread): most inputs have none.
_EMPTY_FIRST_CELL = BytesAhoCorasick([b"\n|  "])
_CONTINUATION = re.compile(rb"\|[ \t]+\| ([^|\n]*?) ( *)\|")  # its text, then padding


def join_wrapped_cells(data: bytes, start: int, end: int) -> bytes | None:
    """`data[start:end]` with each wrapped message written whole into its first row; None when
    it has none (the common case, found by one search)."""
    if (not _EMPTY_FIRST_CELL.find_matches_as_indexes(memoryview(data)[start:end])
            or _WRAPPED.search(data, start, end) is None):
        return None
    return _WRAPPED.sub(_joined, data[start:end])


def _joined(group: re.Match[bytes]) -> bytes:
    first, text, border, rows = group.groups()
    message = [text]
    for row in rows.splitlines():
        cell = _CONTINUATION.match(row)
        if cell is None:
            break
        message.append(cell.group(1))
        if cell.group(2):  # padded: the message ends in this row
            break
    return first + b"".join(message) + b" " + border + rows
