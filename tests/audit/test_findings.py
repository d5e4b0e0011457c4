import pytest
from pydantic import ValidationError

from vfix.findings import Evidence, Finding, Remediation, node_verdict, verdicts_by_host
from vfix.vocabulary import Layer, Severity, Verdict


def make(severity: Severity, host: str = "n1", check: str = "sysctl[mismatch]") -> Finding:
    return Finding(
        check=check, host=host, layer=Layer.RESOURCES, severity=severity,
        message="kernel.pid_max is 32768", expected=">= 4194304", observed="32768",
        evidence=[Evidence(source="/proc/sys/kernel/pid_max", lines=["32768"])],
        remediation=Remediation(role="sysctl", vars={"sysctl_values": {"kernel.pid_max": 4194304}}),
    )


def test_check_id_and_sub_id():
    finding = make(Severity.ERROR)
    assert finding.check_id == "sysctl"
    assert finding.sub_id == "mismatch"
    assert make(Severity.ERROR, check="shm-size").sub_id is None


def test_bad_check_id_is_rejected():
    with pytest.raises(ValidationError):
        make(Severity.ERROR, check="Bad Id[")


def test_finding_is_frozen():
    finding = make(Severity.ERROR)
    with pytest.raises(ValidationError):
        finding.host = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("severities", "verdict"),
    [
        ([], Verdict.PASS),
        ([Severity.INFO], Verdict.PASS),
        ([Severity.INFO, Severity.WARNING], Verdict.WARN),
        ([Severity.WARNING, Severity.ERROR], Verdict.FAIL),
    ],
)
def test_node_verdict(severities, verdict):
    assert node_verdict([make(s) for s in severities]) == verdict


def test_verdicts_by_host_includes_clean_hosts():
    verdicts = verdicts_by_host(["a", "b"], [make(Severity.WARNING, host="a")])
    assert verdicts == {"a": Verdict.WARN, "b": Verdict.PASS}


def test_manual_remediation():
    remediation = Remediation.by_hand("reboot the node")
    assert remediation.is_manual and remediation.manual == "reboot the node"
