"""An InfiniBand port that trained below the others, read from the fabric tools' output an
operator pastes: ibstat's "Rate: 100" and ibstatus's "rate: 100 Gb/sec (4X EDR)" of a port
that is up, beside ports at 400, and ethtool's "hsn2: Speed: 100000Mb/s" of a fabric NIC (HPE
Slingshot's hsn, RoCE's rdma) beside others at 200000.

A port at a lower speed or on fewer lanes (a cable, a transceiver, a switch port) still works,
so nothing fails: every ring through it runs at its rate, and the job is slower on every node.
NCCL's own view of the same thing (its "speed=" lines) is `NcclAccumulator.slow_rail`.

Only the ports that are up count (a port down reports a nominal rate), each compared with the
ports of its own link layer: InfiniBand with InfiniBand, and Ethernet (RoCE) only when three or
more are listed and one alone runs at half the rest or less (a node's storage or front-end
ports run at their own speeds). Each port's block gives its state before its rate and its link
layer after it, so a rate waits for its link layer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from vfix.diagnose.model import Candidate, Evidence

# Lines that may hold a reading; the scanner only hands over lines holding one of these.
# (cased and spaced as the tools print them: not the "hit rate:" of every vLLM metrics line)
KEYWORDS = ("CA '", "Infiniband device '", "State: ", "state:\t", "Rate: ", "Gb/sec",
            "Link layer:", "link_layer:", "Speed: ")
SLOWER = 0.5  # a port at this share of the fastest or below trained wrong; 200 of 400 is
# NDR200 on a split cable, which a cluster does not mix with NDR on the same fabric
_MAX_PORTS = 256
_ETHERNET_PORTS = 3  # RoCE ports compared only among this many or more
_BLOCK_LINES = 10  # a port's block: its state, rate and link layer are this close

_DEVICE = re.compile(r"(?:^\s*CA|Infiniband device) '(?P<device>[\w.-]+)'")
# ibstat "State: Active" (also "mlx5_0 State: Active" from a loop); ibstatus "state: 4: ACTIVE"
# (not the physical state: "phys state: 5: LinkUp", "Physical state: LinkUp")
_STATE = re.compile(r"^\s*(?:(?!phys|Physical)[\w.-]+:?\s+)?[Ss]tate:\s+(?:\d:\s*)?"
                    r"(?P<state>[A-Za-z]+)\s*$")
# "Rate: 400" (or "mlx5_0 Rate: 400" from a loop over the devices, "gpu-p11: \t\tRate: 400" from
# pdsh), "rate: 100 Gb/sec (4X EDR)", and a loop over sysfs's rate files: "mlx5_0 100 Gb/sec (2X
# HDR)"
_RATE = re.compile(r"^\s*(?:[\w.]+-[\w.-]*:\s+)?(?:(?P<device>[a-z][a-z_]*\d+(?:_\d+)?):?\s+)?"
                   r"(?:Rate:\s+(?P<ibstat>\d+)\s*$"
                   r"|rate:\s+(?P<ibstatus>\d+) Gb/sec\b"
                   r"|(?P<sysfs>\d+) Gb/sec \(\d+X \w+\)\s*$)")
_LAYER = re.compile(r"^\s*(?:Link layer|link_layer):\s+(?P<layer>\w+)")
# ethtool's speed of a fabric NIC, named on its line ("hsn2: Speed: 100000Mb/s" from a loop over
# HPE Slingshot's hsn NICs, "rdma3 Speed: 200000Mb/s"): an Ethernet port; not a management or
# front-end NIC, which runs at a speed of its own
_ETHTOOL = re.compile(r"^\s*(?P<device>(?:hsn|rdma|ib[ps]?)\d\w*):?\s+Speed:\s+(?P<mbps>\d+)Mb/s")
# a port's state and rate on one line, from a loop that joined ibstat's lines ("mlx5_6  State:
# Active Physical state: LinkUp Rate: 100")
_ONE_LINE = re.compile(r"^\s*(?P<device>[a-z][a-z_]*\d+(?:_\d+)?):?\s+State:\s+(?P<state>\w+)\b"
                       r".*\bRate:\s+(?P<rate>\d+)\s*$")


class Port(NamedTuple):
    """A port that is up: its rate in Gb/s, its device (or ""), its line, and whether it is on
    Ethernet."""

    rate: int
    device: str
    evidence: Evidence
    on_ethernet: bool


class Reading(NamedTuple):
    """("device", name), ("state", up: "1" or ""), ("rate", Gb/s, device or ""), ("layer",
    "InfiniBand" / "Ethernet"), ("port", Gb/s, device, on Ethernet: "1" or ""): a port that is
    up, read whole from one line."""

    kind: str
    value: tuple[str, ...]


def read(text: str) -> Reading | None:
    if found := _ONE_LINE.match(text):
        up = found["state"].lower() == "active"
        return Reading("port", (found["rate"], found["device"], "")) if up else None
    if found := _DEVICE.search(text):
        return Reading("device", (found["device"],))
    if found := _STATE.match(text):
        return Reading("state", ("1" if found["state"].lower() == "active" else "",))
    if found := _RATE.match(text):
        device = found["device"] or ""
        if found["sysfs"] and not device:
            return None  # a bare rate, of no device
        return Reading("rate", (found["ibstat"] or found["ibstatus"] or found["sysfs"], device))
    if found := _LAYER.match(text):
        return Reading("layer", (found["layer"],))
    if found := _ETHTOOL.match(text):
        return Reading("port", (str(int(found["mbps"]) // 1000), found["device"], "1"))
    return None


@dataclass(slots=True)
class PortRates:
    """The rates of the ports that are up, in the order of the log's lines."""

    rates: list[Port] = field(default_factory=list)
    _device: str = ""
    _state: tuple[int, bool] = (0, True)  # the last state line's number, and whether up
    _pending: Port | None = None  # a rate waiting for its link layer

    def add(self, evidence: Evidence, reading: Reading) -> None:
        kind, value = reading
        if kind == "device":
            self._commit()
            self._device = value[0]
        elif kind == "state":
            self._commit()
            self._state = evidence.line, bool(value[0])
        elif kind == "rate":
            self._commit()
            line, up = self._state
            if up or evidence.line - line > _BLOCK_LINES:
                self._pending = Port(int(value[0]), value[1] or self._device, evidence, False)
        elif kind == "port":
            self._commit()
            if len(self.rates) < _MAX_PORTS:
                self.rates.append(Port(int(value[0]), value[1], evidence, bool(value[2])))
        elif kind == "layer" and self._pending is not None:
            if (evidence.line - self._pending.evidence.line <= _BLOCK_LINES
                    and value[0] != "InfiniBand"):
                self._pending = self._pending._replace(on_ethernet=True)
            self._commit()

    def _commit(self) -> None:
        if self._pending is not None and len(self.rates) < _MAX_PORTS:
            self.rates.append(self._pending)
        self._pending = None

    def slow_port(self) -> Candidate | None:
        """ib_hca_unusable for the slowest port that is up when it runs at half the fastest
        one's rate of its link layer or less; None otherwise."""
        self._commit()
        infiniband = [port for port in self.rates if not port.on_ethernet]
        ethernet = [port for port in self.rates if port.on_ethernet]
        return _slowest(infiniband) or (_slowest(ethernet, alone=True)
                                        if len(ethernet) >= _ETHERNET_PORTS else None)


