"""A small audited fleet for the format tests: three H200 nodes, one drifting and broken."""

from __future__ import annotations

from tests.audit.facts_data import h200
from vfix.audit.engine import AuditResult, SkippedHost, audit
from vfix.policy import default_policy


def audited_fleet() -> AuditResult:
    fleet = [
        h200("gpu-a", ["rack1"]),
        h200("gpu-b", ["rack1"]),
        h200("gpu-c", ["rack1"], {
            "versions": {"nvml_driver": "580.126.09", "kernel_module": "580.126.09"},
            "system": {"shm": {"size_bytes": 67108864}},
            "gpus": {"0": {"ecc_uncorrected_volatile": 3}},
        }),
    ]
    return audit(fleet, default_policy(), [SkippedHost("gpu-d", "unreachable: ssh timed out")])
