"""The streaming scanner: line numbers across chunk boundaries, long lines, bounded memory."""

from __future__ import annotations

import io
import random
import tracemalloc

import pytest

from vfix.diagnose import diagnose_stream, diagnose_text, scanner
from vfix.diagnose.scanner import Keywords, Locator, Scanner, clean_line, looks_binary

FAILURE = b"RuntimeError: CUDA error: invalid device ordinal"


def exact_scanner(keywords: list[str]) -> Scanner:
    """A scanner for keywords matched as written."""
    return Scanner(Keywords(keywords, [False] * len(keywords)), [Locator.for_keywords(keywords)])


def hits(data: bytes, keywords: list[str]) -> list[tuple[int, str]]:
    scan = exact_scanner(keywords)
    found = [(hit.line, hit.text) for hit in scan.scan(io.BytesIO(data))]
    return found


@pytest.mark.parametrize("chunk", [7, 16, 64, 1 << 20])
def test_line_numbers_are_exact_across_chunk_boundaries(monkeypatch: pytest.MonkeyPatch,
                                                        chunk: int) -> None:
    monkeypatch.setattr(scanner, "CHUNK_BYTES", chunk)
    data = b"".join(f"line {n} {'target' if n % 7 == 0 else 'other'}\n".encode()
                    for n in range(1, 60))
    assert [line for line, _ in hits(data, ["target"])] == list(range(7, 60, 7))


def test_last_line_without_newline_is_counted_and_seen() -> None:
    scan = exact_scanner(["ordinal"])
    found = list(scan.scan(io.BytesIO(b"a\nb\n" + FAILURE)))
    assert [h.line for h in found] == [3]
    assert scan.lines == 3


def test_a_line_longer_than_a_chunk_is_cut_not_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanner, "CHUNK_BYTES", 1024)
    data = b"x" * 2_000 + FAILURE + b"y" * 10_000 + b"\n"
    found = hits(data, ["ordinal"])
    assert len(found) == 1
    assert len(found[0][1]) <= scanner.MAX_LINE_CHARS


def test_clean_line_strips_cr_ansi_and_control_bytes() -> None:
    assert clean_line(b"\x1b[1;31mERROR\x1b[0m x\x07\r") == "ERROR x"
    assert clean_line(b"bad \xff utf8") == "bad \ufffd utf8"


def test_binary_detection() -> None:
    assert looks_binary(b"\x00\x01\x02" * 100)
    assert not looks_binary(b"plain text log line\n" * 100)
    assert not looks_binary("UTF-8 is text: \u00e9\u4e2d\n".encode() * 50)


def test_crlf_log_has_same_diagnosis_as_lf() -> None:
    lf = b"INFO a\nINFO b\n" + FAILURE + b"\n"
    crlf = lf.replace(b"\n", b"\r\n")
    assert diagnose_text(lf).candidates == diagnose_text(crlf).candidates


