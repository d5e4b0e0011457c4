from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.checks.nccl_env import nccl_setting
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity

SETTINGS = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")


def missing_interfaces(spec: str, names: list[str]) -> list[str]:
    """Entries of an NCCL-style interface list that match no interface.

    `eth` matches by prefix, `=eth0` exactly; a list starting with `^` excludes interfaces and
    requires none to exist.
    """
    spec = spec.strip()
    if not spec or spec.startswith("^"):
        return []
    exact = spec.startswith("=")
    entries = [e.strip() for e in spec.lstrip("=").split(",") if e.strip()]
    return [
        entry
        for entry in entries
        if not any(name == entry if exact else name.startswith(entry) for name in names)
    ]


class SocketIfname(Check):
    """Interfaces named in NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME exist on the node."""

    id = "socket-ifname"
    layer = Layer.NETWORK
    severity = Severity.ERROR
    tags = ("nccl", "gloo", "network")
    remediation = Remediation.by_hand(
        "Set NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME to the node's data-network interface "
        "(see `ip -br link`), the same prefix on every node of the group; fix it in the group's "
        "nccl_env vars when the name differs per node."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        interfaces = [i.name for i in subject.facts.system.interfaces]
        if not interfaces:
            return  # not observed
        for name in SETTINGS:
            setting = nccl_setting(subject.facts, name)
            if setting is None:
                continue
            value, where = setting
            missing = missing_interfaces(value, interfaces)
            if not missing:
                continue
            yield self.finding(
                subject,
                f"{name}={value} names interface(s) not on this node: {', '.join(missing)}",
                sub="missing",
                expected=f"interfaces matching {value}",
                observed=", ".join(interfaces),
                evidence=[
                    Evidence(source=where, lines=[f"{name}={value}"]),
                    Evidence(source="ip -br link", lines=interfaces),
                ],
            )
