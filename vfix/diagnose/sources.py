"""Which rank or process wrote a log line, from the prefixes vLLM, Ray, torch and NCCL add."""

from __future__ import annotations

import re

_PREFIXES = (
    # vLLM / Ray: "(VllmWorker rank=1 pid=123)", "(RayWorkerWrapper pid=9, ip=10.0.0.2)",
    # "(EngineCore_DP0 pid=7)", "(Worker_TP1 pid=8)", "(APIServer pid=6)"
    re.compile(r"\((?P<name>[A-Za-z][\w-]*)(?: rank=(?P<rank>\d+))? pid=(?P<pid>\d+)"
               r"(?:, ip=(?P<ip>[\w.:-]+))?\)"),
    # torch: "[rank3]:[E ...]" or torchrun "[default3]:"
    re.compile(r"^\[(?P<name>rank|default)(?P<rank>\d+)\]:"),
    # NCCL: "host:pid:tid [cudaDev] NCCL INFO" / "host:pid:tid [cudaDev] file.cc:12 NCCL WARN"
    re.compile(r"(?:^|[\s\]>:])(?P<host>[A-Za-z][\w.-]*):(?P<pid>\d+):\d+ \[(?P<dev>\d+)\] "),
)


def line_source(text: str) -> str | None:
    """A short label for the writer of `text` ("VllmWorker rank=1 pid=123", "rank3", …)."""
    for pattern in _PREFIXES:
        found = pattern.search(text[:200])
        if not found:
            continue
        parts = found.groupdict()
        if parts.get("host"):
            return f"{parts['host']} pid={parts['pid']} gpu={parts['dev']}"
        if parts.get("name") in ("rank", "default"):
            return f"rank{parts['rank']}"
        label = str(parts["name"])
        if parts.get("rank"):
            label += f" rank={parts['rank']}"
        label += f" pid={parts['pid']}"
        if parts.get("ip"):
            label += f" ip={parts['ip']}"
        return label
    return None
