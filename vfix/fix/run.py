"""`vfix fix` end to end: audit → plan → dry run or rolling apply → re-gather → re-audit."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vfix.audit.engine import AuditResult, audit
from vfix.audit.inputs import from_inventory, from_run_dir
from vfix.checks import all_checks
from vfix.errors import VfixError
from vfix.findings import Finding
from vfix.fix.apply import ApplyResult, RollingOptions, apply_plan
from vfix.fix.plan import Plan, PlanOptions, build_plan, validate_options
from vfix.policy.loader import load_policy
from vfix.vocabulary import ExitCode, Severity

FIX_FROM = Severity.WARNING  # info findings are reported by audit, never acted on


@dataclass(frozen=True)
class FixRequest:
    inventory: Path | None = None
    facts_dir: Path | None = None
    policy: Path | None = None
    options: PlanOptions = field(default_factory=PlanOptions)
    apply: bool = False
    rolling: RollingOptions = field(default_factory=RollingOptions)
    progress: bool | None = None


@dataclass(frozen=True)
class FixOutcome:
    request: FixRequest
    before: AuditResult
    plan: Plan
    applied: ApplyResult | None = None
    after: AuditResult | None = None

    def selected(self, result: AuditResult) -> list[Finding]:
        return actionable(result, self.request.options)

    @property
    def exit_code(self) -> int:
        """0: nothing (left) to fix; 1: findings remain or a host failed or was not reached."""
        if self.applied is not None and (self.applied.failed or self.applied.not_reached):
            return ExitCode.FINDINGS
        if self.after is not None:
            return ExitCode.FINDINGS if self.selected(self.after) or self.after.skipped \
                else ExitCode.CLEAN
        return ExitCode.FINDINGS if self.selected(self.before) else ExitCode.CLEAN


def actionable(result: AuditResult, options: PlanOptions) -> list[Finding]:
    return [f for f in result.findings
            if f.severity.rank >= FIX_FROM.rank
            and (not options.only or f.check in options.only or f.check_id in options.only)]


def _audit(request: FixRequest, limit: str | None = None) -> AuditResult:
    policy = load_policy(request.policy)
    if request.facts_dir is not None and limit is None:
        facts, skipped = from_run_dir(request.facts_dir)
    else:
        facts, skipped = from_inventory(request.inventory, limit)
    if not facts:
        raise VfixError("no host could be gathered: "
                        + "; ".join(f"{s.host}: {s.reason}" for s in skipped))
    return audit(facts, policy, skipped)


def run_fix(request: FixRequest) -> FixOutcome:
    validate_options(request.options, (check.id for check in all_checks()))
    if request.apply and request.facts_dir is not None and request.inventory is None:
        raise VfixError("--apply needs the inventory to change (-i) besides --facts")
    before = _audit(request)
    plan = build_plan(actionable(before, request.options), before.facts, request.options)
    if not plan.hosts_with_steps or (request.facts_dir is not None and request.inventory is None):
        return FixOutcome(request, before, plan)  # saved facts without -i: the plan only
    applied = apply_plan(plan, request.inventory, check=not request.apply,
                         rolling=request.rolling, progress=request.progress)
    if not request.apply:
        return FixOutcome(request, before, plan, applied)
    after = _audit(request, limit=",".join(before.hosts))
    return FixOutcome(request, before, plan, applied, after)
