"""What a validation concluded: one `NodeResult` per host (verdict, numbers, findings) and the
`ValidationReport` that every output format renders."""

from __future__ import annotations

from dataclasses import dataclass, field

from vfix.findings import Finding, node_verdict
from vfix.vocabulary import Verdict

Number = float | int | str | bool | None


@dataclass(frozen=True)
class NodeResult:
    host: str
    findings: list[Finding] = field(default_factory=list)
    metrics: dict[str, Number] = field(default_factory=dict)  # the numbers behind the verdict
    notes: list[str] = field(default_factory=list)  # what was not judged, and why

    @property
    def verdict(self) -> Verdict:
        return node_verdict(self.findings)


@dataclass(frozen=True)
class ValidationReport:
    kind: str  # "nccl" | "allreduce" | "vllm" | "onboard"
    nodes: list[NodeResult]
    notes: list[str] = field(default_factory=list)
    run_dir: str | None = None

    @property
    def passed(self) -> bool:
        return all(node.verdict is not Verdict.FAIL for node in self.nodes) and bool(self.nodes)
