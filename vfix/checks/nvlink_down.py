from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject, gpu_label
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


class NvlinkDown(Check):
    """Every NVLink a GPU reports is active (a down link halves or reroutes P2P traffic)."""

    id = "nvlink-down"
    layer = Layer.COMMUNICATION
    severity = Severity.ERROR
    tags = ("gpu", "nvlink")
    remediation = Remediation(role="gpu_recovery")

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        for gpu in subject.facts.gpus:
            if not gpu.nvlinks:
                continue  # None: NVLink not supported or not reported (PCIe-only GPU, some VMs)
            down = [link for link in gpu.nvlinks if not link.active]
            if not down:
                continue
            yield self.finding(
                subject,
                f"{gpu_label(gpu)} has {len(down)} of {len(gpu.nvlinks)} NVLinks down: "
                + ", ".join(str(link.link) for link in down),
                sub="down",
                expected=f"{len(gpu.nvlinks)} active",
                observed=f"{len(gpu.nvlinks) - len(down)} active",
                evidence=[
                    Evidence(
                        source=f"nvidia-smi nvlink -s -i {gpu.index}",
                        lines=[
                            f"Link {link.link}: {'active' if link.active else 'inactive'}"
                            + (f" {link.speed_gbps} GB/s" if link.speed_gbps else "")
                            for link in gpu.nvlinks
                        ],
                    )
                ],
                remediation=Remediation(
                    role="gpu_recovery",
                    vars={"gpu_recovery_action": "reset", "gpu_recovery_gpus": [gpu.index]},
                ),
            )
