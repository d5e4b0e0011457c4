"""`vfix onboard`: gather → audit → fix (dry run unless apply) → validate → one verdict per node.

Each stage is another engineer's library, called as it is: `vfix.gather.gather`,
`vfix.fix.run.run_fix` (which audits, plans, dry-runs or applies and re-audits), and the
validation runs of `vfix.validate.runs`. The node's verdict combines the final audit's findings
with every validation's findings; its numbers are the audit counts, the fix plan and the
validations' measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vfix.findings import Finding
from vfix.validate import runs
from vfix.validate.model import NodeResult, Number, ValidationReport
from vfix.vocabulary import Severity


@dataclass(frozen=True)
class OnboardRequest:
    inventory: Path | None = None
    limit: str | None = None
    policy: Path | None = None
    apply: bool = False
    allreduce: bool = True
    nccl: bool = True  # only on hosts whose facts list GPUs
    vllm_model: str | None = None
    vllm_tp: int = 1
    nccl_vars: dict[str, Any] = field(default_factory=dict)
    allreduce_vars: dict[str, Any] = field(default_factory=dict)
    vllm_vars: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None


def onboard(request: OnboardRequest) -> ValidationReport:
    from vfix.ansible.paths import default_inventory
    from vfix.fix.plan import PlanOptions
    from vfix.fix.run import FixRequest, actionable, run_fix
    from vfix.gather import gather

    inventory = request.inventory or default_inventory()  # --apply needs it explicit
    run = gather(inventory=inventory, limit=request.limit,
                 out=request.out / "gather" if request.out else None)
    base = request.out or run.path
    outcome = run_fix(FixRequest(inventory=inventory, facts_dir=run.path,
                                 policy=request.policy, apply=request.apply))
    final = outcome.after or outcome.before
    per_host: dict[str, list[Finding]] = {host: [] for host in run.record.hosts}
    metrics: dict[str, dict[str, Number]] = {host: {} for host in per_host}
    notes: dict[str, list[str]] = {host: [] for host in per_host}
    for finding in final.findings:
        per_host.setdefault(finding.host, []).append(finding)
    for host in per_host:
        found = final.findings_for(host)
        metrics[host].update({
            "audit.errors": sum(f.severity is Severity.ERROR for f in found),
            "audit.warnings": sum(f.severity is Severity.WARNING for f in found),
            "fix.steps": len(outcome.plan.hosts[host].steps) if host in outcome.plan.hosts else 0,
            "fix.mode": "applied" if request.apply else "dry-run",
            "fix.open": len([f for f in actionable(final, PlanOptions()) if f.host == host]),
        })
    for skipped in final.skipped:
        notes.setdefault(skipped.host, []).append(f"not audited: {skipped.reason}")
    reachable = sorted(run.facts)
    gpu_hosts = [h for h in reachable if run.facts[h].gpus]
    reports: list[ValidationReport] = []
    if request.nccl and gpu_hosts:
        reports.append(runs.validate_nccl(inventory, ",".join(gpu_hosts),
                                          base / "validate-nccl", request.nccl_vars,
                                          facts=run.facts))
    elif request.nccl:
        for host in reachable:
            notes[host].append("nccl-tests not run: no GPU in the facts")
    if request.allreduce and reachable:
        reports.append(runs.validate_allreduce(inventory, ",".join(reachable),
                                               base / "validate-allreduce", request.allreduce_vars))
    if request.vllm_model and gpu_hosts:
        reports.append(runs.validate_vllm(inventory, ",".join(gpu_hosts),
                                          base / "validate-vllm",
                                          {"vllm_smoke_model": request.vllm_model,
                                           "vllm_smoke_tp": request.vllm_tp, **request.vllm_vars}))
    for report in reports:
        for node in report.nodes:
            per_host.setdefault(node.host, []).extend(node.findings)
            metrics.setdefault(node.host, {}).update(
                {f"{report.kind}.{key}": value for key, value in node.metrics.items()})
            notes.setdefault(node.host, []).extend(f"{report.kind}: {n}" for n in node.notes)
    nodes = [NodeResult(host, per_host[host], metrics.get(host, {}), notes.get(host, []))
             for host in sorted(per_host)]
    return ValidationReport(kind="onboard", nodes=nodes, run_dir=str(base))
