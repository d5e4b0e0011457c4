"""Streams a log in newline-aligned chunks and yields only the lines that contain a keyword.

Speed comes from one multi-keyword (Aho-Corasick) pass per chunk in native code; Python only
touches the few lines that hit. Memory is bounded by the chunk size whatever the log's size.
Lines are cleaned (CRLF, ANSI colour codes, control bytes, invalid UTF-8) before any regex.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from ahocorasick_rs import BytesAhoCorasick, Implementation

CHUNK_BYTES = 8 << 20
BATCH_LINES = 4096  # hit lines handed over at once (bounds memory when every line hits)
MAX_LINE_CHARS = 2000  # longer lines are cut to a window around the hit
_HEAD_BYTES = 64 << 10
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NCCL_MARK = b" NCCL "


@dataclass(frozen=True)
class Hit:
    line: int  # 1-based
    text: str
    keywords: frozenset[int]


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 27)) + b"\x7f"


def clean_line(raw: bytes) -> str:
    if b"\x1b" in raw:
        text = _ANSI.sub("", raw.decode("utf-8", "replace"))
        return _CONTROL.sub("", text).strip()
    return raw.translate(None, _CONTROL_BYTES).decode("utf-8", "replace").strip()


def looks_binary(head: bytes) -> bool:
    """True when the start of the input is not text (NUL bytes or mostly control bytes)."""
    if not head:
        return False
    sample = head[:_HEAD_BYTES]
    if sample.count(0) > len(sample) // 100:
        return True
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 13, 27))
    undecodable = sample.decode("utf-8", "replace").count("\ufffd")
    return (control + undecodable) > len(sample) // 10


def build_automaton(keywords: Sequence[str]) -> BytesAhoCorasick:
    """The multi-keyword matcher; build once and share (it is immutable).

    A DFA: a few MB for a few hundred keywords, about twice as fast to scan as the NFAs.
    """
    return BytesAhoCorasick([k.encode() for k in keywords], implementation=Implementation.DFA)


class Scanner:
    """One scan of one input. After iterating `scan`: `lines`, `bytes`, `binary`, `last_nccl`.

    Binary input (judged on its first 64 KiB) stops the scan at once.
    """

    def __init__(self, automaton: BytesAhoCorasick) -> None:
        self._automaton = automaton
        self.lines = 0
        self.bytes = 0
        self.head = b""
        self.last_nccl: tuple[int, str] | None = None
        self.binary = False
        self._ended_with_newline = True

    def scan(self, stream: BinaryIO) -> Iterator[Hit]:
        """Each line that holds a keyword, cleaned, with the keywords it holds."""
        for batch in self.scan_raw(stream):
            for line, raw in batch:
                text, keywords = self.describe(raw)
                yield Hit(line, text, keywords)

    def scan_raw(self, stream: BinaryIO) -> Iterator[list[tuple[int, bytes]]]:
        """Batches of (line number, raw bytes) of the lines that hold a keyword, in order;
        `describe` tells the rest.

        Raw lines let a caller judge a line repeated many times (a traceback printed by every
        rank, every retry) once: its bytes are a cache key. Batches save a Python call per line.
        """
        for buf, start, end in self._spans(stream):
            if not self.head:
                self.head = buf[start : start + _HEAD_BYTES]
                self.binary = looks_binary(self.head)
                if self.binary:
                    self.bytes = end - start
                    return
            yield from self._hit_lines(buf, start, end, self.lines)
            self._note_last_nccl(buf, start, end, self.lines)
            self.lines += buf.count(b"\n", start, end)
            self.bytes += end - start
        if self.bytes and not self._ended_with_newline:
            self.lines += 1

    def describe(self, raw: bytes) -> tuple[str, frozenset[int]]:
        """The cleaned text of a raw line (a window around the first hit if it is very long)
        and the keywords in it."""
        matches = self._automaton.find_matches_as_indexes(raw, overlapping=True)
        matches.sort(key=lambda m: m[1])
        keywords: set[int] = set()
        for keyword, _, _ in matches:
            keywords.add(keyword)
        first_hit = matches[0][1] if matches else 0
        return self._text(raw, 0, len(raw), first_hit), frozenset(keywords)

    def _spans(self, stream: BinaryIO) -> Iterator[tuple[bytes, int, int]]:
        """(buffer, start, end) spans of whole lines, without copying the blocks read."""
        carry = b""
        while block := stream.read(CHUNK_BYTES):
            begin = 0
            if carry:  # finish the line that straddles two blocks
                newline = block.find(b"\n")
                if newline < 0:
                    carry += block
                    if len(carry) >= 4 * CHUNK_BYTES:  # absurdly long line: cut it, stay bounded
                        yield carry, 0, len(carry)
                        carry = b""
                    continue
                carry += block[: newline + 1]
                yield carry, 0, len(carry)
                carry = b""
                begin = newline + 1
            cut = block.rfind(b"\n", begin)
            if cut < 0:
                carry = block[begin:]
                continue
            yield block, begin, cut + 1
            carry = block[cut + 1 :]
        if carry:
            self._ended_with_newline = False
            yield carry, 0, len(carry)

    def _hit_lines(self, buf: bytes, start: int, end: int,
                   base_line: int) -> Iterator[list[tuple[int, bytes]]]:
        matches = self._automaton.find_matches_as_indexes(memoryview(buf)[start:end],
                                                          overlapping=True)
        # Matches come ordered by where they end and never span a newline, so the matches of
        # one line are consecutive: the first one found locates the line, the others are skipped.
        line_no = base_line
        counted_to = start
        line_end = -1
        rfind, find, count = buf.rfind, buf.find, buf.count
        batch: list[tuple[int, bytes]] = []
        for _, hit, _ in matches:
            hit += start
            if hit < line_end:
                continue
            line_start = rfind(b"\n", start, hit) + 1 or start
            line_end = find(b"\n", hit, end)
            if line_end < 0:
                line_end = end
            line_no += count(b"\n", counted_to, line_start)
            counted_to = line_start
            batch.append((line_no + 1, buf[line_start:line_end]))
            if len(batch) == BATCH_LINES:
                yield batch
                batch = []
        if batch:
            yield batch

    @staticmethod
    def _text(chunk: bytes, start: int, end: int, hit: int) -> str:
        if end - start > MAX_LINE_CHARS:
            start = max(start, hit - MAX_LINE_CHARS // 2)
            end = min(end, start + MAX_LINE_CHARS)
        return clean_line(chunk[start:end])

    def _note_last_nccl(self, buf: bytes, start: int, end: int, base_line: int) -> None:
        at = buf.rfind(_NCCL_MARK, start, end)
        if at < 0:
            return
        line_start = buf.rfind(b"\n", start, at) + 1 or start
        line_end = buf.find(b"\n", at, end)
        line_end = end if line_end < 0 else line_end
        line = base_line + buf.count(b"\n", start, line_start) + 1
        self.last_nccl = (line, self._text(buf, line_start, line_end, at))
