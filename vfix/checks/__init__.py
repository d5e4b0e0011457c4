"""The checks: one per file in this package, discovered automatically.

Adding a check is adding a file with one `Check` subclass (plus its `.md` doc, its default
policy entry and its pass/fail fixtures under tests/data/facts/checks/<id>/).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from vfix.checks.base import Check, Subject

__all__ = ["Check", "Subject", "all_checks"]


@cache
def all_checks() -> tuple[Check, ...]:
    """An instance of every check, in triage order of their layers, then by id."""
    found: list[type[Check]] = []
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name.startswith("_") or module_info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        found.extend(
            obj
            for obj in vars(module).values()
            if isinstance(obj, type)
            and issubclass(obj, Check)
            and obj is not Check
            and obj.__module__ == module.__name__
        )
    found.sort(key=lambda cls: (cls.layer.triage_rank, cls.id))
    return tuple(cls() for cls in found)
