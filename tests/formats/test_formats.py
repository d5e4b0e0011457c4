from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from vfix.formats import FORMATTERS, Format, render
from vfix.vocabulary import Layer

from .fleet import audited_fleet

RESULT = audited_fleet()


def test_every_format_has_a_formatter() -> None:
    assert set(FORMATTERS) == set(Format)
    for fmt in Format:
        assert render(RESULT, fmt).strip(), fmt


def test_json_report() -> None:
    document = json.loads(render(RESULT, Format.JSON))
    hosts = {h["host"]: h for h in document["hosts"]}
    assert hosts["gpu-a"]["verdict"] == "WARN"
    assert hosts["gpu-c"]["verdict"] == "FAIL"
    checks = {f["check"] for f in hosts["gpu-c"]["findings"]}
    assert {"gpu-ecc[uncorrected]", "version-drift[driver]", "config-drift[shm-size]",
            "shm-size[small]"} <= checks
    finding = next(f for f in hosts["gpu-c"]["findings"] if f["check"] == "shm-size[small]")
    assert set(finding) >= {"host", "layer", "severity", "expected", "observed", "evidence",
                            "remediation"}
    assert finding["remediation"] == {"role": "shm", "vars": {"shm_size": "16G"}, "manual": None}
    assert document["skipped"] == [{"host": "gpu-d", "reason": "unreachable: ssh timed out"}]
    assert document["summary"]["hosts_fail"] == 2


def test_table_groups_findings_by_layer_in_triage_order() -> None:
    text = render(RESULT, Format.TABLE)
    positions = [text.find(f"{layer.value} (") for layer in Layer if f"{layer.value} (" in text]
    assert positions == sorted(positions) and len(positions) >= 2
    assert "gpu-d" in text and "unreachable" in text


def test_markdown_cites_evidence_and_fix() -> None:
    text = render(RESULT, Format.MARKDOWN)
    assert "| gpu-c | FAIL |" in text
    assert "evidence from `sysctl kernel.pid_max`" in text
    assert "fix: role `sysctl`" in text


def test_junit_has_a_case_per_check_and_failures_for_findings() -> None:
    root = ET.fromstring(render(RESULT, Format.JUNIT))
    suites = {suite.get("name"): suite for suite in root}
    assert set(suites) == {"gpu-a", "gpu-b", "gpu-c", "gpu-d"}
    gpu_c = suites["gpu-c"]
    failures = gpu_c.findall("testcase/failure")
    assert int(gpu_c.get("failures", "0")) == len(failures) >= 4
    assert len(gpu_c.findall("testcase")) == int(gpu_c.get("tests", "0"))
    assert suites["gpu-d"].find("testcase/error") is not None


PROMETHEUS_LINE = re.compile(r'^[a-z_]+\{([a-z_]+="[^"\\]*(?:\\.[^"\\]*)*",?)+\} \d+$')


def test_prometheus_textfile_is_well_formed_and_unique() -> None:
    text = render(RESULT, Format.PROMETHEUS)
    samples = [line for line in text.splitlines() if not line.startswith("#")]
    assert all(PROMETHEUS_LINE.match(line) for line in samples), samples
    series = [line.rsplit(" ", 1)[0] for line in samples]
    assert len(series) == len(set(series))
    assert 'vfix_audit_verdict{host="gpu-c",verdict="FAIL"} 1' in samples
    assert 'vfix_audit_verdict{host="gpu-d",verdict="FAIL"} 1' in samples


def test_html_is_self_contained_with_drift_matrix_and_topology() -> None:
    page = render(RESULT, Format.HTML)
    assert not re.search(r'(src|href)="(https?:)?//', page), "external resource in the report"
    assert '<table class="drift" id="drift-rack1">' in page
    assert re.search(r'<td class="outlier">580\.126\.09</td>', page)
    assert page.count('<table class="topology">') == 3
    assert "Not audited: unreachable: ssh timed out" in page


def test_html_escapes_facts() -> None:
    from tests.audit.facts_data import h200
    from vfix.audit.engine import audit
    from vfix.policy import default_policy

    nasty = h200("<script>alert(1)</script>")
    page = render(audit([nasty], default_policy()), Format.HTML)
    assert "<script>alert(1)</script>" not in page


@pytest.mark.parametrize("fmt", list(Format))
def test_empty_findings_render(fmt: Format) -> None:
    from tests.audit.facts_data import h200
    from vfix.audit.engine import audit
    from vfix.policy import default_policy

    clean = h200(patch={"versions": {"nccl": []}, "system": {
        "sysctl": {"kernel.pid_max": "4194304"},
        "ulimits": {"nofile_soft": 1048576, "nofile_hard": 1048576}}})
    result = audit([clean], default_policy())
    assert result.findings == ()
    assert render(result, fmt)
