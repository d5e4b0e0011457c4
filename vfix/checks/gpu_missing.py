from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


def short_bus_id(bus_id: str) -> str:
    """'00000000:3B:00.0' and '3b:00.0' both become '3b:00.0'."""
    return ":".join(bus_id.strip().lower().split(":")[-2:])


class GpuMissing(Check):
    """Every NVIDIA GPU that lspci sees on the PCI bus is also visible to NVML."""

    id = "gpu-missing"
    layer = Layer.VISIBILITY
    severity = Severity.ERROR
    tags = ("gpu", "pci")
    remediation = Remediation.by_hand(
        "A GPU on the bus but not in NVML has usually fallen off (dmesg: Xid 79, 'GPU has fallen "
        "off the bus') or failed to initialise: drain the node and reboot; reseat or RMA if it "
        "recurs."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        on_bus = subject.facts.system.lspci_nvidia_gpus
        if on_bus is None:
            return
        in_nvml = {short_bus_id(g.pci_bus_id) for g in subject.facts.gpus if g.pci_bus_id}
        missing = sorted(b for b in on_bus if short_bus_id(b) not in in_nvml)
        if not missing:
            return
        yield self.finding(
            subject,
            f"{len(missing)} GPU(s) on the PCI bus are missing from NVML: {', '.join(missing)}",
            sub="missing",
            expected=f"{len(on_bus)} GPU(s) in NVML",
            observed=f"{len(subject.facts.gpus)} in NVML",
            evidence=[
                Evidence(source="lspci -d 10de:", lines=list(on_bus)),
                Evidence(
                    source="NVML PCI bus ids",
                    lines=[g.pci_bus_id or "?" for g in subject.facts.gpus],
                ),
            ],
        )