def _slowest(ports: list[Port], alone: bool = False) -> Candidate | None:
    """ib_hca_unusable for the slowest of two or more `ports` when it runs at half the fastest
    one's rate or less (and, `alone`, no other port does)."""
    if len(ports) < 2:
        return None
    fastest = max(port.rate for port in ports)
    rate, device, evidence, _ = min(ports, key=lambda port: port.rate)
    slow = sum(port.rate <= SLOWER * fastest for port in ports)
    if rate > SLOWER * fastest or (alone and slow > 1):
        return None
    name = device or "a port"
    return Candidate.rule_cause(
        "ib-port-rate-below-peers", "communication", "ib_hca_unusable", 0.6, (evidence,),
        explanation=(f"{name} is up at {rate} Gb/s while the other ports run at {fastest} "
                     "Gb/s: it trained at a lower speed or on fewer lanes (a cable, a "
                     "transceiver, a switch port). It works, so nothing fails, but every "
                     "ring through it runs at its rate and collectives slow on every node."),
        fix=(f"Reseat or replace the cable and transceiver of {name} and check the switch "
             "port (mlxlink -d <hca> for width, speed and errors) until it trains at the "
             "rate of the others; until then leave it out with NCCL_IB_HCA or drain the "
             "node."),
        check="ibstat (Rate of every port); mlxlink -d <hca>; iblinkinfo for 'Could be'")
