from __future__ import annotations

import json
from typing import Any, ClassVar

from vfix.audit.engine import AuditResult
from vfix.formats.base import summary


def as_document(result: AuditResult) -> dict[str, Any]:
    return {
        "policy": result.policy_source,
        "summary": summary(result),
        "hosts": [
            {
                "host": host,
                "verdict": verdict.value,
                "findings": [f.model_dump(mode="json") for f in result.findings_for(host)],
            }
            for host, verdict in result.verdicts.items()
            if host not in {s.host for s in result.skipped}
        ],
        "skipped": [{"host": s.host, "reason": s.reason} for s in result.skipped],
    }


class JsonFormatter:
    """Machine-readable: per host its verdict and findings (the Finding model as JSON)."""

    media_type: ClassVar[str] = "application/json"

    def render(self, result: AuditResult) -> str:
        return json.dumps(as_document(result), indent=2) + "\n"
