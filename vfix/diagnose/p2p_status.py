"""GPUs that cannot reach each other peer to peer, read from the matrix `nvidia-smi topo -p2p r`
(or `w`) prints: a pair reading CNS (chipset not supported), GNS, TNS or NS instead of OK.

Nothing fails without P2P: NCCL and the frameworks copy through host memory instead (NCCL's
"via SHM"), and every collective inside the node slows to that rate, a few times below the
bare-metal rate a VM's passthrough or a PCIe switch's ACS takes away. The matrix for NVLink
(`-p2p n`), atomics (`a`) or the prop test (`p`) reads NS on every PCIe machine that works as
it should, so a matrix printed under one of those commands does not count. Nor does a matrix
beside a GeForce card: NVIDIA's driver gives those no P2P over PCIe, by design, and there is
nothing to fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vfix.diagnose.model import Candidate, Evidence

# Lines that may hold a reading; the scanner only hands over lines holding one of these.
KEYWORDS = ("topo -p2p", "topo --p2p", "CNS", "GNS", "TNS", "\tNS", " NS", "GeForce", "RTX ",
            "TITAN", "NCCL_P2P_DISABLE set by", "\tNV", "  NV")
_BLOCKED = frozenset(("CNS", "GNS", "TNS", "NS"))
_COMMAND = re.compile(r"topo --?p2p[= ]?(?P<capability>[rwnap])\b")
_GEFORCE = re.compile(r"\b(?:GeForce|RTX [2-5]0[5-9]0|TITAN)\b")
_DISABLED = re.compile(r"\bNCCL_P2P_DISABLE set by \w+(?: \w+)? to 1\b")
# a row of nvidia-smi topo -m with an NVLink connection ("GPU0  X  NV18  NV18 ...")
_NVLINK_ROW = re.compile(r"^\s*GPU\d+\s+(?:X\s+)?(?:\S+\s+)*?NV\d+\b")
_ROW = re.compile(r"^\s*GPU\d+(?:\s+(?:X|OK|CNS|GNS|TNS|NS|U))+\s*$")


def read(text: str) -> tuple[str, str] | None:
    """("command", the capability it asks about), ("row", the first blocked status),
    ("geforce", ""), ("disabled", "") or ("nvlink", ""), or None."""
    if found := _COMMAND.search(text):
        return "command", found["capability"]
    if _ROW.match(text) and (blocked := _BLOCKED.intersection(text.split()[1:])):
        return "row", min(blocked)
    if _GEFORCE.search(text):
        return "geforce", ""
    if _DISABLED.search(text):
        return "disabled", ""
    if _NVLINK_ROW.match(text):
        return "nvlink", ""
    return None


@dataclass(slots=True)
class P2pStatus:
    """The first matrix row of a read or write test that shows a pair without P2P, and NCCL's
    P2P turned off beside NVLink."""

    blocked: tuple[Evidence, str] | None = None
    geforce: bool = False
    disabled: Evidence | None = None  # the line of NCCL reading NCCL_P2P_DISABLE=1
    nvlink: bool = False
    _capability: str = "r"  # of the last topo -p2p command; read when none was seen

    def add(self, evidence: Evidence, reading: tuple[str, str]) -> None:
        kind, value = reading
        if kind == "command":
            self._capability = value
        elif kind == "geforce":
            self.geforce = True
        elif kind == "disabled":
            self.disabled = self.disabled or evidence
        elif kind == "nvlink":
            self.nvlink = True
        elif self.blocked is None and self._capability in "rw":
            self.blocked = evidence, value

    def unsupported(self) -> Candidate | None:
        """p2p_unsupported_or_blocked when the matrix showed a pair without P2P, on GPUs that
        have it; None otherwise."""
        if self.blocked is None or self.geforce:
            return None
        evidence, status = self.blocked
        return Candidate.rule_cause(
            "p2p-matrix-blocked", "communication", "p2p_unsupported_or_blocked", 0.6, (evidence,),
            explanation=(f"nvidia-smi topo -p2p shows GPU pairs without peer-to-peer access "
                         f"({status}): NCCL and the frameworks copy through host memory "
                         "instead, so nothing fails, but every collective inside the node runs "
                         "at a fraction of the P2P rate. In a VM the hypervisor hides the PCIe "
                         "topology; on bare metal ACS on a PCIe switch or an IOMMU setting "
                         "routes peer traffic through the root complex."),
            fix=("On bare metal, disable ACS on the PCIe switches (or set the BIOS option) and "
                 "check the IOMMU mode (iommu=pt); in a VM, ask for a flavour with GPUDirect "
                 "P2P or NVLink passthrough, or accept the host-memory rate."),
            check="nvidia-smi topo -p2p r; nvidia-smi topo -m; NCCL_DEBUG=INFO for 'via P2P'")

    def disabled_over_nvlink(self) -> Candidate | None:
        """p2p_unsupported_or_blocked when NCCL was told to leave P2P alone on GPUs joined by
        NVLink; None otherwise."""
        if self.disabled is None or not self.nvlink:
            return None
        return Candidate.rule_cause(
            "p2p-disabled-over-nvlink", "communication", "p2p_unsupported_or_blocked", 0.6,
            (self.disabled,),
            explanation=("NCCL_P2P_DISABLE=1 (from the environment or an nccl.conf: "
                         "~/.nccl.conf, /etc/nccl.conf) keeps NCCL off P2P on GPUs that NVLink "
                         "joins: collectives inside the node go through host memory (NCCL's "
                         "'via SHM') at a fraction of the NVLink rate. Nothing fails; the run is "
                         "slower, and more GPUs can be slower than fewer."),
            fix=("Remove NCCL_P2P_DISABLE from the job's environment and from ~/.nccl.conf and "
                 "/etc/nccl.conf (a workaround copied from a PCIe machine with broken P2P)."),
            check="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV: 'set by' lines and 'via P2P' "
                  "channels; cat ~/.nccl.conf /etc/nccl.conf")
