from __future__ import annotations

from pathlib import Path

from vfix.audit.drift import split
from vfix.audit.engine import SkippedHost, audit
from vfix.policy import default_policy, load_policy
from vfix.vocabulary import Layer, Severity, Verdict

from .facts_data import cpu_only, h200


def test_the_real_h200_capture() -> None:
    """pid_max 32768 and nofile 20000 are flagged, two NCCLs are reported, the IOMMU is not."""
    result = audit([h200()], default_policy())
    assert [(f.check, f.observed) for f in result.findings] == [
        ("nofile[soft]", "20000"),
        ("sysctl[mismatch]", "32768"),
        ("nccl-libraries[multiple]", "2.28.3, 2.28.9"),
    ]
    assert not [f for f in result.findings if f.check_id == "iommu-p2p"]
    assert result.verdicts == {"h200-vm": Verdict.WARN}
    assert result.exit_code(Severity.WARNING) == 1
    assert result.exit_code(Severity.ERROR) == 0
    pid_max = result.findings[1]
    assert pid_max.evidence[0].source == "sysctl kernel.pid_max"
    assert pid_max.evidence[0].lines == ["kernel.pid_max = 32768"]
    assert pid_max.remediation.role == "sysctl"
    assert pid_max.remediation.vars == {"sysctl_settings": {"kernel.pid_max": "4194304"}}


def test_findings_come_in_triage_order() -> None:
    broken = h200(patch={"gpus": {"0": {"compute_mode": "Prohibited"}}})
    layers = [f.layer for f in audit([broken], default_policy()).findings]
    assert layers[0] is Layer.VISIBILITY
    assert [layer.triage_rank for layer in layers] == sorted(layer.triage_rank for layer in layers)


def test_a_cpu_only_machine_gets_a_sensible_result() -> None:
    result = audit([cpu_only()], default_policy())
    checks = [f.check for f in result.findings]
    assert "gpu-count[none]" in checks
    none = next(f for f in result.findings if f.check == "gpu-count[none]")
    assert none.severity is Severity.INFO
    assert "nvidia-smi" in none.evidence[0].lines[0]
    assert all(f.layer is not Layer.COMMUNICATION for f in result.findings)
    assert "container-shm[small-default]" not in checks  # the docker CLI inside a container


def test_severity_override_and_disabled_checks(tmp_path: Path) -> None:
    policy_file = tmp_path / "p.yaml"
    policy_file.write_text(
        "checks:\n  nofile: {severity: error}\n  nccl-libraries: {enabled: false}\n"
    )
    result = audit([h200()], load_policy(policy_file))
    assert {f.check: f.severity for f in result.findings} == {
        "nofile[soft]": Severity.ERROR, "sysctl[mismatch]": Severity.WARNING,
    }
    assert result.verdicts["h200-vm"] is Verdict.FAIL


def test_majority_drift_without_any_policy() -> None:
    fleet = [h200(f"gpu-{n}", ["rack1"]) for n in "abcd"]
    fleet.append(h200("gpu-e", ["rack1"], {"versions": {"nvml_driver": "580.126.09"},
                                           "system": {"sysctl": {"kernel.pid_max": "4194304"}}}))
    result = audit(fleet, default_policy())
    drift = [f for f in result.findings if f.check_id in ("version-drift", "config-drift")]
    assert [(f.host, f.check, f.expected, f.observed) for f in drift] == [
        ("gpu-e", "config-drift[kernel-pid-max]", "32768", "4194304"),
        ("gpu-e", "version-drift[driver]", "580.159.04", "580.126.09"),
    ]
    assert "majority is 580.159.04 (4/5 hosts)" in drift[1].message
    assert drift[0].layer is Layer.RESOURCES and drift[1].layer is Layer.VERSIONS


def test_drift_is_per_group_and_reported_once_per_host() -> None:
    fleet = [
        h200("a1", ["a", "all-gpu"]), h200("a2", ["a", "all-gpu"]),
        h200("b1", ["b", "all-gpu"], {"system": {"shm": {"size_bytes": 67108864}}}),
        h200("b2", ["b", "all-gpu"], {"system": {"shm": {"size_bytes": 67108864}}}),
        h200("b3", ["b", "all-gpu"]),
    ]
    drift = [f for f in audit(fleet, default_policy()).findings
             if f.check == "config-drift[shm-size]"]
    # group b: b3 is the outlier (2 of 3 have 64 MiB); group all-gpu: b1, b2 (3 of 5 have 128 GiB)
    assert sorted(f.host for f in drift) == ["b1", "b2", "b3"]


def test_a_tie_has_no_majority_and_names_every_value() -> None:
    result = split("driver", {"x": "1", "y": "2", "z": None})
    assert result is not None and result.majority is None
    assert result.outliers == {"x": "1", "y": "2"}
    assert "no majority" in result.describe_majority()
    assert split("driver", {"x": "1", "y": "1", "z": None}) is None


def test_hosts_in_no_group_form_one_group() -> None:
    fleet = [h200("u1", []), h200("u2", []),
             h200("u3", [], {"versions": {"python": {"packages": {"torch": "2.10.0"}}}})]
    drift = [f for f in audit(fleet, default_policy()).findings if f.check_id == "version-drift"]
    assert [(f.host, f.check) for f in drift] == [("u3", "version-drift[torch]")]
    assert "group ungrouped" in drift[0].message


def test_unreachable_hosts_fail_the_audit() -> None:
    result = audit([h200()], load_policy(None), [SkippedHost("gone", "unreachable: ssh timeout")])
    assert result.verdicts["gone"] is Verdict.FAIL
    assert result.exit_code(Severity.ERROR) == 1
