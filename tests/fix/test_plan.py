"""The plan: findings -> roles + vars per host, manual steps, filters and opt-in switches."""

from __future__ import annotations

import pytest

from vfix.errors import VfixError
from vfix.facts.model import HostFacts
from vfix.findings import Finding, Remediation
from vfix.fix.plan import PlanOptions, build_plan, merge_vars, parse_ids, validate_options
from vfix.vocabulary import Layer, Severity

FACTS = [HostFacts(host="n1", collected_at="2026-12-02T00:00:00Z"),
         HostFacts(host="n2", collected_at="2026-12-02T00:00:00Z",
                   group_vars={"vfix_versions": {"versions_nccl_wheel": "nvidia-nccl-cu13",
                                                 "versions_nccl_wheel_version": "2.28.9"}})]


def finding(check, host="n1", role="manual", variables=None, manual=None, layer=Layer.RESOURCES):
    remediation = Remediation(role=role, vars=variables or {}, manual=manual)
    return Finding(check=check, host=host, layer=layer, severity=Severity.ERROR,
                   message=f"{check} on {host}", remediation=remediation)


def test_findings_become_ordered_role_steps_with_merged_vars_per_host():
    plan = build_plan([
        finding("sysctl[mismatch]", role="sysctl", variables={"sysctl_settings": {"a": "1"}}),
        finding("shm-size", role="shm", variables={"shm_size": "64G"}),
        finding("sysctl[missing]", role="sysctl", variables={"sysctl_settings": {"b": "2"}}),
        finding("stale-gpu-processes", role="gpu_processes",
                variables={"gpu_processes_terminate": True}),
    ], FACTS)
    n1 = plan.hosts["n1"]
    assert n1.roles == ["gpu_processes", "shm", "sysctl"]
    sysctl = n1.steps[2]
    assert sysctl.vars == {"sysctl_settings": {"a": "1", "b": "2"}}
    assert sysctl.fixes == ("sysctl[mismatch]", "sysctl[missing]")
    assert plan.hosts["n2"].steps == ()
    assert plan.hosts_with_steps == ["n1"]
    assert plan.extravars()["vfix_plan"]["n1"][1] == {"role": "shm", "vars": {"shm_size": "64G"}}


def test_terminate_and_reboot_follow_only_the_operator_flags():
    findings = [finding("stale-gpu-processes", role="gpu_processes",
                        variables={"gpu_processes_terminate": True}),
                finding("iommu-p2p", role="iommu_grub",
                        variables={"iommu_grub_allow_reboot": True})]
    cautious = build_plan(findings, FACTS).hosts["n1"]
    assert cautious.steps[0].vars["gpu_processes_terminate"] is False
    assert cautious.steps[1].vars["iommu_grub_allow_reboot"] is False
    bold = build_plan(findings, FACTS, PlanOptions(allow_reboot=True, terminate_stale=True))
    assert bold.hosts["n1"].steps[0].vars["gpu_processes_terminate"] is True
    assert bold.hosts["n1"].steps[1].vars["iommu_grub_allow_reboot"] is True


def test_manual_findings_are_listed_and_version_findings_use_the_inventory_matrix():
    findings = [finding("nccl-libraries[multiple]", host=h, manual="Align NCCL by hand.",
                        layer=Layer.VERSIONS) for h in ("n1", "n2")]
    plan = build_plan(findings, FACTS)
    assert plan.hosts["n1"].steps == ()
    assert plan.hosts["n1"].manual[0].steps == "Align NCCL by hand."
    [step] = plan.hosts["n2"].steps
    assert step.role == "versions"
    assert step.vars["versions_nccl_wheel_version"] == "2.28.9"
    assert step.vars["versions_allow_reboot"] is False


def test_only_and_tags_filter_findings_and_roles():
    findings = [finding("shm-size", role="shm"), finding("nofile[soft]", role="limits"),
                finding("sysctl[mismatch]", role="sysctl")]
    only = build_plan(findings, FACTS, PlanOptions(only=parse_ids("nofile, sysctl[mismatch]")))
    assert only.hosts["n1"].roles == ["sysctl", "limits"]
    tagged = build_plan(findings, FACTS, PlanOptions(roles=frozenset({"shm"})))
    assert tagged.hosts["n1"].roles == ["shm"]


def test_unknown_check_ids_and_roles_are_refused_with_one_line():
    validate_options(PlanOptions(only=frozenset({"shm-size[x]"})), ["shm-size"])
    with pytest.raises(VfixError, match="unknown check id"):
        validate_options(PlanOptions(only=frozenset({"shm-sise"})), ["shm-size"])
    with pytest.raises(VfixError, match="unknown role"):
        validate_options(PlanOptions(roles=frozenset({"shmm"})), ["shm-size"])


def test_merge_vars_joins_lists_without_repeats_and_merges_maps():
    assert merge_vars({"g": [0], "m": {"a": 1}, "s": 1}, {"g": [0, 1], "m": {"b": 2}, "s": 2}) \
        == {"g": [0, 1], "m": {"a": 1, "b": 2}, "s": 2}
