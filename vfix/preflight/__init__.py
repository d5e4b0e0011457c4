"""Preflight: predict which layer a vLLM deployment will break in, before it is launched.

`run_preflight(model, plan, hosts)` reads the model's config.json, applies vLLM's own
partitioning rules, estimates per-GPU memory, and, given facts, checks visibility,
topology, resources and versions; it suggests the `vllm serve` command that should work.
"""

from vfix.preflight.engine import run_preflight
from vfix.preflight.plan import Plan
from vfix.preflight.result import CheckResult, PreflightReport

__all__ = ["CheckResult", "Plan", "PreflightReport", "run_preflight"]
