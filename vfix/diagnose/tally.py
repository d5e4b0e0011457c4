"""Per input: which signatures matched, how often, on which lines (bounded memory).

A dense log repeats the same lines (a traceback per rank and per retry), so each distinct
line is judged once (`Verdict`: its regexes, NCCL meaning, level) and later copies only
update counters. Once a line can no longer change anything but the match counts (every
signature it feeds already holds all its evidence, its groups and its failing flag), it
becomes `settled` and costs one addition per copy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from vfix.diagnose import nccl, node_facts, shutdown, suspicious
from vfix.diagnose.model import Evidence
from vfix.diagnose.sources import line_source

MAX_EVIDENCE = 5


class Consumer(Protocol):
    signature: int
    is_context: bool
    regex: re.Pattern[str] | None


@dataclass(slots=True)
class KeywordRole:
    """What a line holding one keyword is handed to."""

    keyword: str
    folded: bool  # matched in any letter case
    consumers: list[Consumer] = field(default_factory=list)  # signature patterns to try
    # how strongly the keyword shows a failure (0: not at all, or only a candidate that
    # suspicious._judge confirms: a level letter, a keyword ending on the newline)
    suspicious_score: int = 0
    feeds_nccl: bool = False  # an NCCL line to summarise
    marks_event: bool = False  # a shutdown or start-up event
    tells_facts: bool = False  # may tell a fact of node_facts


class Plan(Protocol):
    @property
    def roles(self) -> Sequence[KeywordRole]: ...


@dataclass
class Matched:
    evidence: list[Evidence] = field(default_factory=list)
    count: int = 0
    failing: bool = False  # at least one line not logged at a benign level (INFO/WARNING)
    groups: dict[str, str] = field(default_factory=dict)
    last_line: int = 0  # exact only for signatures that `wait` (their lines never settle)


class _SignatureHit(NamedTuple):
    signature: int
    patterns: int  # how many of its patterns matched the line
    groups: dict[str, str] | None  # the first non-empty named groups of those patterns


class Verdict:
    """What one distinct line means, worked out once however often the line repeats."""

    __slots__ = ("_source", "contexts", "event", "facts", "failing", "hits", "judged", "nccl",
                 "records", "repeats", "score", "settled", "tallied", "text")

    def __init__(self, plan: Plan, text: str, keywords: frozenset[int]) -> None:
        self.text = text
        self.score = 0
        to_nccl = to_event = to_facts = False
        contexts: list[int] = []
        found: dict[int, list[re.Match[str] | None]] = {}  # signature -> its patterns' matches
        for keyword in keywords:
            role = plan.roles[keyword]
            self.score = max(self.score, role.suspicious_score)
            to_nccl = to_nccl or role.feeds_nccl
            to_event = to_event or role.marks_event
            to_facts = to_facts or role.tells_facts
            for consumer in role.consumers:
                match = consumer.regex.search(text) if consumer.regex else None
                if consumer.regex is not None and not match:
                    continue
                if consumer.is_context:
                    contexts.append(consumer.signature)
                else:
                    found.setdefault(consumer.signature, []).append(match)
        if found and suspicious.is_annotation(text):
            found = {}  # a ticket's remark about the log quotes, it does not fail
        self.contexts = tuple(dict.fromkeys(contexts))
        self.hits = tuple(_signature_hit(s, matches) for s, matches in found.items())
        self.nccl = nccl.parse(text) if to_nccl else None
        self.event = shutdown.event(text) if to_event else None
        self.facts = node_facts.read(text) if to_facts else None
        self.failing = bool(self.hits) and not suspicious.is_benign(text)
        self.tallied = bool(self.hits or self.contexts)
        self._source: tuple[str | None] | None = None
        # Once settled, another copy of the line only adds `patterns` to each record's count:
        # copies are counted in `repeats` and added by `flush`.
        self.settled = False
        self.records: tuple[tuple[Matched, int], ...] = ()
        self.repeats = 0
        self.judged = self  # the verdict worked out for this line (another time's, for a copy)

    def at_another_time(self, text: str) -> Verdict:
        """This verdict for a line that differs from this one's only in its dates and times."""
        other = Verdict.__new__(Verdict)
        for name in Verdict.__slots__:
            setattr(other, name, getattr(self, name))
        other.text, other._source = text, None
        # Unsettled, so `Tally.add` counts it: a copy is not cached, and its repeats would be
        # lost. When it settles, the verdict it copies settles.
        other.settled, other.records, other.repeats = False, (), 0
        return other

    @property
    def quoted(self) -> bool:
        """Whether the scan's hot loop may read this line's text: as a signature's evidence
        (until the line settles) or as the NCCL summary's quote."""
        return (self.tallied and not self.settled) or (
            self.nccl is not None and self.nccl[0] in nccl.QUOTED_EVENTS)

    @property
    def source(self) -> str | None:
        if self._source is None:
            self._source = (line_source(self.text),)
        return self._source[0]


