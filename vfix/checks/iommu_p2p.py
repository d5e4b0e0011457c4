from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

PASSTHROUGH_FLAGS = (
    "iommu=pt",
    "iommu.passthrough=1",
    "intel_iommu=off",
    "amd_iommu=off",
    "iommu=off",
)
ENABLE_FLAGS = ("intel_iommu=on", "amd_iommu=on")


def effective_domain(domain: str | None, flags: list[str]) -> str | None:
    """The IOMMU default domain, inferred from the kernel command line when dmesg was unreadable."""
    if any(flag in PASSTHROUGH_FLAGS for flag in flags):
        return "Passthrough"
    if domain is not None:
        return domain
    return "Translated" if any(flag in ENABLE_FLAGS for flag in flags) else None


class IommuP2p(Check):
    """On bare metal the IOMMU passes GPU DMA through untranslated, so P2P and GPUDirect work."""

    id = "iommu-p2p"
    layer = Layer.COMMUNICATION
    severity = Severity.WARNING
    tags = ("iommu", "p2p", "bare-metal")
    remediation = Remediation(role="iommu_grub", vars={"iommu_grub_mode": "passthrough"})

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        system = subject.facts.system
        if system.virtualization.is_vm or not subject.facts.gpus:
            return  # in a VM a translated (v)IOMMU is expected and required: never flagged
        iommu = system.iommu
        domain = effective_domain(iommu.default_domain, iommu.cmdline_flags)
        matcher = subject.settings.matcher("bare_metal_domain")
        if domain is None or matcher.test(domain):
            return
        yield self.finding(
            subject,
            f"IOMMU default domain is {domain} on bare metal: GPU peer-to-peer and GPUDirect RDMA "
            "go through address translation (slow, or NCCL hangs with P2P enabled)",
            sub="translated",
            expected=matcher.describe(),
            observed=domain,
            evidence=[
                Evidence(source="dmesg", lines=iommu.dmesg_lines or ["(not readable)"]),
                Evidence(
                    source="/proc/cmdline",
                    lines=[" ".join(iommu.cmdline_flags) or "(no iommu flags)"],
                ),
            ],
        )
