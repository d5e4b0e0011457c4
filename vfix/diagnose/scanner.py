"""Streams a log in newline-aligned chunks and yields only the lines that contain a keyword.

Speed comes from multi-keyword (Aho-Corasick) passes per chunk in native code: `Locator`s
find which lines hold a keyword (the next chunk's search runs in a worker thread while Python
handles this one), then Python touches only those lines, and `describe` finds every keyword of
a line it has not seen before.
Memory is bounded by the chunk size whatever the log's size.
Lines are cleaned (CRLF, ANSI colour codes, control bytes, invalid UTF-8) before any regex.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from operator import itemgetter
from typing import BinaryIO

from ahocorasick_rs import BytesAhoCorasick, Implementation, MatchKind

from vfix.diagnose.tables import join_wrapped_cells

CHUNK_BYTES = 4 << 20
MAX_LINE_CHARS = 2000  # longer lines are cut to a window around the hit
TAIL_BYTES = 64 << 10  # of the input's end kept after the scan
_HEAD_BYTES = 64 << 10
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NCCL_MARK = b" NCCL "
_START = itemgetter(1)


@dataclass(frozen=True)
class Hit:
    line: int  # 1-based
    text: str
    keywords: frozenset[int]


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 27)) + b"\x7f"


def clean_line(raw: bytes) -> str:
    if b"#033[" in raw:  # rsyslog writes control bytes as #ooo: ESC [ 2 m is "#033[2m"
        raw = raw.replace(b"#033[", b"\x1b[")
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


class Keywords:
    """Tells which keywords a line holds. Folded keywords match whatever the letter case
    (nvidia-container-cli writes NVML's "Driver/library version mismatch" in lower case),
    the others only as written (failure markers such as ERROR, acronyms such as MIG, NCCL's
    own format strings: their lower case is in too many healthy lines). Ids: list positions."""

    def __init__(self, keywords: Sequence[str], folded: Sequence[bool]) -> None:
        self._folded_ids = [i for i, fold in enumerate(folded) if fold]
        self._exact_ids = [i for i, fold in enumerate(folded) if not fold]
        self._folded = (build_automaton([keywords[i].lower() for i in self._folded_ids])
                        if self._folded_ids else None)
        self._exact = (build_automaton([keywords[i] for i in self._exact_ids])
                       if self._exact_ids else None)

    def find(self, raw: bytes) -> list[tuple[int, int, int]]:
        """(keyword id, start, end) of every keyword in `raw`, overlapping ones included."""
        matches: list[tuple[int, int, int]] = []
        for automaton, ids, text in ((self._folded, self._folded_ids, raw.lower()),
                                     (self._exact, self._exact_ids, raw)):
            if automaton is not None:
                matches += [(ids[k], start, end) for k, start, end
                            in automaton.find_matches_as_indexes(text, overlapping=True)]
        return matches


class Locator:
    """Finds *which lines* hold a keyword (not every keyword in them): leftmost-first DFAs for
    the keywords matched as written and one for the folded ones, run on the lower-cased text;
    their matches are merged. The keywords matched as written go in groups of at most
    `PACKED_LIMIT`: each group's automaton then keeps its SIMD prefilter (aho-corasick's
    packed searcher holds 64 patterns; one automaton of more has none), and two groups of the
    94 failure keywords scan a serving log about 1.9x faster than one automaton of them. The
    folded ones, over a thousand, stay one DFA: groups of a few dozen keywords with SIMD
    prefilters were as fast run alone, slower run beside the Python loop (each of their calls
    takes the GIL back). Keyword ids in the matches are not meaningful: `Scanner.describe`
    tells those."""

    PACKED_LIMIT = 64
    SHORT_KEYWORD = 5  # bytes

    def __init__(self, exact: Sequence[BytesAhoCorasick],
                 folded: BytesAhoCorasick | None = None) -> None:
        self._exact, self._folded = tuple(exact), folded
        self.folded = folded is not None

    @classmethod
    def for_keywords(cls, keywords: Sequence[str], folded: Sequence[str] = ()) -> Locator:
        unique = list(dict.fromkeys(keywords))
        # Short keywords ("E0", "1 E ") go in groups of their own: beside long ones they make the
        # packed searcher check a candidate at most positions (the failure keywords scanned a
        # serving log at 490 MB/s mixed, 1600 MB/s apart).
        short = [k for k in unique if len(k) < cls.SHORT_KEYWORD]
        long = [k for k in unique if len(k) >= cls.SHORT_KEYWORD]
        groups = [part[start : start + cls.PACKED_LIMIT]
                  for part in (long, short) for start in range(0, len(part), cls.PACKED_LIMIT)]
        return cls([cls._automaton(group) for group in groups],
                   cls._automaton([k.lower() for k in folded]) if folded else None)

    @staticmethod
    def _automaton(keywords: Sequence[str]) -> BytesAhoCorasick:
        return BytesAhoCorasick(list(dict.fromkeys(k.encode() for k in keywords)),
                                implementation=Implementation.DFA,
                                matchkind=MatchKind.LeftmostFirst)

    def find(self, data: memoryview,
             lowered: memoryview | None = None) -> list[tuple[int, int, int]]:
        """(keyword, start, end) of matches, ordered by start; at least one in each line
        holding a keyword (a match never reaches past its line's newline). `lowered`: `data`
        lower-cased, for the folded keywords."""
        runs = [automaton.find_matches_as_indexes(data) for automaton in self._exact]
        if self._folded is not None:
            runs.append(self._folded.find_matches_as_indexes(data if lowered is None else lowered))
        runs = [run for run in runs if run]
        if len(runs) == 1:
            return runs[0]
        matches = [match for run in runs for match in run]
        matches.sort(key=_START)  # merges sorted runs: fast
        return matches

    def find_in(self, buf: bytes, start: int, end: int,
                lowered: memoryview | None) -> list[tuple[int, int, int]]:
        """`find` in buf[start:end]; `lowered`: all of `buf` lower-cased (needed when folded)."""
        return self.find(memoryview(buf)[start:end],
                         None if lowered is None else lowered[start:end])


Piece = tuple[bytes, int, int, bool]  # buffer, start, end, continued (see `Span`)
# A whole span searched by one locator: the lower-cased buffer (or None) and the matches.
Searched = tuple[memoryview | None, list[tuple[int, int, int]]]
# A piece prepared in the worker thread: the piece (its tables' wrapped messages whole), what
# the first locator found in it, and how many bytes the joining added.
Prepared = tuple[Piece, Searched, int]


def lower(buf: bytes) -> memoryview:
    """Lower-casing keeps every offset (ASCII only): ~2 ms per 4 MiB block."""
    return memoryview(buf.lower())


def prepare(locator: Locator, piece: Piece) -> Prepared:
    """A piece with the wrapped messages of its tables whole (`tables`, then a copy: how many
    bytes it grew by), and what `locator` finds in it (`search`)."""
    buf, start, end, continued = piece
    joined = join_wrapped_cells(buf, start, end)
    grown = 0
    if joined is not None:
        grown = len(joined) - (end - start)
        buf, start, end = joined, 0, len(joined)
    return (buf, start, end, continued), search(locator, buf, start, end), grown


def search(locator: Locator, buf: bytes, start: int, end: int) -> Searched:
    """What `Span.matches` finds for `locator` in buf[start:end], computed apart from a Span
    (the scanner runs it ahead, in another thread)."""
    lowered = lower(buf) if locator.folded else None
    return lowered, locator.find_in(buf, start, end, lowered)


class Span:
    """Whole lines buf[start:end], the first being line base_line + 1 (`continued`: the end of
    a line cut because it was absurdly long). `matches(n)`: where locator n finds keywords,
    (keyword, start, end) relative to `start`, ordered by start; searched on first use (a
    caller that only wants the first or last few lines has them searched in stretches)."""

    WINDOW = 64 << 10  # the first stretch searched for a few lines, doubled as needed

    def __init__(self, buf: bytes, start: int, end: int, base_line: int, continued: bool,
                 locators: Sequence[Locator], newlines: int | None = None,
                 searched: Searched | None = None) -> None:
        """`searched`: what `search` found for the first locator, when it ran ahead."""
        self.buf, self.start, self.end = buf, start, end
        self.base_line, self.continued = base_line, continued
        self._locators = tuple(locators)
        self._matches: list[list[tuple[int, int, int]] | None] = [None] * len(self._locators)
        self._lowered: memoryview | None = None
        if searched is not None:
            self._lowered, self._matches[0] = searched
        self._newlines = newlines
        self._counted, self._line = start, base_line
        self._top, self._top_line = start, base_line  # the furthest offset counted to

    def matches(self, locator: int) -> list[tuple[int, int, int]]:
        found = self._matches[locator]
        if found is None:
            found = self._matches[locator] = self._find(locator, self.start, self.end)
        return found

    def _find(self, locator: int, start: int, end: int) -> list[tuple[int, int, int]]:
        """Matches of a locator in buf[start:end] (whole lines), relative to `start`."""
        finder = self._locators[locator]
        if finder.folded and self._lowered is None:
            self._lowered = lower(self.buf)
        return finder.find_in(self.buf, start, end, self._lowered if finder.folded else None)

    @property
    def newlines(self) -> int:
        """How many newlines the span holds; counted once, from where `line_at` got to."""
        if self._newlines is None:
            self._newlines = (self._top_line - self.base_line
                              + self.buf.count(b"\n", self._top, self.end))
        return self._newlines

    def line_at(self, offset: int) -> int:
        """The line number at a byte offset; cheap when offsets come in increasing order."""
        if offset >= self._top:
            self._top_line += self.buf.count(b"\n", self._top, offset)
            self._top = offset
            self._line = self._top_line
        elif offset >= self._counted:
            self._line += self.buf.count(b"\n", self._counted, offset)
        elif offset - self.start < self._counted - offset:
            self._line = self.base_line + self.buf.count(b"\n", self.start, offset)
        else:  # count back: nearer than the start
            self._line -= self.buf.count(b"\n", offset, self._counted)
        self._counted = offset
        return self._line + 1

    def hit_lines(self, locator: int = 0, after: int = -1,
                  few: bool = False) -> Iterator[tuple[int, int, bytes]]:
        """(start offset, end offset, raw bytes) of each line holding a keyword of the locator
        and starting after offset `after` (`line_at` numbers them). Raw lines let a caller
        judge a line repeated many times (a traceback printed by every rank and retry) once:
        they are a cache key. `few`: the caller likely stops early, search in growing
        stretches."""
        buf, start, end = self.buf, self.start, self.end
        rfind, find = buf.rfind, buf.find
        line_end = -1
        windows = (self._windows_from_start(locator) if few
                   else ((start, self.matches(locator)),))
        for window, matches in windows:
            # Matches never reach past their line's newline ("Error\n" ends on it), so those
            # of one line are consecutive: the first locates the line, the others are skipped.
            for _, hit, _ in matches:
                hit += window
                if hit < line_end:
                    continue
                line_start = rfind(b"\n", start, hit) + 1 or start
                line_end = find(b"\n", hit, end)
                if line_end < 0:
                    line_end = end
                if line_start > after:
                    yield line_start, line_end, buf[line_start:line_end]

    def last_hit_lines(self, locator: int, count: int,
                       after: int = -1) -> list[tuple[int, int, bytes]]:
        """(line number, end offset, raw bytes) of the last `count` lines that `hit_lines`
        would give, found from the end of the span."""
        buf, start, end = self.buf, self.start, self.end
        found: list[tuple[int, int]] = []
        line_start = end + 1
        for window, matches in self._windows_from_end(locator):
            for _, hit, _ in reversed(matches):
                hit += window
                if hit >= line_start:
                    continue
                line_start = buf.rfind(b"\n", start, hit) + 1 or start
                if line_start <= after or len(found) == count:
                    break
                line_end = buf.find(b"\n", hit, end)
                found.append((line_start, end if line_end < 0 else line_end))
            else:
                if window > after:
                    continue
            break
        # Numbered from the end of the span: only the tail is counted.
        lines = []
        line_no, counted_to = self.base_line + self.newlines, end
        for line_start, line_end in found:
            line_no -= buf.count(b"\n", line_start, counted_to)
            counted_to = line_start
            lines.append((line_no + 1, line_end, buf[line_start:line_end]))
        lines.reverse()
        return lines

    def _windows_from_start(self, locator: int) -> Iterator[tuple[int, list[tuple[int, int, int]]]]:
        """Like `_windows_from_end`, from the start of the span forwards."""
        if self._matches[locator] is not None:
            yield self.start, self.matches(locator)
            return
        window, size = self.start, self.WINDOW
        while window < self.end:
            window_end = self.end
            if window + size < self.end:
                window_end = self.buf.find(b"\n", window + size, self.end) + 1 or self.end
            yield window, self._find(locator, window, window_end)
            window, size = window_end, size * 2

    def _windows_from_end(self, locator: int) -> Iterator[tuple[int, list[tuple[int, int, int]]]]:
        """(window start, its matches relative to it) for stretches of whole lines, from the
        end of the span backwards; one stretch, the span, when its matches are known. A
        stretch starts after a newline and no keyword holds one, so it has a match in the
        same lines as the whole span."""
        if self._matches[locator] is not None:
            yield self.start, self.matches(locator)
            return
        window_end, size = self.end, self.WINDOW
        while window_end > self.start:
            window = max(self.start, window_end - size)
            window = self.buf.rfind(b"\n", self.start, window) + 1 or self.start
            yield window, self._find(locator, window, window_end)
            window_end, size = window, size * 2


class Scanner:
    """One scan of one input. After iterating `scan`: `lines`, `bytes`, `binary`, `last_nccl`,
    `tail` (the input's last TAIL_BYTES, for what only its end tells).

    Binary input (judged on its first 64 KiB) stops the scan at once.
    """

    def __init__(self, keywords: Keywords, locators: Sequence[Locator]) -> None:
        """`keywords` finds every keyword of a line (`describe`); `locators` find the lines
        that hold keywords of theirs (`Span.matches`)."""
        self._keywords = keywords
        self._locators = tuple(locators)
        self.lines = 0
        self.bytes = 0
        self.head = b""
        self.last_nccl: tuple[int, str] | None = None
        self.tail = b""
        self.binary = False
        self._ended_with_newline = True

    def scan(self, stream: BinaryIO) -> Iterator[Hit]:
        """Each line that holds a keyword, cleaned, with the keywords it holds."""
        for span in self.spans(stream):
            for begin, _, raw in span.hit_lines():
                text, keywords = self.describe(raw)
                yield Hit(span.line_at(begin), text, keywords)

    def spans(self, stream: BinaryIO) -> Iterator[Span]:
        """The input in spans of whole lines, each with where its keywords are.

        The first locator searches the next spans in a worker thread while the caller handles
        this one: the native search releases the GIL, so a second core shortens the wait on a
        log dense with keywords. At most three spans (each with its lower-cased copy) are held
        at a time: memory stays bounded (about 25 MiB)."""
        with ThreadPoolExecutor(max_workers=1) as pool:
            pieces = self._text_pieces(stream)
            for prepared in self._searched_ahead(pieces, pool):
                (buf, start, end, continued), searched, grown = prepared
                span = Span(buf, start, end, self.lines, continued, self._locators,
                            searched=searched)
                yield span
                self._note_last_nccl(span)
                self.tail = (self.tail + buf[max(start, end - TAIL_BYTES):end])[-TAIL_BYTES:]
                self.lines += span.newlines
                self.bytes += end - start - grown  # the input's bytes
        if self.bytes and not self._ended_with_newline:
            self.lines += 1

    def describe(self, raw: bytes) -> tuple[str, frozenset[int]]:
        """The cleaned text of a raw line (a window around the first hit if it is very long)
        and the keywords in it."""
        matches = self._keywords.find(raw)
        matches.sort(key=_START)
        keywords: set[int] = set()
        for keyword, _, _ in matches:
            keywords.add(keyword)
        first_hit = matches[0][1] if matches else 0
        return self._text(raw, 0, len(raw), first_hit), frozenset(keywords)

    def _text_pieces(self, stream: BinaryIO) -> Iterator[Piece]:
        """`_spans`, stopped after the first piece when the input is binary (judged on its
        head), before any search of it is started."""
        for buf, start, end, continued in self._spans(stream):
            if not self.head:
                self.head = buf[start : start + _HEAD_BYTES]
                self.binary = looks_binary(self.head)
                if self.binary:
                    self.bytes = end - start
                    return
            yield buf, start, end, continued

    def _searched_ahead(self, pieces: Iterator[Piece], pool: ThreadPoolExecutor
                        ) -> Iterator[Prepared]:
        """Each piece prepared (`prepare`), the next two started in `pool` before this one is
        handed over (a block gives a large piece and the small one of the line it shares with
        the next block: two keep the worker busy)."""
        ahead: deque[Future[Prepared]] = deque()
        for piece in pieces:
            ahead.append(pool.submit(prepare, self._locators[0], piece))
            if len(ahead) > 2:
                yield ahead.popleft().result()
        for preparing in ahead:
            yield preparing.result()

    def _spans(self, stream: BinaryIO) -> Iterator[Piece]:
        """(buffer, start, end, continued) spans of whole lines, without copying the blocks
        read; `continued`: the span starts inside a line cut for being absurdly long."""
        carry = b""
        mid_line = False
        while block := stream.read(CHUNK_BYTES):
            begin = 0
            if carry:  # finish the line that straddles two blocks
                newline = block.find(b"\n")
                if newline < 0:
                    carry += block
                    if len(carry) >= 4 * CHUNK_BYTES:  # absurdly long line: cut it, stay bounded
                        yield carry, 0, len(carry), mid_line
                        carry, mid_line = b"", True
                    continue
                carry += block[: newline + 1]
                yield carry, 0, len(carry), mid_line
                carry, mid_line = b"", False
                begin = newline + 1
            cut = block.rfind(b"\n", begin)
            if cut < 0:
                carry = block[begin:]
                continue
            yield block, begin, cut + 1, mid_line
            carry, mid_line = block[cut + 1 :], False
        if carry:
            self._ended_with_newline = False
            yield carry, 0, len(carry), mid_line

    @staticmethod
    def _text(chunk: bytes, start: int, end: int, hit: int) -> str:
        if end - start > MAX_LINE_CHARS:
            start = max(start, hit - MAX_LINE_CHARS // 2)
            end = min(end, start + MAX_LINE_CHARS)
        return clean_line(chunk[start:end])

    def _note_last_nccl(self, span: Span) -> None:
        buf, start, end = span.buf, span.start, span.end
        at = buf.rfind(_NCCL_MARK, start, end)
        if at < 0:
            return
        line_start = buf.rfind(b"\n", start, at) + 1 or start
        line_end = buf.find(b"\n", at, end)
        line_end = end if line_end < 0 else line_end
        self.last_nccl = (span.line_at(line_start), self._text(buf, line_start, line_end, at))