def _signature_hit(signature: int, matches: list[re.Match[str] | None]) -> _SignatureHit:
    groups = (derived_groups(m) for m in matches if m)
    return _SignatureHit(signature, len(matches), next((g for g in groups if g), None))


def derived_groups(match: re.Match[str]) -> dict[str, str]:
    """Named groups, plus values computed from captured numbers (the TP sizes dividing a
    head count)."""
    derived = {k: v for k, v in match.groupdict().items() if v is not None}
    if derived.get("heads", "").isdigit():
        heads = int(derived["heads"])
        derived["heads_divisors"] = ", ".join(str(n) for n in range(1, 65) if heads % n == 0)
    return derived


class Tally:
    """Signature matches and context seen in one input."""

    def __init__(self, waiting: frozenset[int] = frozenset()) -> None:
        self.matched: dict[int, Matched] = {}
        self.context_seen: set[int] = set()
        self._waiting = waiting  # signatures whose last line matters

    def add(self, line: int, verdict: Verdict) -> None:
        """Counts one line (in order) holding a signature keyword. A line counts once per
        signature while evidence is collected, then once per matching pattern."""
        self.context_seen.update(verdict.contexts)
        for hit in verdict.hits:
            record = self.matched.setdefault(hit.signature, Matched())
            record.last_line = line
            if record.evidence and record.evidence[-1].line == line:
                continue  # a line longer than the scanner keeps whole comes in pieces
            record.failing = record.failing or verdict.failing
            if len(record.evidence) < MAX_EVIDENCE:
                record.count += 1
                record.evidence.append(Evidence(line, verdict.text, verdict.source))
            else:
                record.count += hit.patterns
            if hit.groups is not None and not record.groups:
                record.groups = hit.groups
        if self._settles(verdict):
            judged = verdict.judged  # (its records are a copy's records: they have its hits)
            judged.settled = True
            judged.records = tuple((self.matched[h.signature], h.patterns) for h in verdict.hits)

    def _settles(self, verdict: Verdict) -> bool:
        """Whether another copy of the line could change anything but the counts (each
        condition, once true, stays true)."""
        for hit in verdict.hits:
            if hit.signature in self._waiting:
                return False
            record = self.matched[hit.signature]
            if len(record.evidence) < MAX_EVIDENCE or (verdict.failing and not record.failing):
                return False
            if hit.groups is not None and not record.groups:
                return False
        return self.context_seen.issuperset(verdict.contexts)


# Dates and clock times as logs stamp their lines ("2026-12-05", "INFO 12-05 16:01:32",
# "[W1205 16:01:32.118", "2026-12-05T16:01:32.123Z"): they make every line of a real log distinct,
# and what a line means never depends on their values (no signature, level or event reads them).
# (Each alternative starts with its first digit, so the regex engine skips to digits fast.)
_CLOCK = re.compile(rb"\d(?:(?<![\d:.-]\d)(?:\d{3}-\d\d-\d\d|\d-\d\d(?= \d\d:))"
                    rb"|(?<![\d:]\d)\d?:\d\d:\d\d(?:[.,]\d{1,9})?(?![\d:])"
                    rb"|(?<=[IWEF]\d)\d{3}(?= \d\d:\d\d:\d\d))")
