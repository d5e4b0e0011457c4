"""Facts fixtures for the audit tests (real captures in tests/data/facts/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.checks.scenarios import base_document, deep_merge
from vfix.facts.model import HostFacts

DATA = Path(__file__).resolve().parent.parent / "data" / "facts"


def h200(host: str = "h200-vm", groups: list[str] | None = None,
         patch: dict[str, Any] | None = None) -> HostFacts:
    document = deep_merge(base_document("h200-1gpu"), patch or {})
    document["host"] = host
    document["group_names"] = groups if groups is not None else ["h200"]
    return HostFacts.model_validate(document)


def cpu_only() -> HostFacts:
    return HostFacts.model_validate(base_document("cpu-only"))
