"""What a log tells about its nodes and its job's set-up beside its failures, gathered line by
line for the rules weighed after the signatures: the rendezvous address the ranks were given
(`firewall`), the longest CUDA_VISIBLE_DEVICES list and the GPU UUIDs it names beside those
nvidia-smi lists (`visible_devices`), the GPUs' power limits and clocks event reasons
(`gpu_state`), the rates of the IB ports (`port_rates`), the GPU pairs without peer-to-peer
access (`p2p_status`), the processes nvidia-smi listed on the GPUs (`gpu_memory_holders`) and
the ranks nccl-tests listed (`nccl_tests_ranks`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from vfix.diagnose import (
    firewall,
    gpu_memory_holders,
    gpu_state,
    nccl_tests_ranks,
    p2p_status,
    port_rates,
    visible_devices,
)
from vfix.diagnose.model import Evidence
from vfix.diagnose.sources import line_source

# Lines that may tell a fact; the scanner only hands over lines holding one of these. Those of
# FOLDED_KEYWORDS match in any letter case.
FOLDED_KEYWORDS = (*firewall.KEYWORDS, *gpu_memory_holders.FOLDED_KEYWORDS)
KEYWORDS = (*visible_devices.KEYWORDS, *gpu_state.KEYWORDS, *port_rates.KEYWORDS,
            *p2p_status.KEYWORDS, *gpu_memory_holders.KEYWORDS, *nccl_tests_ranks.KEYWORDS)


class LineFacts(NamedTuple):
    """What one line tells; worked out once however often the line repeats."""

    rendezvous: str | None
    visible_devices: int
    gpu: gpu_state.Reading | None
    port: port_rates.Reading | None
    p2p: tuple[str, str] | None
    uuids: tuple[tuple[str, ...], str | None] | None  # named in CUDA_VISIBLE_DEVICES, listed
    gpu_memory: gpu_memory_holders.Reading | None
    nccl_tests_rank: tuple[int, int] | None


def read(text: str) -> LineFacts | None:
    facts = LineFacts(firewall.rendezvous_address(text), visible_devices.listed(text),
                      gpu_state.read(text), port_rates.read(text), p2p_status.read(text),
                      visible_devices.uuids(text), gpu_memory_holders.read(text),
                      nccl_tests_ranks.read(text))
    return facts if any(facts) else None


@dataclass(slots=True)
class NodeFacts:
    """The facts of one run, added in the order of its lines."""

    rendezvous: set[str] = field(default_factory=set)
    listed_devices: int = 0  # the devices of the longest CUDA_VISIBLE_DEVICES list (0: none)
    gpus: gpu_state.GpuState = field(default_factory=gpu_state.GpuState)
    ports: port_rates.PortRates = field(default_factory=port_rates.PortRates)
    p2p: p2p_status.P2pStatus = field(default_factory=p2p_status.P2pStatus)
    memory_holders: gpu_memory_holders.GpuMemoryHolders = field(
        default_factory=gpu_memory_holders.GpuMemoryHolders)
    uuids: visible_devices.GpuUuids = field(default_factory=visible_devices.GpuUuids)
    nccl_tests_ranks: nccl_tests_ranks.NcclTestsRanks = field(
        default_factory=nccl_tests_ranks.NcclTestsRanks)

    def add(self, line: int, text: str, facts: LineFacts) -> None:
        if facts.rendezvous and len(self.rendezvous) < firewall.MAX_ADDRESSES:
            self.rendezvous.add(facts.rendezvous)
        self.listed_devices = max(self.listed_devices, facts.visible_devices)
        if (facts.gpu is not None or facts.port is not None or facts.p2p is not None
                or facts.uuids is not None or facts.gpu_memory is not None
                or facts.nccl_tests_rank is not None):
            evidence = Evidence(line, text, line_source(text))
            if facts.gpu is not None:
                self.gpus.add(evidence, facts.gpu)
            if facts.port is not None:
                self.ports.add(evidence, facts.port)
            if facts.p2p is not None:
                self.p2p.add(evidence, facts.p2p)
            if facts.uuids is not None:
                self.uuids.add(evidence, facts.uuids)
            if facts.gpu_memory is not None:
                self.memory_holders.add(evidence, facts.gpu_memory)
            if facts.nccl_tests_rank is not None:
                self.nccl_tests_ranks.add(evidence, facts.nccl_tests_rank)