class RepeatingLog(io.RawIOBase):
    """A large log produced on the fly (never held in memory or on disk), failing at the end."""

    def __init__(self, size: int, tail: bytes) -> None:
        line = (b"(VllmWorker rank=0 pid=1) INFO 01-01 10:00:00 [metrics.py:1] Avg prompt "
                b"throughput: 1.0 tokens/s, Running: 1 reqs, GPU KV cache usage: 0.1%\n")
        self._block = line * ((1 << 20) // len(line))
        self._position = 0
        self._left = size - size % len(line)  # whole lines, then the tail
        self._tail = tail
        self.lines_before_tail = self._left // len(line)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        if self._left > 0:
            data = self._block[self._position : self._position + min(len(buffer), self._left)]
            self._position = (self._position + len(data)) % len(self._block)
            self._left -= len(data)
        else:
            data, self._tail = self._tail[: len(buffer)], self._tail[len(buffer) :]
        buffer[: len(data)] = data
        return len(data)


@pytest.mark.slow
def test_one_gigabyte_log_streams_in_bounded_memory() -> None:
    stream = RepeatingLog(1 << 30, FAILURE + b"\n")
    tracemalloc.start()
    result = diagnose_stream(io.BufferedReader(stream, buffer_size=1 << 20), name="big.log")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.root_cause == "cuda_visible_devices_invalid"
    assert result.candidates[0].evidence[0].line == stream.lines_before_tail + 1
    assert result.bytes > 1_070_000_000
    assert peak < 64 << 20, f"peak {peak / 2**20:.0f} MiB"


def spans_of(data: bytes, keywords: list[str], folded: int = 0) -> list[scanner.Span]:
    """Spans of a scanner with two locators of the same keywords (the first `folded` of them
    folded): locator 0 is searched ahead in the worker thread, locator 1 when asked (in
    stretches, for the first or last few lines)."""
    locator = Locator.for_keywords(keywords[folded:], keywords[:folded])
    scan = Scanner(Keywords(keywords, [False] * len(keywords)), [locator, locator])
    return list(scan.spans(io.BytesIO(data)))


def random_log(seed: int, keywords: list[str], lines: int) -> bytes:
    rng = random.Random(seed)
    words = [*keywords, "plain", "text", "ERR", "NCC", "x" * 30]
    return b"".join(" ".join(rng.choice(words) for _ in range(rng.randrange(0, 6))).encode()
                    + b"\n" for _ in range(lines))


# short ones ("E0", glog's level and a digit) go in automata of their own
KEYWORDS = [f"kw{n:02d}x" for n in range(23)] + ["ERROR", "NCCL WARN", "WARN Error", "E0", "7 C "]


@pytest.mark.parametrize("group", [64, 5])  # 5: the keywords as written in several automata
@pytest.mark.parametrize("few", [False, True])
@pytest.mark.parametrize("locator", [0, 1])
@pytest.mark.parametrize("folded", [0, 12])
def test_locator_finds_every_line_that_holds_a_keyword(monkeypatch: pytest.MonkeyPatch,
                                                       folded: int, locator: int,
                                                       few: bool, group: int) -> None:
    monkeypatch.setattr(Locator, "PACKED_LIMIT", group)
    monkeypatch.setattr(scanner, "CHUNK_BYTES", 4096)  # many spans, searched ahead in turn
    monkeypatch.setattr(scanner.Span, "WINDOW", 100)  # `few`: searched in many stretches
    data = random_log(1, KEYWORDS, 3000)
    found = [(span.line_at(begin), raw) for span in spans_of(data, KEYWORDS, folded)
             for begin, _, raw in span.hit_lines(locator, few=few)]
    expected = [(n, line) for n, line in enumerate(data.split(b"\n")[:-1], start=1)
                if any(k.encode() in line for k in KEYWORDS)]
    assert found == expected
    assert len(expected) > 1000


@pytest.mark.parametrize("window", [1, 100, 64 << 10])
@pytest.mark.parametrize("count", [1, 7, 200, 100_000])
def test_last_hit_lines_are_the_end_of_hit_lines(monkeypatch: pytest.MonkeyPatch,
                                                 count: int, window: int) -> None:
    monkeypatch.setattr(scanner.Span, "WINDOW", window)
    data = random_log(2, KEYWORDS, 2000)
    (span,) = spans_of(data, KEYWORDS)
    forward = [(span.line_at(begin), end, raw) for begin, end, raw in span.hit_lines(1)]
    after = forward[len(forward) // 2][1]  # lines after the middle one only
    (fresh,) = spans_of(data, KEYWORDS)
    for tested in (fresh, span):  # searched from the end, or from matches already found
        assert tested.last_hit_lines(1, count) == forward[-count:]
        assert tested.last_hit_lines(1, count, after) == forward[len(forward) // 2 + 1 :][-count:]


def test_describe_gives_every_keyword_of_a_line() -> None:
    scan = exact_scanner(KEYWORDS)
    text, keywords = scan.describe(b"\x1b[31mNCCL WARN Error: kw03x\x1b[0m\r")
    assert text == "NCCL WARN Error: kw03x"
    assert {KEYWORDS[k] for k in keywords} == {"NCCL WARN", "WARN Error", "kw03x"}


@pytest.mark.parametrize("chunk", [16, 1 << 20])
def test_folded_keywords_find_lines_in_any_case_exact_ones_as_written(
        monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(scanner, "CHUNK_BYTES", chunk)
    keywords = scanner.Keywords(["Version Mismatch", "MIG"], [True, False])
    locator = scanner.Locator.for_keywords(["MIG"], ["Version Mismatch"])
    data = b"ok\nnvml: version mismatch\nthis might fail\nMIG-1 busy\nVERSION MISMATCH\n"
    scan = Scanner(keywords, [locator])
    found = [(hit.line, sorted(hit.keywords)) for hit in scan.scan(io.BytesIO(data))]
    assert found == [(2, [0]), (4, [1]), (5, [0])]


def test_syslog_escaped_colours_are_cleaned() -> None:
    # rsyslog copies write ESC as "#033": "#033[2m#033[33m(raylet)#033[0m ..."
    assert clean_line(b"#033[2m#033[33m(raylet)#033[0m node_manager.cc:1: 2 Workers") == \
        "(raylet) node_manager.cc:1: 2 Workers"
    assert clean_line(b"issue #0335 stays") == "issue #0335 stays"


def test_line_at_is_exact_in_any_order() -> None:
    (span,) = spans_of(random_log(3, KEYWORDS, 500), KEYWORDS)
    offsets = [begin for begin, _, _ in span.hit_lines()]
    random.Random(5).shuffle(offsets)
    for offset in offsets:
        assert span.line_at(offset) == span.buf.count(b"\n", span.start, offset) + 1
