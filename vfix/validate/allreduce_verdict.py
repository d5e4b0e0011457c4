"""Judge the torch.distributed all-reduce benchmark (vfix/validate/node/allreduce_bench.py).

Each host that ran holds the same fleet-wide document (one collective across every node);
a host without one did not join. Wrong values fail; the largest size's busbw is the number
shown and, for GPUs with a reference row, compared with it (a warning: torch adds overhead
nccl-tests does not have, so the nccl-tests floor is only indicative here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vfix.errors import VfixError
from vfix.findings import Evidence, Finding, Remediation
from vfix.validate.model import NodeResult, Number, ValidationReport
from vfix.validate.references import Reference, find_reference, load_references
from vfix.vocabulary import Layer, Severity

CHECK = "allreduce"
_NETWORK_WORDS = ("rendezvous", "connection refused", "timed out", "timeout", "no route",
                  "name or service not known", "address already in use", "gloo", "socket")


@dataclass(frozen=True)
class AllreduceRow:
    size: int
    time_us: float
    algbw: float
    busbw: float
    nwrong: int


@dataclass(frozen=True)
class AllreduceResult:
    source: str
    backend: str
    world_size: int
    nnodes: int
    hosts: list[str]
    device: str
    torch: str | None
    nccl: str | None
    rows: list[AllreduceRow]

    @property
    def largest(self) -> AllreduceRow | None:
        return max(self.rows, key=lambda r: r.size) if self.rows else None

    @property
    def wrong_total(self) -> int:
        return sum(r.nwrong for r in self.rows)


def parse_allreduce(text: str, source: str = "<json>") -> AllreduceResult:
    try:
        doc: dict[str, Any] = json.loads(text)
        if doc.get("tool") != "vfix-allreduce":
            raise ValueError("not a vfix-allreduce document")
        ranks = doc.get("ranks") or []
        rows = [AllreduceRow(int(r["size"]), float(r["time_us"]), float(r["algbw"]),
                             float(r["busbw"]), int(r["nwrong"])) for r in doc["results"]]
        return AllreduceResult(
            source=source, backend=str(doc["backend"]), world_size=int(doc["world_size"]),
            nnodes=int(doc["nnodes"]), hosts=sorted({str(r.get("host")) for r in ranks}),
            device=str(ranks[0].get("device", "")) if ranks else "", torch=doc.get("torch"),
            nccl=doc.get("nccl"), rows=rows)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise VfixError(f"{source}: not a vfix all-reduce result ({error})") from error


def parse_allreduce_file(path: Path) -> AllreduceResult:
    try:
        return parse_allreduce(path.read_text(encoding="utf-8"), str(path))
    except OSError as error:
        raise VfixError(f"cannot read {path}: {error.strerror}") from error


@dataclass(frozen=True)
class HostAttempt:
    """What one host produced: a result, or the launcher's exit status and error text."""

    host: str
    result: AllreduceResult | None
    rc: int | None = None
    stderr: str = ""
    source: str = ""


def judge_allreduce(attempts: list[HostAttempt],
                    references: list[Reference] | None = None) -> ValidationReport:
    references = load_references() if references is None else references
    joined = len(attempts)
    nodes = []
    for attempt in sorted(attempts, key=lambda a: a.host):
        findings: list[Finding] = []
        metrics: dict[str, Number] = {}
        notes: list[str] = []
        result = attempt.result
        if result is None:
            tail = [line for line in attempt.stderr.splitlines() if line.strip()][-5:]
            layer = (Layer.NETWORK if any(w in attempt.stderr.lower() for w in _NETWORK_WORDS)
                     else Layer.COMMUNICATION)
            findings.append(Finding(
                check=f"{CHECK}[did-not-run]", host=attempt.host, layer=layer,
                severity=Severity.ERROR,
                message=f"the all-reduce benchmark produced no result (rc {attempt.rc})",
                evidence=[Evidence(source=attempt.source or "torchrun", lines=tail)],
                remediation=Remediation.by_hand(
                    "vfix diagnose on the output names the layer; check the rendezvous port "
                    "is reachable from every node and the socket interface (allreduce_ifname)")))
        else:
            _judge_result(attempt.host, result, joined, references, findings, metrics, notes)
        nodes.append(NodeResult(attempt.host, findings, metrics, notes))
    return ValidationReport(kind="allreduce", nodes=nodes)


def _judge_result(host: str, result: AllreduceResult, joined: int, references: list[Reference],
                  findings: list[Finding], metrics: dict[str, Number], notes: list[str]) -> None:
    largest = result.largest
    metrics.update({"backend": result.backend, "world_size": result.world_size,
                    "nnodes": result.nnodes, "device": result.device})
    if largest is not None:
        metrics.update({"largest_bytes": largest.size, "busbw_gbps": largest.busbw,
                        "algbw_gbps": largest.algbw, "time_us": largest.time_us})
    metrics["wrong"] = result.wrong_total
    if result.wrong_total:
        findings.append(Finding(
            check=f"{CHECK}[wrong-values]", host=host, layer=Layer.COMMUNICATION,
            severity=Severity.ERROR,
            message=f"{result.wrong_total} wrong element(s) after all-reduce",
            expected="0", observed=str(result.wrong_total),
            evidence=[Evidence(source=result.source, lines=[
                f"size {r.size}: nwrong {r.nwrong}" for r in result.rows if r.nwrong])],
            remediation=Remediation.by_hand("drain the node; check ECC/XID and links")))
    if result.nnodes < joined:
        findings.append(Finding(
            check=f"{CHECK}[missing-nodes]", host=host, layer=Layer.NETWORK,
            severity=Severity.ERROR,
            message=f"only {result.nnodes} of {joined} node(s) took part",
            expected=str(joined), observed=str(result.nnodes),
            evidence=[Evidence(source=result.source, lines=[", ".join(result.hosts)])],
            remediation=Remediation.by_hand("check every node reached the rendezvous")))
    if result.world_size <= 1:
        notes.append("world size 1: busbw is 0 by definition (x 2(n-1)/n); only correctness "
                     "judged")
        return
    if result.backend != "nccl" or largest is None:
        return
    reference = find_reference(references, result.device, result.world_size, None)
    if reference is not None and largest.busbw < reference.busbw_gbps:
        findings.append(Finding(
            check=f"{CHECK}[below-reference]", host=host, layer=Layer.COMMUNICATION,
            severity=Severity.WARNING,
            message=f"busbw {largest.busbw} GB/s below the nccl-tests floor "
                    f"{reference.busbw_gbps} GB/s for {result.world_size}x {reference.gpu}",
            expected=f">= {reference.busbw_gbps} GB/s ({reference.source})",
            observed=f"{largest.busbw} GB/s",
            evidence=[Evidence(source=result.source, lines=[
                f"size {largest.size}: busbw {largest.busbw} GB/s"])],
            remediation=Remediation.by_hand("run `vfix validate nccl` to confirm")))


def load_attempt(host_dir: Path) -> HostAttempt:
    """A host's directory as the allreduce role leaves it: allreduce.json and run.json."""
    result_file, run_file = host_dir / "allreduce.json", host_dir / "run.json"
    run: dict[str, Any] = {}
    if run_file.is_file():
        try:
            run = json.loads(run_file.read_text(encoding="utf-8"))
        except ValueError:
            run = {}
    result = parse_allreduce_file(result_file) if result_file.is_file() else None
    return HostAttempt(host=host_dir.name, result=result, rc=run.get("rc"),
                       stderr=str(run.get("stderr") or ""), source=str(run_file))
