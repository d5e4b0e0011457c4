"""`vfix fix`: turn findings into a per-host plan of roles, dry-run or apply it, re-audit."""

from vfix.fix.plan import Plan, PlanOptions, build_plan
from vfix.fix.run import FixOutcome, FixRequest, run_fix

__all__ = ["FixOutcome", "FixRequest", "Plan", "PlanOptions", "build_plan", "run_fix"]
