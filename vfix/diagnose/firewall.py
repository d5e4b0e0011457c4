"""A peer on the rendezvous subnet that answers "No route to host": a firewall, not a wrong NIC.

A rank that cannot open a TCP connection to a peer's NCCL or Gloo socket reads as the wrong
interface (socket_ifname_wrong): the peer advertised an address on a network the nodes do not
share. But when the peer's address sits on the same /24 as the rendezvous address every rank
was given (MASTER_ADDR, --master-addr, torch's init_method=tcp://), the nodes do share that
network. EHOSTUNREACH there is a host answering with ICMP host-prohibited (iptables/nftables
REJECT, firewalld's default) or a host that is down: the rendezvous cannot be reached
(rendezvous_unreachable), and changing NCCL_SOCKET_IFNAME would not help.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from vfix.diagnose.model import Candidate, Evidence

# Lines that may name the rendezvous address; the scanner only hands over lines holding one.
KEYWORDS = ("master_addr", "master-addr", "init_method=tcp://")
_IPV4 = r"(\d{1,3}(?:\.\d{1,3}){3})"
# vLLM's "'master_addr': '10.70.3.1'" and "master_addr=10.70.3.1", torchrun's "--master-addr
# 10.73.1.1", "export MASTER_ADDR=\"10.0.0.1\"", "distributed_init_method=tcp://10.70.3.1:29501"
_RENDEZVOUS = re.compile(r"(?i)(?:master[_-]addr\W{0,4}|init_method=tcp://)" + _IPV4 + r"\b")
MAX_ADDRESSES = 16  # a log names a job's rendezvous a few times; more is another log pasted in
# The peer of a connection that failed with EHOSTUNREACH: NCCL's "connect to 10.73.1.2<49913>
# returned No route to host", Gloo's "remote=[10.70.3.1]:58779 ... SO_ERROR: No route to
# host", UCX's "dest_addr=10.0.0.2:4000) failed: No route to host"
_NO_ROUTE = re.compile(r"No route to host|errno:? ?113\b|EHOSTUNREACH")
_PEER = re.compile(r"(?:[Cc]onnect to |remote=\[|dest_addr=)" + _IPV4 + r"\b")


def rendezvous_address(text: str) -> str | None:
    found = _RENDEZVOUS.search(text)
    return found[1] if found else None


def _subnet(address: str) -> ipaddress.IPv4Network | None:
    try:
        return ipaddress.IPv4Network(f"{address}/24", strict=False)
    except ValueError:
        return None


def blocked_peer(top: Candidate, rendezvous: Iterable[str]) -> Candidate | None:
    """rendezvous_unreachable when the wrong-interface reading rests on a connection to a peer
    on the rendezvous subnet that failed with "No route to host"; None otherwise."""
    if top.root_cause != "socket_ifname_wrong":
        return None
    subnets = {subnet for address in rendezvous if (subnet := _subnet(address))}
    blocked = [(evidence, peer) for evidence in top.evidence
               if (peer := _blocked_peer(evidence, subnets))]
    if not blocked:
        return None
    peer = blocked[0][1]
    return Candidate.rule_cause(
        "peer-on-rendezvous-subnet-unreachable", "network", "rendezvous_unreachable", 0.7,
        tuple(evidence for evidence, _ in blocked),
        explanation=(f"A rank could not connect to its peer at {peer}, on the same subnet as "
                     "the rendezvous address every rank was given, and the host answered 'No "
                     "route to host': the nodes share that network, so the interface is right. "
                     "A firewall on the peer rejects the connection (iptables/nftables REJECT, "
                     "firewalld) or the peer host is down."),
        fix=("Allow TCP between the nodes on the cluster subnet (NCCL and Gloo listen on "
             "ephemeral ports, not only MASTER_PORT) in the host firewall and any security "
             "group; if the peer host is down, bring it back or replace it."),
        check=(f"From this node: ping {peer}; nc -zv {peer} <port>; on the peer: "
               "iptables -S / nft list ruleset / firewall-cmd --list-all"))


def _blocked_peer(evidence: Evidence, subnets: set[ipaddress.IPv4Network]) -> str | None:
    """The peer's address when the line is a connection to it on one of these subnets that
    failed with "No route to host"."""
    if not _NO_ROUTE.search(evidence.text):
        return None
    peer = _PEER.search(evidence.text)
    return peer[1] if peer and _subnet(peer[1]) in subnets else None
