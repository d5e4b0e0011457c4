"""What a diagnosis returns: frozen data, rendered by vfix.diagnose.render.

The JSON form (`Diagnosis.to_dict`) is documented by `result.schema.json` beside this file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from vfix.vocabulary import ExitCode


class Status(StrEnum):
    """The outcome for one input, and the exit code it maps to."""

    CAUSE_FOUND = "cause_found"  # at least one signature explains the failure
    UNKNOWN = "unknown"  # the log shows a failure that no signature explains
    NO_FAILURE = "no_failure"  # nothing in the log looks like a failure
    UNUSABLE = "unusable"  # empty, binary or unreadable input

    @property
    def exit_code(self) -> int:
        return {
            Status.CAUSE_FOUND: ExitCode.CLEAN,
            Status.NO_FAILURE: ExitCode.CLEAN,
            Status.UNKNOWN: ExitCode.FINDINGS,
            Status.UNUSABLE: ExitCode.OPERATIONAL_ERROR,
        }[self]


@dataclass(frozen=True)
class Evidence:
    """One log line: its 1-based number, its text (cleaned) and the rank/process that wrote it."""

    line: int
    text: str
    source: str | None = None


@dataclass(frozen=True)
class FixStep:
    """One remediation step; `role` names the vfix role that applies it, when one does."""

    step: str
    role: str | None = None


@dataclass(frozen=True)
class Candidate:
    """One explanation of the failure, ranked by the engine."""

    layer: str
    root_cause: str
    confidence: float
    evidence: tuple[Evidence, ...]
    explanation: str
    fix: tuple[FixStep, ...]
    check_next: tuple[str, ...]
    signature: str
    kind: str  # cause | consequence | hint
    matches: int  # how many lines matched (evidence keeps the first few)

    @classmethod
    def rule_cause(cls, signature: str, layer: str, root_cause: str, confidence: float,
                   evidence: tuple[Evidence, ...], *, explanation: str, fix: str, check: str,
                   role: str | None = None, matches: int | None = None) -> Candidate:
        """A cause that a rule after the signatures read off the log, with one fix step and
        one check; `matches` defaults to the lines it cites."""
        return cls(layer=layer, root_cause=root_cause, confidence=confidence, evidence=evidence,
                   explanation=explanation, fix=(FixStep(fix, role),), check_next=(check,),
                   signature=signature, kind="cause",
                   matches=len(evidence) if matches is None else matches)


@dataclass(frozen=True)
class NcclSummary:
    """What an NCCL_DEBUG=INFO log says about the communicator setup."""

    version: str | None
    cuda_driver: str | None
    ib_found: bool | None  # None: the log says nothing about IB
    ib_devices: tuple[str, ...]
    interfaces: tuple[str, ...]
    network: str | None  # "IB", "Socket", … ("Using network X")
    transports: dict[str, int]  # channel connections per transport (P2P/IPC, SHM, NET/IB, …)
    channels: dict[str, list[str]]  # channel number -> transports its connections use
    ranks_started: int
    ranks_completed: int
    communicator_size: int  # ranks of the largest communicator init reported (0: not reported)
    warnings: tuple[Evidence, ...]
    last_line: Evidence | None  # where the NCCL output stops


@dataclass(frozen=True)
class Diagnosis:
    """The result for one input (a file or stdin)."""

    input: str
    status: Status
    root_cause: str  # the top candidate's, or "unknown" / "none"
    layer: str | None
    candidates: tuple[Candidate, ...]
    first_failure: Evidence | None  # the earliest line of the first failing rank/process
    suspicious: tuple[Evidence, ...]  # the most suspicious lines, for an unknown failure
    nccl: NcclSummary | None
    lines: int
    bytes: int
    note: str | None = None

    @property
    def exit_code(self) -> int:
        return self.status.exit_code

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return data
