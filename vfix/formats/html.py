from __future__ import annotations

from typing import Any, ClassVar

from jinja2 import Environment, PackageLoader, select_autoescape

from vfix.audit.drift import groups_of, matrix, split
from vfix.audit.engine import AuditResult
from vfix.formats.base import layers_in_order, summary


def drift_tables(result: AuditResult) -> list[dict[str, Any]]:
    """Per group: hosts, and per key the values with outliers marked (keys that drift first)."""
    tables = []
    for group, members in sorted(groups_of(result.facts).items()):
        values = matrix(list(members))
        rows = []
        for key, per_host in values.items():
            if all(value is None for value in per_host.values()):
                continue
            result_split = split(key, per_host)
            outliers = result_split.outliers if result_split else {}
            rows.append(
                {
                    "key": key,
                    "drifts": bool(outliers),
                    "majority": result_split.describe_majority() if result_split else None,
                    "cells": [
                        {"value": per_host[m.host], "outlier": m.host in outliers} for m in members
                    ],
                }
            )
        rows.sort(key=lambda row: not row["drifts"])
        tables.append({"group": group, "hosts": [m.host for m in members], "rows": rows})
    return tables


class HtmlFormatter:
    """One self-contained page: summary, drift matrix, each node's findings and topology."""

    media_type: ClassVar[str] = "text/html"

    def render(self, result: AuditResult) -> str:
        environment = Environment(
            loader=PackageLoader("vfix.formats", "templates"),
            autoescape=select_autoescape(["html", "j2"]),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        template = environment.get_template("report.html.j2")
        skipped = {s.host: s.reason for s in result.skipped}
        return template.render(
            result=result,
            totals=summary(result),
            layers=layers_in_order(),
            drift=drift_tables(result),
            nodes=[
                {
                    "facts": facts,
                    "verdict": result.verdicts[facts.host],
                    "findings": result.findings_for(facts.host),
                }
                for facts in result.facts
            ],
            skipped=skipped,
        )
