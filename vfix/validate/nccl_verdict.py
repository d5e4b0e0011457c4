"""Judge nccl-tests runs per node.

- Out-of-bounds (wrong) values must be 0 in every repeat: corrupted data is never noise.
- Bus bandwidth is read at the LARGEST size (not "Avg bus bandwidth", which averages every
  size), out-of-place, best repeat: a node fails only when every repeat is below its floor.
- Floors come from the reference table (GPU model x count, with a source per row); a node
  well below the median of its peers (same collective, GPU model and count) gets a warning.
- At one GPU busbw = algbw x 2(n-1)/n is 0 by definition: only correctness is judged there.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from vfix.findings import Evidence, Finding, Remediation
from vfix.validate.model import NodeResult, Number, ValidationReport
from vfix.validate.nccl_output import NcclRun
from vfix.validate.references import Reference, find_reference, load_references
from vfix.vocabulary import Layer, Severity

CHECK = "nccl-tests"


@dataclass(frozen=True)
class NcclPolicy:
    references: list[Reference] = field(default_factory=load_references)
    fleet_tolerance: float = 0.10  # warn below median x (1 - tolerance)


@dataclass(frozen=True)
class _Best:
    collective: str
    gpu_name: str
    gpus: int
    busbw: float
    run: NcclRun


def _finding(host: str, sub: str, severity: Severity, message: str, *, expected: str | None = None,
             observed: str | None = None, evidence: list[Evidence] | None = None,
             remedy: str) -> Finding:
    return Finding(check=f"{CHECK}[{sub}]", host=host, layer=Layer.COMMUNICATION,
                   severity=severity, message=message, expected=expected, observed=observed,
                   evidence=evidence or [], remediation=Remediation.by_hand(remedy))


def _largest_line(run: NcclRun) -> str:
    row = run.largest
    if row is None:
        return "no result rows"
    out = row.out_of_place
    return (f"size {row.size} B: time {out.time_us} us algbw {out.algbw} GB/s "
            f"busbw {out.busbw} GB/s wrong {out.wrong}")


def _judge_collective(host: str, collective: str, runs: list[NcclRun], policy: NcclPolicy,
                      metrics: dict[str, Number], notes: list[str],
                      findings: list[Finding]) -> _Best | None:
    finished = [r for r in runs if r.out_of_bounds is not None and r.largest is not None]
    metrics[f"{collective}.repeats"] = len(runs)
    if len(finished) < len(runs):
        broken = [r.source for r in runs if r not in finished]
        findings.append(_finding(
            host, "did-not-finish", Severity.ERROR,
            f"{collective}: {len(broken)} of {len(runs)} run(s) ended without a summary",
            evidence=[Evidence(source=s, lines=["no 'Out of bounds values' line"]) for s in broken],
            remedy="read the run's output (and NCCL_DEBUG=INFO) for the failing rank; "
                   "vfix diagnose FILE names the layer"))
    if not finished:
        return None
    corrupt = [r for r in finished if (r.out_of_bounds or 0) > 0]
    if corrupt:
        findings.append(_finding(
            host, "out-of-bounds", Severity.ERROR,
            f"{collective}: wrong values in {len(corrupt)} of {len(finished)} run(s)",
            expected="Out of bounds values : 0", observed=str(max(r.out_of_bounds or 0
                                                                 for r in corrupt)),
            evidence=[Evidence(source=r.source,
                               lines=[f"# Out of bounds values : {r.out_of_bounds} FAILED"])
                      for r in corrupt],
            remedy="data corruption in a collective: drain the node; check ECC/XID "
                   "(nvidia-smi -q), NVLink/PCIe errors, then rerun"))
    best = max(finished, key=lambda r: r.largest.out_of_place.busbw if r.largest else 0.0)
    row = best.largest
    assert row is not None
    gpus = best.world_size
    gpu_name = best.ranks[0].name if best.ranks else "unknown GPU"
    metrics.update({
        f"{collective}.busbw_gbps": row.out_of_place.busbw,
        f"{collective}.algbw_gbps": row.out_of_place.algbw,
        f"{collective}.largest_bytes": row.size,
        f"{collective}.gpus": gpus,
        f"{collective}.out_of_bounds": max(r.out_of_bounds or 0 for r in finished),
        f"{collective}.avg_busbw_gbps": best.avg_busbw,
    })
    if best.nccl_version:
        metrics[f"{collective}.nccl"] = best.nccl_version
    if gpus <= 1:
        notes.append(f"{collective}: 1 GPU, busbw is 0 by definition (x 2(n-1)/n); only "
                     f"correctness judged (algbw at {row.size} B: {row.out_of_place.algbw} GB/s)")
        return None
    reference = find_reference(policy.references, gpu_name, gpus, collective)
    if reference is None:
        notes.append(f"{collective}: no reference for {gpus}x {gpu_name}; fleet median only")
    else:
        metrics[f"{collective}.reference_gbps"] = reference.busbw_gbps
        if row.out_of_place.busbw < reference.busbw_gbps:
            findings.append(_finding(
                host, "below-reference", Severity.ERROR,
                f"{collective}: busbw {row.out_of_place.busbw} GB/s at {row.size} B is below "
                f"{reference.busbw_gbps} GB/s for {gpus}x {reference.gpu} "
                f"(best of {len(finished)} repeat(s))",
                expected=f">= {reference.busbw_gbps} GB/s ({reference.source})",
                observed=f"{row.out_of_place.busbw} GB/s",
                evidence=[Evidence(source=best.source, lines=[_largest_line(best)])],
                remedy="check NVLink/NVSwitch status and fabric manager, PCIe ACS/IOMMU "
                       "(vfix audit), NCCL_* overrides; then rerun"))
        if reference.size and row.size < _bytes(reference.size):
            notes.append(f"{collective}: reference measured at {reference.size}, this run's "
                         f"largest size was {row.size} B (smaller sizes read lower)")
    return _Best(collective, gpu_name, gpus, row.out_of_place.busbw, best)


def _bytes(size: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    text = size.strip().upper()
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(float(text)) if text else 0


def judge_nccl(runs_by_host: dict[str, list[NcclRun]],
               policy: NcclPolicy | None = None) -> ValidationReport:
    policy = policy or NcclPolicy()
    results: dict[str, tuple[list[Finding], dict[str, Number], list[str]]] = {}
    bests: list[tuple[str, _Best]] = []
    for host, runs in sorted(runs_by_host.items()):
        findings: list[Finding] = []
        metrics: dict[str, Number] = {}
        notes: list[str] = []
        if not runs:
            findings.append(_finding(host, "no-output", Severity.ERROR, "no nccl-tests output",
                                     remedy="see the Ansible output for this host"))
        by_collective: dict[str, list[NcclRun]] = defaultdict(list)
        for run in runs:
            by_collective[run.collective or "nccl-tests"].append(run)
        for collective, group in sorted(by_collective.items()):
            best = _judge_collective(host, collective, group, policy, metrics, notes, findings)
            if best is not None:
                bests.append((host, best))
        results[host] = (findings, metrics, notes)
    _judge_fleet(bests, policy, results)
    nodes = [NodeResult(host, findings, metrics, notes)
             for host, (findings, metrics, notes) in results.items()]
    return ValidationReport(kind="nccl", nodes=nodes)


def _judge_fleet(bests: list[tuple[str, _Best]], policy: NcclPolicy,
                 results: dict[str, tuple[list[Finding], dict[str, Number], list[str]]]) -> None:
    peers: dict[tuple[str, str, int], list[tuple[str, _Best]]] = defaultdict(list)
    for host, best in bests:
        peers[(best.collective, best.gpu_name, best.gpus)].append((host, best))
    for (collective, gpu_name, gpus), group in peers.items():
        if len(group) < 2:
            continue
        median = statistics.median(best.busbw for _, best in group)
        floor = median * (1 - policy.fleet_tolerance)
        for host, best in group:
            findings, metrics, _ = results[host]
            metrics[f"{collective}.fleet_median_gbps"] = round(median, 2)
            if best.busbw < floor:
                findings.append(_finding(
                    host, "below-fleet-median", Severity.WARNING,
                    f"{collective}: busbw {best.busbw} GB/s is more than "
                    f"{policy.fleet_tolerance:.0%} below the median {median:.2f} GB/s of "
                    f"{len(group)} nodes with {gpus}x {gpu_name}",
                    expected=f">= {floor:.2f} GB/s", observed=f"{best.busbw} GB/s",
                    evidence=[Evidence(source=best.run.source, lines=[_largest_line(best.run)])],
                    remedy="compare this node's `vfix audit` with a good peer's (vfix diff)"))
