"""`nvidia-smi topo -m` and `topo -p2p` text into a `Topology` (tabs or spaces, with or
without NIC rows, legend and ANSI underline). Parses as far as the text goes; never raises."""

from __future__ import annotations

import re

from vfix.facts.model import Topology

ANSI = re.compile(r"\x1b\[[0-9;]*m")
AFFINITY_HEADERS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
LINK = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC|OK|NS|CNS|GNS|TNS|U|NV#)$")
NIC_LEGEND = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")


def _clean(text: str) -> list[str]:
    return ANSI.sub("", text.replace("\r", "")).split("\n")


def _find_header(lines: list[str]) -> tuple[int, list[str], list[str]] | None:
    """(line index, device names, affinity columns present) of the matrix header: the first
    line that starts with GPU0-like names and holds no link value (a data row holds "X")."""
    for index, line in enumerate(lines):
        present = [name for name in AFFINITY_HEADERS if name in line]
        rest = line
        for name in present:
            rest = rest.replace(name, " ")
        names = rest.split()
        if names and re.fullmatch(r"GPU\d+", names[0]) and not any(LINK.match(n) for n in names):
            return index, names, present
    return None


def parse_topo_matrix_with_errors(text: str) -> tuple[Topology, list[str]]:
    errors: list[str] = []
    lines = _clean(text or "")
    found = _find_header(lines)
    if found is None:
        return Topology(raw=text or ""), ["no topology header (GPU0 ...) found"] if (
            text or "").strip() else []
    start, devices, present = found
    links: dict[str, dict[str, str]] = {}
    cpu: dict[str, str] = {}
    numa: dict[str, str] = {}
    for line in lines[start + 1:]:
        tokens = line.split()
        if not tokens:
            if links:
                break
            continue
        if tokens[0].rstrip(":") in ("Legend", "NIC"):
            break
        name = tokens[0]
        if name not in devices:
            errors.append(f"unexpected row {name!r} in topology matrix")
            continue
        values = tokens[1:1 + len(devices)]
        row: dict[str, str] = {}
        for column, value in zip(devices, values, strict=False):
            if not LINK.match(value):
                errors.append(f"{name}->{column}: unknown link type {value!r}")
            row[column] = value
        if len(values) < len(devices):
            errors.append(f"row {name} is truncated ({len(values)} of {len(devices)} columns)")
        links[name] = row
        extra = tokens[1 + len(devices):]
        if extra and "CPU Affinity" in present:
            cpu[name] = extra[0]
        if len(extra) > 1 and "NUMA Affinity" in present:
            numa[name] = extra[1]
    nic_names = {}
    for line in lines:
        match = NIC_LEGEND.match(line)
        if match:
            nic_names[match.group(1)] = match.group(2)
    missing = [d for d in devices if d not in links]
    if missing and links:
        errors.append("topology rows missing: " + ", ".join(missing))
    topo = Topology(devices=devices, links=links, cpu_affinity=cpu, numa_affinity=numa,
                    nic_names=nic_names, raw=text)
    return topo, errors


def parse_topo_matrix(text: str) -> Topology:
    """The link matrix of `nvidia-smi topo -m` (problems dropped; see the _with_errors form)."""
    return parse_topo_matrix_with_errors(text)[0]


def parse_p2p_matrix(text: str) -> tuple[dict[str, dict[str, str]], list[str]]:
    """`nvidia-smi topo -p2p r|w|...`: GPU x GPU status (OK, NS, CNS, GNS, TNS, U)."""
    topo, errors = parse_topo_matrix_with_errors(text)
    return dict(topo.links), errors
