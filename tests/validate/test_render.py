"""Every report format renders a validation report: verdicts, numbers, findings."""

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from vfix.formats import Format
from vfix.validate.nccl_output import parse_file
from vfix.validate.nccl_verdict import judge_nccl
from vfix.validate.render import RENDERERS, render_report

DATA = Path(__file__).resolve().parent.parent / "data" / "nccl-tests"


def report():
    gather, reduce = parse_file(DATA / "v100x12-dgx2-old-error-column.txt")
    return judge_nccl({"bad": [gather], "good": [reduce]})


def test_every_format_has_a_renderer():
    assert set(RENDERERS) == set(Format)


def test_json_and_junit_and_prometheus_carry_verdicts_and_numbers():
    rendered = {fmt: render_report(report(), fmt) for fmt in Format}
    doc = json.loads(rendered[Format.JSON])
    verdicts = {node["host"]: node["verdict"] for node in doc["nodes"]}
    assert verdicts == {"bad": "FAIL", "good": "PASS"} and doc["passed"] is False
    suite = ElementTree.fromstring(rendered[Format.JUNIT])
    assert suite.get("failures") == "1" and len(suite.findall("testcase")) == 2
    assert 'vfix_validate_verdict{kind="nccl",host="bad"} 2' in rendered[Format.PROMETHEUS]
    assert ('name="all_reduce_perf_busbw_gbps"} 123.56' in rendered[Format.PROMETHEUS])
    for fmt in (Format.TABLE, Format.MARKDOWN, Format.HTML):
        assert "FAIL" in rendered[fmt] and "nccl-tests[out-of-bounds]" in rendered[fmt]
