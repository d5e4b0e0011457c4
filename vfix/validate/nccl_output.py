"""Parse nccl-tests output: the plain table (old float `error` and newer `#wrong` columns) and
the `-J` JSON document. Parsing only; judging is in `vfix.validate.nccl_verdict`.

The summary line "Avg bus bandwidth" averages every size, in- and out-of-place, so small sizes
drag it down: the verdict uses the largest size instead (`NcclRun.largest`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from vfix.errors import VfixError

_HEADER_GPUS = re.compile(r"nThread\s+(\d+)\s+nGpus\s+(\d+)")
_VERSION = re.compile(r"nccl-tests version (\S+)(?: nccl-headers=(\d+) nccl-library=(\d+))?")
_RANK = re.compile(r"^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)"
                   r"\s+\[([^\]]*)\]\s+(.*\S)")
_OOB = re.compile(r"Out of bounds values\s*:\s*(\d+)\s+(\w+)")
_AVG = re.compile(r"Avg bus bandwidth\s*:\s*([\d.eE+-]+)")
_AVG_LINE = re.compile(r"#\s*Avg bus bandwidth[^\n]*")
_COLLECTIVE = re.compile(r"Collective test starting: (\S+)")
_BINARY = re.compile(r"(?:^|[/\s])(\w+_perf)\b")  # older versions print no name: the command


@dataclass(frozen=True)
class Measurement:
    time_us: float
    algbw: float  # GB/s
    busbw: float  # GB/s
    wrong: float  # #wrong elements (new) or max relative error (old `error` column)


@dataclass(frozen=True)
class SizeResult:
    size: int  # bytes
    count: int
    dtype: str
    out_of_place: Measurement
    in_place: Measurement


@dataclass(frozen=True)
class Device:
    rank: int
    host: str
    device: int
    bus_id: str
    name: str


@dataclass(frozen=True)
class NcclRun:
    """One nccl-tests run (one binary, one invocation)."""

    source: str  # file name or "<text>"
    form: str  # "plain-wrong" | "plain-error" | "json"
    collective: str | None
    ngpus_per_thread: int | None
    ranks: list[Device] = field(default_factory=list)
    results: list[SizeResult] = field(default_factory=list)
    out_of_bounds: int | None = None  # None when the summary line is missing (crashed run)
    avg_busbw: float | None = None
    tests_version: str | None = None
    nccl_version_code: int | None = None

    @property
    def world_size(self) -> int:
        return len(self.ranks) or (self.ngpus_per_thread or 0)

    @property
    def largest(self) -> SizeResult | None:
        return max(self.results, key=lambda r: r.size) if self.results else None

    @property
    def nccl_version(self) -> str | None:
        """22809 -> "2.28.9" (NCCL's code is major*10000 + minor*100 + patch since 2.9)."""
        code = self.nccl_version_code
        if code is None:
            return None
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"

    @property
    def wrong_total(self) -> float:
        return sum(r.out_of_place.wrong + r.in_place.wrong for r in self.results)


def _number(token: str) -> float:
    try:
        return float(token)
    except ValueError:
        return float("nan")  # nccl-tests prints "N/A" for skipped in-place checks


def _parse_row(tokens: list[str], has_redop: bool, has_root: bool) -> SizeResult | None:
    # size count type [redop] [root] | time algbw busbw wrong | time algbw busbw wrong
    fixed = 3 + has_redop + has_root
    if len(tokens) != fixed + 8 or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    numbers = [_number(t) for t in tokens[fixed:]]
    return SizeResult(
        size=int(tokens[0]), count=int(tokens[1]), dtype=tokens[2],
        out_of_place=Measurement(*numbers[0:4]), in_place=Measurement(*numbers[4:8]),
    )


def parse_plain(text: str, source: str = "<text>") -> NcclRun:
    """Parse the table all_*_perf prints; NCCL INFO lines and other noise are skipped."""
    collective = ngpus = version = code = None
    ranks: list[Device] = []
    results: list[SizeResult] = []
    oob = avg = None
    form = None
    has_redop = has_root = False
    for line in text.splitlines():
        stripped = line.strip()
        # Older versions never name the collective: take it from the command line shown.
        named = _COLLECTIVE.search(line) or (
            _BINARY.search(line) if form is None and collective is None else None)
        if named:
            collective = named.group(1)
        if match := _VERSION.search(line):
            version = match.group(1)
            code = int(match.group(3)) if match.group(3) else None
        if match := _HEADER_GPUS.search(line):
            ngpus = int(match.group(2))
        if match := _RANK.match(stripped):
            ranks.append(Device(int(match.group(1)), match.group(2), int(match.group(3)),
                                match.group(4), match.group(5)))
        if match := _OOB.search(line):
            oob = int(match.group(1))
        if match := _AVG.search(line):
            avg = float(match.group(1))
        if stripped.startswith("#") and "size" in stripped and "busbw" in stripped:
            columns = stripped.lstrip("#").split()
            has_redop, has_root = "redop" in columns, "root" in columns
            form = "plain-wrong" if "#wrong" in columns else "plain-error"
            continue
        if form and not stripped.startswith("#"):
            row = _parse_row(stripped.split(), has_redop, has_root)
            if row is not None:
                results.append(row)
    if form is None:
        raise VfixError(f"{source}: no nccl-tests result table found")
    return NcclRun(source=source, form=form, collective=collective, ngpus_per_thread=ngpus,
                   ranks=ranks, results=results, out_of_bounds=oob, avg_busbw=avg,
                   tests_version=version, nccl_version_code=code)


def parse_json(text: str, source: str = "<json>") -> NcclRun:
    """Parse the document `all_*_perf -J FILE` writes (nccl-tests >= 2.17)."""
    try:
        doc = json.loads(text)
        config = doc.get("config", {})
        results = [
            SizeResult(
                size=int(row["size"]), count=int(row["count"]), dtype=str(row["type"]),
                out_of_place=_json_measurement(row["out_of_place"]),
                in_place=_json_measurement(row["in_place"]),
            )
            for row in doc.get("results", [])
        ]
        ranks = [Device(int(d["rank"]), str(d.get("hostname", "")), int(d.get("device", 0)),
                        str(d.get("device_hex", "")), str(d.get("device_info", "")))
                 for d in config.get("devices", [])]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise VfixError(f"{source}: not an nccl-tests JSON document ({error})") from error
    args = doc.get("args") or []
    binary = Path(str(args[0])).name if args else None
    oob = (doc.get("out_of_bounds") or {}).get("count")
    avg = (doc.get("average_bus_bandwidth") or {}).get("bandwidth")
    wrong = sum(r.out_of_place.wrong + r.in_place.wrong for r in results)
    return NcclRun(
        source=source, form="json", collective=binary, ngpus_per_thread=config.get("ngpus"),
        ranks=ranks, results=results,
        out_of_bounds=int(oob) if oob is not None else int(wrong), avg_busbw=avg,
        tests_version=None, nccl_version_code=doc.get("nccl_version"),
    )


def _json_measurement(part: dict[str, object]) -> Measurement:
    def value(key: str) -> float:
        raw = part.get(key)
        return float(raw) if isinstance(raw, int | float) else float("nan")

    return Measurement(value("time"), value("alg_bw"), value("bus_bw"), value("nwrong"))


def parse_text(text: str, source: str = "<text>") -> list[NcclRun]:
    """Every run in a text: JSON, or one or more plain tables one after another."""
    if text.lstrip().startswith("{"):
        return [parse_json(text, source)]
    # A finished run ends with its "Out of bounds values" line; a trailing table without one is
    # a run that died part-way and is kept (its missing summary is itself evidence).
    runs: list[NcclRun] = []
    begin = 0
    for match in _OOB.finditer(text):
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        follower = _AVG_LINE.match(text, end + 1)
        if follower:  # the average follows the out-of-bounds line
            end = follower.end()
        runs.append(parse_plain(text[begin:end], source))
        begin = end
    rest = text[begin:]
    if "busbw" in rest:
        runs.append(parse_plain(rest, source))
    if not runs:
        raise VfixError(f"{source}: no nccl-tests result table found")
    return runs


def parse_file(path: Path) -> list[NcclRun]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise VfixError(f"cannot read {path}: {error.strerror}") from error
    return parse_text(text, str(path))
