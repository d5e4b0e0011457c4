"""Check scenarios: a base facts snapshot, a patch, a policy and the expected finding count.

A scenario file (tests/data/facts/checks/<check-id>/{pass,fail}.yaml) holds:
`description`, `base` (a facts file in tests/data/facts/, default h200-1gpu), either `patch`
(one host) or `hosts: [{name, patch}]` (a fleet), optional `policy` (policy file content) and
`expected` (how many findings the check under test returns), optionally `subs` (their sub-ids).
Patches deep-merge into the base: mappings merge, `{"0": {...}}` patches list item 0, other
values replace.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vfix.facts.model import HostFacts

DATA = Path(__file__).resolve().parent.parent / "data" / "facts"
SCENARIOS = DATA / "checks"


def deep_merge(base: Any, patch: Any) -> Any:
    if isinstance(base, list) and isinstance(patch, dict) and all(k.isdigit() for k in patch):
        merged_list = copy.deepcopy(base)
        for index, item in patch.items():
            merged_list[int(index)] = deep_merge(merged_list[int(index)], item)
        return merged_list
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = copy.deepcopy(base)
        for key, value in patch.items():
            merged[key] = deep_merge(base.get(key), value) if key in base else value
        return merged
    return copy.deepcopy(patch)


def base_document(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text())
    return loaded


@dataclass
class Scenario:
    path: Path
    description: str
    fleet: list[HostFacts]
    policy_text: str | None
    expected: int
    subs: list[str] | None = field(default=None)


def load_scenario(path: Path) -> Scenario:
    spec = yaml.safe_load(path.read_text())
    base = base_document(spec.get("base", "h200-1gpu"))
    hosts = spec.get("hosts") or [{"name": base["host"], "patch": spec.get("patch") or {}}]
    fleet = []
    for host in hosts:
        document = deep_merge(base, host.get("patch") or {})
        document["host"] = host["name"]
        fleet.append(HostFacts.model_validate(document))
    policy = spec.get("policy")
    return Scenario(
        path=path,
        description=spec["description"],
        fleet=fleet,
        policy_text=None if policy is None else yaml.safe_dump(policy),
        expected=int(spec["expected"]),
        subs=spec.get("subs"),
    )
