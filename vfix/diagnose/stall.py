"""A log with NCCL_DEBUG=INFO output that simply stops, with no error: a hang.

The classic cause on PCIe machines is GPU peer-to-peer traffic that never arrives (PCIe ACS
redirecting P2P through the root complex, an IOMMU in translation mode, a virtualised host):
NCCL sets up its P2P/SHM channels and the first collective waits forever. Nothing is logged,
so the log ends during bootstrap, right after "Init COMPLETE", or at a 0% progress bar.
A run that finished says so ("Destroy COMPLETE", a nccl-tests "Avg bus bandwidth", teardown's
"Connection closed by localRank"), a healthy server keeps logging long after NCCL's setup
lines, and a log that goes on after every rank's "Init COMPLETE" without a progress bar stuck
at 0% was cut short, not stuck; none is reported. A hang during bootstrap, before any rank is
set up, cannot be P2P yet: a network NCCL gave up on there (no IB device, no libibverbs) is
reported first (engine.py). A communicator of one rank has no peer to wait for.
"""

from __future__ import annotations

from vfix.diagnose.model import Candidate, Evidence, FixStep, NcclSummary

# The log must end this close to its last NCCL line to count as stopping there (a progress bar
# or an engine banner may follow the last NCCL line of a stalled run).
TAIL_LINES = 5
CONFIDENCE = 0.35
ALTERNATIVE_CONFIDENCE = 0.3
# A P2P path that does not work fails the first collectives over it (a DDP broadcast, the
# first all-reduce); one that timed out later had been working.
EARLY_COLLECTIVES = 10


def during_bootstrap(summary: NcclSummary) -> bool:
    """Whether no rank reached Init COMPLETE: no transport between GPUs was in use yet."""
    return not summary.ranks_completed


def stall_candidates(summary: NcclSummary | None, destroyed: bool, total_lines: int,
                     waiting_line: int = 0, alone: bool = False) -> tuple[Candidate, ...]:
    """Communication candidates when the NCCL output stops at the end of the log: P2P
    blocked, then its usual platform cause (ACS/IOMMU) as the alternative. `waiting_line`:
    the last line of a progress bar stuck at 0% (0: none); `alone`: the log is one process
    whose communicators have one rank."""
    if summary is None or summary.last_line is None or destroyed:
        return ()
    if not (summary.ranks_started or summary.ranks_completed or summary.interfaces
            or summary.transports):
        return ()  # a version banner alone: NCCL's setup was never logged, nothing to wait in
    if alone:
        return ()  # one rank alone: no peer to wait for, its log was cut short
    last = summary.last_line.line
    if total_lines - last >= TAIL_LINES:
        return ()
    ready = bool(summary.ranks_completed) and summary.ranks_completed >= summary.ranks_started
    if ready and total_lines > last and waiting_line <= last:
        # Every communicator is ready and the program went on logging (model loading, a
        # results table): a log cut short, unless the work after it sits at 0%.
        return ()
    if ready:
        where = (f"after Init COMPLETE ({summary.ranks_completed} rank(s) ready): the first "
                 "collective never finished (P2P/SHM traffic between GPUs does not arrive)")
    elif summary.ranks_completed:
        where = (f"with {summary.ranks_completed} of {summary.ranks_started} ranks past Init "
                 "COMPLETE: the others wait in communicator setup")
    else:
        where = "during bootstrap, before any rank reached Init COMPLETE"
    return _p2p_blocked(f"The log stops {where}, with no error: NCCL is hanging.",
                        summary.last_line, "nccl-stalled")


def early_timeout_over_p2p(top: Candidate, summary: NcclSummary | None,
                           first_timed_out: int) -> tuple[Candidate, Candidate] | None:
    """P2P blocked, then ACS/IOMMU, when the watchdog timed out one of the first collectives
    (`first_timed_out`: the lowest sequence number that timed out, 0: none) of ranks that all
    got past Init COMPLETE and reach each other over P2P inside one node: every rank was set up
    and nothing failed, so the first transfers between the GPUs never arrived. None otherwise
    (a run that completed collectives over that path for a while, a network between nodes, no
    P2P)."""
    if (top.signature != "nccl-watchdog-timeout" or summary is None
            or not 0 < first_timed_out <= EARLY_COLLECTIVES):
        return None
    transports = summary.transports
    if (not any(t.startswith("P2P") for t in transports)
            or any(t.startswith("NET") for t in transports)):
        return None
    if not summary.ranks_started or summary.ranks_completed < summary.ranks_started:
        return None
    return _p2p_blocked(f"The watchdog timed out collective {first_timed_out}, one of the "
                        "first, between ranks that all finished NCCL's setup and reach each "
                        "other over P2P inside one node, with no error before it.", top.evidence[0],
                        "nccl-p2p-early-timeout")


def _p2p_blocked(what: str, evidence: Evidence, signature: str) -> tuple[Candidate, Candidate]:
    p2p = Candidate(
        layer="communication",
        root_cause="p2p_unsupported_or_blocked",
        confidence=CONFIDENCE,
        evidence=(evidence,),
        explanation=(f"{what} On PCIe machines this is usually GPU peer-to-peer blocked by "
                     "PCIe ACS or the IOMMU (iommu_acs_blocks_p2p)."),
        fix=(
            FixStep("Rerun with NCCL_P2P_DISABLE=1: if it then completes, P2P is blocked.",
                    "nccl_env"),
            FixStep("Disable PCIe ACS on the switches between GPUs and set the IOMMU to "
                    "passthrough (iommu=pt), then re-enable P2P.", "iommu_grub"),
        ),
        check_next=(
            "lspci -vvv | grep -i acsctl (SrcValid+ means ACS is on); cat /proc/cmdline",
            "nvidia-smi topo -p2p r; vfix validate nccl",
        ),
        signature=signature,
        kind="cause",
        matches=1,
    )
    acs = Candidate(
        layer="communication",
        root_cause="iommu_acs_blocks_p2p",
        confidence=ALTERNATIVE_CONFIDENCE,
        evidence=(evidence,),
        explanation=("PCIe ACS redirecting peer-to-peer traffic through the root complex, or an "
                     "IOMMU in translation mode, makes P2P transfers hang without an error."),
        fix=(FixStep("Disable ACS on the PCIe switches (BIOS or setpci) and boot with iommu=pt.",
                     "iommu_grub"),),
        check_next=("lspci -vvv | grep -i acsctl; dmesg | grep -iE 'iommu|dmar|AMD-Vi'",),
        signature=signature,
        kind="cause",
        matches=1,
    )
    return p2p, acs
