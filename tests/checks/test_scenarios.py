"""Every check against its passing and failing scenario, and the meta-test that both exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from vfix.audit.engine import audit
from vfix.checks import all_checks
from vfix.policy import default_policy, load_policy
from vfix.policy.loader import known_params

from .scenarios import SCENARIOS, load_scenario

CHECK_IDS = [check.id for check in all_checks()]
DOC_SECTIONS = ("## What goes wrong", "## What good looks like", "## How vfix fixes it")


def run_scenario(path: Path, check_id: str, tmp_path: Path):
    scenario = load_scenario(path)
    policy = default_policy()
    if scenario.policy_text is not None:
        policy_file = tmp_path / "policy.yaml"
        policy_file.write_text(scenario.policy_text)
        policy = load_policy(policy_file)
    result = audit(scenario.fleet, policy)
    return scenario, [f for f in result.findings if f.check_id == check_id]


@pytest.mark.parametrize("check_id", CHECK_IDS)
@pytest.mark.parametrize("outcome", ["pass", "fail"])
def test_check_scenario(check_id: str, outcome: str, tmp_path: Path) -> None:
    scenario, findings = run_scenario(SCENARIOS / check_id / f"{outcome}.yaml", check_id, tmp_path)
    assert len(findings) == scenario.expected, [f.message for f in findings]
    if scenario.subs is not None:
        assert sorted(f.sub_id or "" for f in findings) == sorted(scenario.subs)
    for finding in findings:
        assert finding.evidence, f"{finding.check} cites no evidence"
        assert finding.remediation.role != "manual" or finding.remediation.manual
    if outcome == "fail":
        assert scenario.expected > 0, "a failing scenario must expect findings"


def test_every_check_is_complete() -> None:
    """id, layer, severity, description, doc with its three sections, default policy, fixtures."""
    policy_ids = set(known_params())
    seen: set[str] = set()
    for check in all_checks():
        assert check.id not in seen, f"duplicate check id {check.id}"
        seen.add(check.id)
        assert check.description(), f"{check.id} has no docstring"
        module_name = Path(type(check).__module__.replace(".", "/")).name
        assert module_name == check.id.replace("-", "_"), f"{check.id} lives in {module_name}.py"
        doc = check.doc_path()
        assert doc.is_file(), f"{check.id} has no {doc.name}"
        text = doc.read_text()
        for section in DOC_SECTIONS:
            assert section in text, f"{doc.name} lacks '{section}'"
        assert check.id in policy_ids, f"{check.id} missing from the default policy"
        for outcome in ("pass", "fail"):
            assert (SCENARIOS / check.id / f"{outcome}.yaml").is_file(), f"{check.id}: no {outcome}"
    assert seen == policy_ids, f"default policy names unknown checks: {policy_ids - seen}"
    assert {p.name for p in SCENARIOS.iterdir()} == seen


def test_checks_come_in_triage_order() -> None:
    ranks = [check.layer.triage_rank for check in all_checks()]
    assert ranks == sorted(ranks)
