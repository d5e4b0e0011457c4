"""Read, validate and resolve audit policies.

A policy file has the shape of `default.yaml` (the shipped default, each value with its
reason): `checks: {<check-id>: {enabled, severity, reason, <param>: <matcher or value>}}` and
`groups: {<inventory group>: {checks: {...}}}`. A user policy is merged over the default; a
bare value over a default matcher keeps the default's operator (`nofile: {soft: 1048576}`
stays a `ge`). Per host, the values of its inventory groups (policy `groups:` then the host's
`vfix_policy` group var, and `vfix_gpu_count`) are merged last.

Every problem in a policy file is a `VfixError` naming the file, the line and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from vfix.errors import VfixError
from vfix.facts.model import HostFacts
from vfix.policy.matchers import OPERATORS, Matcher, matcher_from
from vfix.vocabulary import Severity

RESERVED = ("enabled", "severity", "reason")
DEFAULT_POLICY_NAME = "default.yaml"


@dataclass(frozen=True)
class CheckSettings:
    """One check's resolved policy for one host."""

    enabled: bool = True
    severity: Severity | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    _matchers: dict[tuple[str, str], Matcher] = field(
        default_factory=dict, compare=False, repr=False
    )

    def matcher(self, name: str, default_op: str = "eq") -> Matcher:
        key = (name, default_op)
        if key not in self._matchers:  # settings are shared by every host of a group: cache
            self._matchers[key] = matcher_from(self.params.get(name), default_op)
        return self._matchers[key]

    def value(self, name: str, default: Any = None) -> Any:
        """The plain value of a parameter, whatever matcher wraps it."""
        entry = self.params.get(name, default)
        if _is_matcher(entry):
            return next(v for k, v in entry.items() if k != "reason")
        return entry

    def table(self, name: str) -> dict[str, Matcher]:
        """A parameter that maps names to matchers (e.g. sysctl keys)."""
        entry = self.params.get(name) or {}
        return {key: self.matcher_of(f"{name}.{key}", item) for key, item in entry.items()}

    def matcher_of(self, key: str, entry: Any) -> Matcher:
        if (key, "table") not in self._matchers:
            self._matchers[(key, "table")] = matcher_from(entry)
        return self._matchers[(key, "table")]


@dataclass(frozen=True)
class Policy:
    checks: Mapping[str, Mapping[str, Any]]
    groups: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    source: str = DEFAULT_POLICY_NAME
    _resolved: dict[str, dict[str, CheckSettings]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def for_host(self, facts: HostFacts) -> dict[str, CheckSettings]:
        """Every check's settings for this host, its groups' values merged in (cached)."""
        overrides: list[Mapping[str, Any]] = [
            self.groups[group] for group in facts.group_names if group in self.groups
        ]
        host_policy = facts.group_vars.get("vfix_policy")
        if host_policy:
            overrides.append(_validated_group_vars(facts.host, host_policy))
        gpu_count = facts.group_vars.get("vfix_gpu_count")
        if gpu_count is not None:
            overrides.append({"gpu-count": {"count": gpu_count}})
        key = json.dumps(overrides, sort_keys=True, default=str)
        if key not in self._resolved:
            merged = {cid: dict(entry) for cid, entry in self.checks.items()}
            for override in overrides:
                for cid, entry in override.items():
                    merged[cid] = merge_check(merged.get(cid, {}), entry)
            self._resolved[key] = {cid: _settings(entry) for cid, entry in merged.items()}
        return self._resolved[key]


def _settings(entry: Mapping[str, Any]) -> CheckSettings:
    severity = entry.get("severity")
    return CheckSettings(
        enabled=bool(entry.get("enabled", True)),
        severity=Severity(severity) if severity else None,
        params={k: v for k, v in entry.items() if k not in RESERVED},
    )


def _is_matcher(entry: Any) -> bool:
    return isinstance(entry, dict) and any(key in OPERATORS for key in entry)


def merge_param(base: Any, override: Any) -> Any:
    if _is_matcher(override):
        return override
    if isinstance(override, dict) and isinstance(base, dict) and not _is_matcher(base):
        merged = dict(base)
        for key, item in override.items():
            merged[key] = merge_param(base.get(key), item)
        return merged
    if _is_matcher(base):
        op = next(k for k in base if k != "reason")
        return {op: override, **({"reason": base["reason"]} if "reason" in base else {})}
    return override


def merge_check(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, item in override.items():
        merged[key] = item if key in RESERVED else merge_param(base.get(key), item)
    return merged


# --- loading ----------------------------------------------------------------------------------


@cache
def schema() -> dict[str, Any]:
    text = resources.files("vfix.policy").joinpath("schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _default_document() -> tuple[str, dict[str, Any]]:
    text = resources.files("vfix.policy").joinpath(DEFAULT_POLICY_NAME).read_text(encoding="utf-8")
    return text, _parse(text, DEFAULT_POLICY_NAME, known=None)


def default_policy() -> Policy:
    _, document = _default_document()
    return Policy(checks=document.get("checks", {}), source=DEFAULT_POLICY_NAME)


def known_params() -> dict[str, set[str]]:
    """Check id -> the parameter names the default policy declares for it."""
    _, document = _default_document()
    return {cid: set(entry) - set(RESERVED) for cid, entry in document.get("checks", {}).items()}


def load_policy(path: Path | None) -> Policy:
    """The default policy, with the file at `path` (if any) merged over it."""
    base = default_policy()
    if path is None:
        return base
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise VfixError(f"{path}: cannot read policy: {error}") from error
    document = _parse(text, str(path), known=known_params())
    checks = {cid: dict(entry) for cid, entry in base.checks.items()}
    for cid, entry in (document.get("checks") or {}).items():
        checks[cid] = merge_check(checks.get(cid, {}), entry)
    groups = {
        name: dict(group.get("checks") or {})
        for name, group in (document.get("groups") or {}).items()
    }
    return Policy(checks=checks, groups=groups, source=str(path))


def _parse(text: str, name: str, known: dict[str, set[str]] | None) -> dict[str, Any]:
    try:
        document = yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise VfixError(f"{name}{line}: invalid YAML: {problem}") from error
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise VfixError(f"{name}:1: a policy is a mapping with 'checks' and 'groups'")
    invalid = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema()).iter_errors(document)
    )
    if invalid is not None:
        path = list(invalid.absolute_path)
        raise VfixError(f"{name}:{_line_of(root, path)}: {_describe(path, invalid)}")
    if known is not None:
        _check_names(document, root, name, known)
    return document


def _check_names(
    document: dict[str, Any], root: yaml.Node | None, name: str, known: dict[str, set[str]]
) -> None:
    defaults = default_policy().checks
    sections: list[tuple[list[Any], dict[str, Any]]] = [(["checks"], document.get("checks") or {})]
    for group, entry in (document.get("groups") or {}).items():
        sections.append((["groups", group, "checks"], entry.get("checks") or {}))
    for prefix, checks in sections:
        for cid, entry in checks.items():
            if cid not in known:
                raise VfixError(f"{name}:{_line_of(root, [*prefix, cid])}: unknown check {cid!r}")
            for param in set(entry) - set(RESERVED) - known[cid]:
                where = _line_of(root, [*prefix, cid, param])
                allowed = ", ".join(sorted(known[cid])) or "none"
                raise VfixError(
                    f"{name}:{where}: check {cid!r} has no parameter {param!r} (known: {allowed})"
                )
            for param in set(entry) - set(RESERVED):
                problem = _value_problem(defaults[cid][param], entry[param])
                if problem:
                    where = _line_of(root, [*prefix, cid, param])
                    raise VfixError(f"{name}:{where}: {cid}.{param}: {problem}")


def _value_problem(default: Any, value: Any) -> str | None:
    """Why `value` cannot stand in for the default parameter `default`, or None."""
    try:
        if _is_matcher(default) or not isinstance(default, dict):
            if isinstance(value, dict) and not _is_matcher(value):
                return f"expected a value or a matcher with one of {', '.join(OPERATORS)}"
            if _is_matcher(default):
                matcher_from(merge_param(default, value))
            return None
        if not isinstance(value, dict) or _is_matcher(value):
            return "expected a table of names to values or matchers"
        for item in value.values():
            matcher_from(item)
    except ValueError as error:
        return str(error)
    return None


def _validated_group_vars(host: str, value: Any) -> dict[str, Any]:
    document = {"groups": {"_": value}}
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema()).iter_errors(document)
    )
    if error is not None:
        path = ".".join(str(p) for p in list(error.absolute_path)[2:])
        raise VfixError(
            f"host {host}: invalid vfix_policy group var at {path or 'top'}: {error.message}"
        )
    checks: dict[str, Any] = value.get("checks") or {}
    known, defaults = known_params(), default_policy().checks
    for cid, entry in checks.items():
        if cid not in known:
            raise VfixError(f"host {host}: vfix_policy names unknown check {cid!r}")
        for param in set(entry) - set(RESERVED):
            problem = (
                f"no parameter {param!r}"
                if param not in known[cid]
                else _value_problem(defaults[cid][param], entry[param])
            )
            if problem:
                raise VfixError(f"host {host}: vfix_policy {cid}.{param}: {problem}")
    return checks


def _describe(path: list[Any], error: jsonschema.ValidationError) -> str:
    where = ".".join(str(part) for part in path) or "top level"
    if error.validator in ("anyOf", "oneOf"):
        return (
            f"{where}: expected a value or a matcher with exactly one of "
            f"{', '.join(OPERATORS)} (and an optional reason)"
        )
    return f"{where}: {error.message}"


def _line_of(root: yaml.Node | None, path: list[Any]) -> int:
    """1-based line of the YAML node at `path` (the deepest one found)."""
    node = root
    line = 1 if root is None else root.start_mark.line + 1
    for part in path:
        if isinstance(node, yaml.MappingNode):
            found = None
            for key, value in node.value:
                if key.value == str(part):
                    found = value
                    line = key.start_mark.line + 1
                    break
            node = found
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
        if node is None:
            break
    return line
