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

from ahocorasick_rs import BytesAhoCorasick

CHUNK_BYTES = 8 << 20
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


def clean_line(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return _CONTROL.sub("", _ANSI.sub("", text)).strip()


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


class Scanner:
    """One scan of one input. After iterating `scan`: `lines`, `bytes`, `binary`, `last_nccl`.

    Binary input (judged on its first 64 KiB) stops the scan at once.
    """

    def __init__(self, keywords: Sequence[str]) -> None:
        self._automaton = BytesAhoCorasick([k.encode() for k in keywords])
        self.lines = 0
        self.bytes = 0
        self.head = b""
        self.last_nccl: tuple[int, str] | None = None
        self.binary = False
        self._ended_with_newline = True

    def scan(self, stream: BinaryIO) -> Iterator[Hit]:
        for chunk in self._chunks(stream):
            if not self.head:
                self.head = chunk[:_HEAD_BYTES]
                self.binary = looks_binary(self.head)
                if self.binary:
                    self.bytes = len(chunk)
                    return
            yield from self._hits(chunk, self.lines)
            self._note_last_nccl(chunk, self.lines)
            self.lines += chunk.count(b"\n")
            self.bytes += len(chunk)
        if self.bytes and not self._ended_with_newline:
            self.lines += 1

    def _chunks(self, stream: BinaryIO) -> Iterator[bytes]:
        carry = b""
        while True:
            block = stream.read(CHUNK_BYTES)
            if not block:
                break
            data = carry + block if carry else block
            cut = data.rfind(b"\n")
            if cut < 0 and len(data) < CHUNK_BYTES:
                carry = data  # no newline yet: wait for more, up to one chunk
                continue
            if cut < 0:
                cut = len(data) - 1  # a line longer than a chunk is split, memory stays bounded
            carry = data[cut + 1:]
            yield data[: cut + 1]
        if carry:
            self._ended_with_newline = False
            yield carry

    def _hits(self, chunk: bytes, base_line: int) -> Iterator[Hit]:
        matches = self._automaton.find_matches_as_indexes(chunk, overlapping=True)
        if not matches:
            return
        matches.sort(key=lambda m: m[1])
        line_no = base_line
        counted_to = 0
        line_start = line_end = -1
        keywords: set[int] = set()
        first_hit = 0
        for keyword, start, _end in matches:
            if start >= line_end:
                if keywords:
                    yield Hit(line_no + 1, self._text(chunk, line_start, line_end, first_hit),
                              frozenset(keywords))
                line_start = chunk.rfind(b"\n", 0, start) + 1
                line_end = chunk.find(b"\n", start)
                if line_end < 0:
                    line_end = len(chunk)
                line_no += chunk.count(b"\n", counted_to, line_start)
                counted_to = line_start
                keywords = set()
                first_hit = start
            keywords.add(keyword)
        if keywords:
            yield Hit(line_no + 1, self._text(chunk, line_start, line_end, first_hit),
                      frozenset(keywords))

    @staticmethod
    def _text(chunk: bytes, start: int, end: int, hit: int) -> str:
        if end - start > MAX_LINE_CHARS:
            start = max(start, hit - MAX_LINE_CHARS // 2)
            end = min(end, start + MAX_LINE_CHARS)
        return clean_line(chunk[start:end])

    def _note_last_nccl(self, chunk: bytes, base_line: int) -> None:
        at = chunk.rfind(_NCCL_MARK)
        if at < 0:
            return
        start = chunk.rfind(b"\n", 0, at) + 1
        end = chunk.find(b"\n", at)
        end = len(chunk) if end < 0 else end
        line = base_line + chunk.count(b"\n", 0, start) + 1
        self.last_nccl = (line, self._text(chunk, start, end, at))
