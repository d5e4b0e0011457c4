from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

# ACS controls that redirect peer-to-peer requests up to the root complex.
P2P_BLOCKING = ("ReqRedir+", "CmpltRedir+")


class AcsEnabled(Check):
    """On bare metal with peers (GPUs or RDMA NICs), PCIe bridges do not redirect P2P (ACS)."""

    id = "acs-enabled"
    layer = Layer.COMMUNICATION
    severity = Severity.WARNING
    tags = ("pci", "p2p", "bare-metal")
    remediation = Remediation.by_hand(
        "Disable ACS redirection on the GPU/NIC bridges: in the BIOS (PCIe ACS / 'ACS control'), "
        "or at every boot with `setpci -s <bridge> ECAP_ACS+0x6.w=0000` (NVIDIA's GPUDirect "
        "guide). ACS isolates devices: keep it on hosts that pass devices to untrusted VMs."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        system = subject.facts.system
        if system.virtualization.is_vm or system.acs is None:
            return
        if len(subject.facts.gpus) < 2 and not system.ib_devices:
            return  # no peer to talk to
        blocking = [
            bridge
            for bridge in system.acs
            if any(flag in P2P_BLOCKING for flag in bridge.enabled_flags)
        ]
        if not blocking:
            return
        yield self.finding(
            subject,
            f"ACS redirects P2P on {len(blocking)} PCIe bridge(s): "
            + ", ".join(bridge.device for bridge in blocking),
            sub="enabled",
            expected="ReqRedir- CmpltRedir-",
            observed=f"{len(blocking)} bridge(s) with redirection",
            evidence=[
                Evidence(
                    source="lspci -vvv (ACSCtl)",
                    lines=[f"{b.device}: ACSCtl: {' '.join(b.enabled_flags)}" for b in blocking],
                )
            ],
        )
