"""The table report at fleet scale: summary first, every FAIL host on a line, grouped findings
with host lists that expand back to exactly the hosts concerned."""

from __future__ import annotations

import re

from tests.audit.facts_data import h200
from vfix.audit.engine import AuditResult, SkippedHost, audit
from vfix.formats import Format, render
from vfix.formats.hostlist import compact_hosts
from vfix.formats.table import MESSAGES_SHOWN, TableFormatter
from vfix.policy import default_policy

from .fleet import audited_fleet


def expand(text: str) -> list[str]:
    """The inverse of compact_hosts, written independently: `a-[01-03,07], b` -> names."""
    names = []
    for part in re.findall(r"[^,\[\]\s]*\[[^\]]*\]|[^,\s]+", text):
        match = re.fullmatch(r"(.*)\[(.*)\]", part)
        if not match:
            names.append(part)
            continue
        for span in match.group(2).split(","):
            first, _, last = span.partition("-")
            numbers = range(int(first), int(last or first) + 1)
            names += [f"{match.group(1)}{n:0{len(first)}d}" for n in numbers]
    return names


def test_compact_hosts_ranges_padding_and_other_names() -> None:
    hosts = ["node-0001", "node-0002", "node-0003", "node-0007", "login", "gpu9", "gpu10",
             "node-0008", "10.0.0.5"]
    assert compact_hosts(hosts) == ["node-[0001-0003,0007-0008]", "login", "gpu9", "gpu10",
                                    "10.0.0.5"]
    assert compact_hosts(["a1", "a2", "a1"]) == ["a[1-2]"]
    assert compact_hosts([]) == []
    assert sorted(expand(", ".join(compact_hosts(hosts)))) == sorted(hosts)


def block(text: str, start: str) -> list[str]:
    """The lines from the one starting with `start` up to the next unindented line."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    rest = lines[first + 1:]
    end = next((i for i, line in enumerate(rest) if line and not line.startswith(" ")), len(rest))
    return [lines[first], *rest[:end]]


def test_small_fleet_summary_first_and_failing_hosts_with_reasons() -> None:
    text = render(audited_fleet(), Format.TABLE)
    first, second = text.splitlines()[:2]
    assert first.startswith("4 host(s): 0 PASS, 2 WARN, 2 FAIL (1 not reachable); policy: ")
    assert second == "13 finding(s): 1 error, 12 warning, 0 info"
    fail = block(text, "FAIL (2 host(s))")
    assert re.fullmatch(r"  gpu-c  1 error / 6 warning / 0 info: gpu-ecc\[uncorrected\]", fail[1])
    assert fail[2] == "  gpu-d  not audited: unreachable: ssh timed out"
    assert "WARN (2 host(s)): gpu-a, gpu-b" in text
    # every message of a small fleet is shown, under its (check, severity) with the host count
    ecc = block(text, "resources (")
    header = next(i for i, line in enumerate(ecc) if "gpu-ecc[uncorrected]" in line)
    assert re.search(r"error +gpu-ecc\[uncorrected\] +1 host\(s\) +fix: gpu_recovery", ecc[header])
    assert ecc[header + 1].strip() == "hosts: gpu-c"
    assert "3 uncorrected ECC error(s)" in ecc[header + 2]
    assert "\x1b[" not in text


def large_fleet(count: int) -> AuditResult:
    """`count` hosts in racks of 8; every 7th host has a small /dev/shm, every 11th an ECC
    error whose count differs per host (so messages differ), one host unreachable."""
    fleet = []
    for n in range(count):
        patch: dict = {"system": {"shm": {"size_bytes": 64 * 1024**2}}} if n % 7 == 0 else {}
        if n % 11 == 0:
            patch["gpus"] = {"0": {"ecc_uncorrected_volatile": 1 + n}}
        fleet.append(h200(f"node-{n:04d}", [f"rack-{n // 8:02d}"], patch))
    return audit(fleet, default_policy(), [SkippedHost("node-9999", "unreachable: timeout")])


def test_large_fleet_every_host_findable_and_messages_bounded() -> None:
    result = large_fleet(120)
    text = TableFormatter(width=100).render(result)
    assert all(len(line) <= 100 for line in text.splitlines())
    fail = block(text, "FAIL (")
    failing = [h for h, v in result.verdicts.items() if v.value == "FAIL"]
    assert fail[0] == f"FAIL ({len(failing)} host(s))"
    assert [line.split()[0] for line in fail[1:]] == failing
    warn = block(text, "WARN (")
    warning = [h for h, v in result.verdicts.items() if v.value == "WARN"]
    # wrapped only after commas: the stripped lines joined back are the one-line list
    assert expand("".join(line.strip() for line in warn).split(": ", 1)[1]) == warning

    # the group's host list expands to exactly its hosts
    ecc_hosts = [f"node-{n:04d}" for n in range(0, 120, 11)]
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if re.match(r"  error +gpu-ecc", line))
    assert f"{len(ecc_hosts)} host(s)" in lines[header]
    assert expand(lines[header + 1].split("hosts: ", 1)[1]) == ecc_hosts
    shown = [line for line in lines[header:] if "uncorrected ECC error(s)" in line]
    assert len(shown) == MESSAGES_SHOWN
    more = len(ecc_hosts) - MESSAGES_SHOWN
    assert f"… {more} more message(s) on {more} host(s)" in text


def test_color_only_when_asked() -> None:
    plain = TableFormatter(color=False).render(audited_fleet())
    colored = TableFormatter(color=True).render(audited_fleet())
    assert "\x1b[" not in plain
    assert "\x1b[1;31mFAIL\x1b[0m" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain
