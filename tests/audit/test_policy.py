from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from vfix.errors import VfixError
from vfix.policy import Matcher, default_policy, load_policy, parse_quantity
from vfix.policy.loader import DEFAULT_POLICY_NAME, schema

from .facts_data import h200

DEFAULT_TEXT = (Path(__file__).resolve().parents[2] / "vfix" / "policy" / DEFAULT_POLICY_NAME)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return path


def test_default_policy_matches_the_schema() -> None:
    jsonschema.validate(yaml.safe_load(DEFAULT_TEXT.read_text()), schema())


def test_every_default_value_has_a_reason() -> None:
    for check_id, entry in default_policy().checks.items():
        for param, value in entry.items():
            if param in ("enabled", "severity", "reason"):
                continue
            is_matcher = any(key in value for key in ("eq", "ne", "ge", "le", "in", "match",
                                                      "semver", "value"))
            items = [value] if is_matcher else list(value.values())
            for item in items:
                assert item.get("reason"), f"{check_id}.{param} has no reason"


def test_default_policy_names_the_harmful_folk_advice() -> None:
    text = DEFAULT_TEXT.read_text()
    for warning in ("500 MHz", "/dev/nvidia*", "inside VMs", "fuser -k"):
        assert warning in text


@pytest.mark.parametrize(
    ("op", "expected", "observed", "ok"),
    [
        ("ge", "16Gi", 17179869184, True),
        ("ge", "16Gi", 67108864, False),
        ("ge", 65536, "20000", False),
        ("le", "1T", 10, True),
        ("eq", "Disabled", "disabled", True),
        ("eq", True, "Enabled", True),
        ("eq", 1, "1", True),
        ("ne", "1", "1", False),
        ("in", ["0", "1"], "2", False),
        ("match", "ACTIVE", "4: ACTIVE", True),
        ("semver", ">=2.28,<3", "2.28.3-1", True),
        ("semver", ">=2.28.9", "2.28.3", False),
        ("semver", ">=2.11", "2.11.0+cu130", True),
        ("ge", 1, None, False),
    ],
)
def test_matchers(op: str, expected: object, observed: object, ok: bool) -> None:
    assert Matcher(op, expected).test(observed) is ok


@pytest.mark.parametrize(("op", "expected"), [("ge", "lots"), ("semver", "~~2"), ("match", "(")])
def test_invalid_matchers_are_rejected(op: str, expected: object) -> None:
    with pytest.raises(ValueError):
        Matcher(op, expected)


def test_parse_quantity() -> None:
    assert parse_quantity("64M") == 64 * 1024**2
    assert parse_quantity("16GiB") == 16 * 1024**3
    assert parse_quantity(3) == 3.0


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("checks:\n  nofil:\n    soft: 3\n", 2, "unknown check 'nofil'"),
        ("checks:\n  nofile:\n    softt: 3\n", 3, "no parameter 'softt'"),
        ("checks:\n  nofile:\n    soft: {ge: lots}\n", 3, "not a number"),
        ("checks:\n  nofile:\n    soft: {}\n", 3, "exactly one of"),
        ("checks:\n  nofile:\n    soft: {ge: 1, le: 2}\n", 3, "exactly one of"),
        ("checks:\n  nofile:\n    severity: fatal\n", 3, "'fatal' is not one of"),
        ("checks:\n  shm-size:\n    size: {gee: 1}\n", 3, "expected a value or a matcher"),
        ("checks:\n  sysctl:\n    settings: 5\n", 3, "expected a table"),
        ("checks:\n  nofile:\n    soft: [3\n", 4, "invalid YAML"),
        ("version: 2\n", 1, "version"),
        ("- a\n- b\n", 1, "a policy is a mapping"),
        ("groups:\n  h200:\n    checks:\n      gpu-count: {cout: 8}\n", 4, "no parameter 'cout'"),
    ],
)
def test_invalid_policy_names_file_line_and_reason(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(VfixError) as caught:
        load_policy(path)
    message = caught.value.reason
    assert message.startswith(f"{path}:{line}: "), message
    assert reason in message
    assert "\n" not in message


def test_unreadable_policy(tmp_path: Path) -> None:
    with pytest.raises(VfixError, match="cannot read policy"):
        load_policy(tmp_path / "absent.yaml")


def test_bare_value_keeps_the_default_operator(tmp_path: Path) -> None:
    policy = load_policy(write(tmp_path, "checks:\n  nofile:\n    soft: 1048576\n"))
    matcher = policy.for_host(h200())["nofile"].matcher("soft")
    assert (matcher.op, matcher.expected) == ("ge", 1048576)
    assert matcher.reason  # the default's reason is kept


def test_group_values_from_policy_and_inventory(tmp_path: Path) -> None:
    policy = load_policy(write(tmp_path, (
        "groups:\n  h200:\n    checks:\n      gpu-count: {count: 1}\n"
        "  big:\n    checks:\n      gpu-count: {count: 8}\n"
    )))
    assert policy.for_host(h200(groups=["h200"]))["gpu-count"].matcher("count").expected == 1
    assert policy.for_host(h200(groups=["big"]))["gpu-count"].matcher("count").expected == 8
    from_vars = h200(groups=["h200"], patch={"group_vars": {"vfix_gpu_count": 4}})
    assert policy.for_host(from_vars)["gpu-count"].matcher("count").expected == 4
    host_policy = h200(patch={"group_vars": {"vfix_policy": {"checks": {"nofile": {
        "severity": "error", "soft": 1024}}}}})
    settings = policy.for_host(host_policy)["nofile"]
    assert settings.severity is not None and settings.severity.value == "error"
    assert settings.matcher("soft").expected == 1024


@pytest.mark.parametrize(
    "vfix_policy",
    [{"checks": {"nofile": {"soft": {"ge": "x"}}}}, {"checks": {"nope": {}}}, {"other": 1}],
)
def test_invalid_inventory_policy_is_an_operational_error(vfix_policy: object) -> None:
    facts = h200(patch={"group_vars": {"vfix_policy": vfix_policy}})
    with pytest.raises(VfixError, match="host h200-vm"):
        default_policy().for_host(facts)


def test_the_example_inventory_group_vars_are_valid_policy() -> None:
    group_vars = Path(__file__).resolve().parents[2] / "inventories" / "example" / "group_vars"
    checked = 0
    for file in sorted(group_vars.glob("*.yml")):
        values = yaml.safe_load(file.read_text()) or {}
        audit_vars = {k: v for k, v in values.items() if k in ("vfix_policy", "vfix_gpu_count")}
        if not audit_vars:
            continue
        settings = default_policy().for_host(h200(patch={"group_vars": audit_vars}))
        assert settings["gpu-count"].matcher("count").expected == audit_vars["vfix_gpu_count"]
        checked += 1
    assert checked >= 2
