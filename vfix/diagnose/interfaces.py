"""NCCL bootstrapping over an interface other nodes cannot reach.

NCCL picks every interface that is up, skipping only `lo` and `docker*` by default; on hosts
with containers it can choose a veth/bridge/CNI interface or an IPv6 link-local address
(fe80::, only valid on one link), and the ranks on other nodes then never connect. When such a
run fails or hangs in the communication layer, the interface choice is the first thing to fix.
"""

from __future__ import annotations

import re

from vfix.diagnose.model import Candidate, Evidence, FixStep

# Interfaces that exist only on this host: container veths, bridges, CNI/overlay devices.
_HOST_ONLY_NAME = re.compile(
    r"^(veth|docker|br-|virbr|cni|flannel|cali|lxc|tun|tap|vxlan|weave|kube|podman|cilium)")
_LINK_LOCAL = re.compile(r":fe80:|^fe80:", re.IGNORECASE)
CONFIDENCE = 0.7


def host_only(device: str) -> bool:
    """'veth7:fe80::14ad%veth7' or 'docker0:172.17.0.1' -> True; 'ens5:10.0.0.2' -> False."""
    name, _, address = device.partition(":")
    return bool(_HOST_ONLY_NAME.match(name) or _LINK_LOCAL.search(":" + address))


def interface_candidate(evidence: Evidence, devices: tuple[str, ...]) -> Candidate:
    chosen = ", ".join(devices)
    return Candidate(
        layer="communication",
        root_cause="socket_ifname_wrong",
        confidence=CONFIDENCE,
        evidence=(evidence,),
        explanation=(f"NCCL bootstraps/sends over {chosen}: a container, bridge or link-local "
                     "interface that ranks on other nodes cannot reach, so connections between "
                     "nodes fail or hang."),
        fix=(FixStep("Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to the routable cluster "
                     "interface, e.g. NCCL_SOCKET_IFNAME=ens5 or =^veth,docker,lo.", "nccl_env"),),
        check_next=("ip -br addr on every node: which interface carries the cluster network",),
        signature="nccl-host-only-interface",
        kind="cause",
        matches=1,
    )
