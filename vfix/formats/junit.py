from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import ClassVar

from vfix.audit.engine import AuditResult
from vfix.checks import all_checks
from vfix.vocabulary import Severity


class JunitFormatter:
    """For CI: one test suite per host, one test case per check; warnings and errors fail."""

    media_type: ClassVar[str] = "application/xml"

    def render(self, result: AuditResult) -> str:
        suites = ET.Element("testsuites", name="vfix audit")
        check_ids = [check.id for check in all_checks()]
        skipped = {s.host: s.reason for s in result.skipped}
        for host in result.verdicts:
            suite = ET.SubElement(suites, "testsuite", name=host)
            failures = 0
            if host in skipped:
                case = ET.SubElement(suite, "testcase", classname=host, name="reachable")
                ET.SubElement(case, "error", message=skipped[host])
                suite.set("tests", "1")
                suite.set("errors", "1")
                suite.set("failures", "0")
                continue
            for check_id in check_ids:
                case = ET.SubElement(suite, "testcase", classname=host, name=check_id)
                for finding in result.findings_for(host):
                    if finding.check_id != check_id or finding.severity is Severity.INFO:
                        continue
                    failures += 1
                    failure = ET.SubElement(
                        case,
                        "failure",
                        message=finding.message,
                        type=f"{finding.check} {finding.severity.value}",
                    )
                    failure.text = "\n".join(
                        [f"expected: {finding.expected}", f"observed: {finding.observed}"]
                        + [f"{e.source}: {line}" for e in finding.evidence for line in e.lines]
                    )
            suite.set("tests", str(len(check_ids)))
            suite.set("failures", str(failures))
            suite.set("errors", "0")
        ET.indent(suites)
        return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
