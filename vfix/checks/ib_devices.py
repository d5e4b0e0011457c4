from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


class IbDevices(Check):
    """Nodes expected to use InfiniBand/RoCE have their HCAs present with active ports."""

    id = "ib-devices"
    layer = Layer.NETWORK
    severity = Severity.ERROR
    tags = ("ib", "rdma", "network")
    remediation = Remediation.by_hand(
        "Check the HCA driver (mlx5_core loaded? `ibv_devinfo`), cabling and the subnet manager "
        "(`ibstat` port state must be Active); without them NCCL falls back to TCP sockets."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        matcher = subject.settings.matcher("count", "ge")
        if matcher.expected is None or matcher.test(0):
            return  # zero devices would satisfy the policy: IB is not expected on this node
        devices = subject.facts.system.ib_devices
        lines = [
            f"{d.name} port {p.port}: {p.state} {p.link_layer or ''} {p.rate or ''}".rstrip()
            for d in devices
            for p in d.ports
        ] or ["(no device in /sys/class/infiniband)"]
        evidence = [Evidence(source="/sys/class/infiniband", lines=lines)]
        if not matcher.test(len(devices)):
            yield self.finding(
                subject,
                f"{len(devices)} IB/RoCE device(s), expected {matcher.describe()}",
                sub="missing",
                expected=matcher.describe(),
                observed=len(devices),
                evidence=evidence,
            )
        state = subject.settings.matcher("port_state", "match")
        down = [f"{d.name}/{p.port}" for d in devices for p in d.ports if not state.test(p.state)]
        if down:
            yield self.finding(
                subject,
                f"IB port(s) not active: {', '.join(down)}",
                sub="port-down",
                expected=state.describe(),
                observed=", ".join(down),
                evidence=evidence,
            )