_CLOCK_BYTES = 64  # of a line's start where its stamp is looked for (searching all costs more)


def _timeless(raw: bytes) -> bytes:
    """The line with each date and time in its first `_CLOCK_BYTES` replaced by one "#"."""
    # (cut at a space: a stamp is never cut, nor what follows it judged wrongly)
    cut = raw.find(b" ", _CLOCK_BYTES) % (len(raw) + 1)
    return _CLOCK.sub(b"#", raw[:cut]) + raw[cut:]


class Verdicts:
    """Verdicts of raw lines, cached up to a memory budget (then the cache starts over). A line
    that differs from one judged before only in its dates and times (`_CLOCK`) takes that one's
    verdict, unjudged: a log whose lines are all distinct by their timestamps costs little more
    than one that repeats them. `of` gives such a line a copy with its own text; the scan's hot
    loop (`cached`, then `judge`) gets the verdict itself wherever it would not read the text."""

    MAX_BYTES = 16 << 20  # of cached lines
    MAX_KEY_BYTES = 64 << 10  # longer lines are judged every time

    def __init__(self, plan: Plan, describe: Callable[[bytes], tuple[str, frozenset[int]]],
                 clean: Callable[[bytes], str], max_clean: int) -> None:
        self._plan = plan
        self._describe = describe  # raw line -> (cleaned text, keyword ids)
        self._clean = clean  # raw line of at most `max_clean` bytes -> its cleaned text
        self._max_clean = max_clean
        self._cache: dict[bytes, Verdict] = {}  # raw line -> its verdict, with its own text
        self._timeless: dict[bytes, Verdict] = {}  # by the line with its times replaced
        self._bytes = 0

        self.cached = self._cache.get  # the hot path: a line seen before

    def judge(self, raw: bytes) -> Verdict:
        """The verdict for the scan's hot loop: the verdict of a line differing only in its
        times, itself, when the loop reads no text of it (see `Verdict.quoted`)."""
        if len(raw) > self._max_clean:
            return self.of(raw)
        timeless = _timeless(raw)
        same = self._timeless.get(timeless)
        if same is not None and not same.quoted:
            return same
        return self._cache.get(raw) or self._new(raw, timeless, same)

    def of(self, raw: bytes) -> Verdict:
        """The verdict of a line, with its own text."""
        verdict = self._cache.get(raw)
        if verdict is not None:
            return verdict
        if len(raw) > self.MAX_KEY_BYTES:
            return Verdict(self._plan, *self._describe(raw))
        timeless = _timeless(raw)
        same = self._timeless.get(timeless) if len(raw) <= self._max_clean else None
        return self._new(raw, timeless, same)

    def _new(self, raw: bytes, timeless: bytes, same: Verdict | None) -> Verdict:
        if same is not None:  # not cached: a line distinct by its times seldom comes again
            return same.at_another_time(self._clean(raw))
        verdict = Verdict(self._plan, *self._describe(raw))
        self._timeless[timeless] = verdict
        # the keys and the text, counted generously with their object overhead
        self._bytes += 4 * len(raw) + 4 * len(verdict.text) + 768
        if self._bytes > self.MAX_BYTES:
            self.flush()
            self._cache.clear()
            self._timeless.clear()
            self._bytes = 0
        self._cache[raw] = verdict
        return verdict

    def flush(self) -> None:
        """Adds the copies of settled lines to their records' counts."""
        for verdict in self._cache.values():
            for record, patterns in verdict.records:
                record.count += patterns * verdict.repeats
            verdict.repeats = 0
