"""`vfix onboard`: gather → audit → fix (dry run unless --apply) → validate, one verdict per
node with the numbers, in any report format. Exit 0 when no node FAILs, 1 when one does."""

from __future__ import annotations

from pathlib import Path

import typer

from vfix.commands.validate import FORMAT, INVENTORY, LIMIT, OUTPUT, emit, parse_vars
from vfix.errors import VfixError
from vfix.formats import Format
from vfix.onboard import OnboardRequest, onboard


def onboard_command(
    inventory: Path | None = INVENTORY, limit: str | None = LIMIT,
    policy: Path | None = typer.Option(None, "--policy", help="Policy file (default: built-in)."),
    apply: bool = typer.Option(False, "--apply", help="Apply the fixes (default: dry run)."),
    nccl: bool = typer.Option(True, help="Run nccl-tests on hosts with GPUs."),
    allreduce: bool = typer.Option(True, help="Run the torch all-reduce validation."),
    vllm_model: str | None = typer.Option(None, "--vllm-model",
                                          help="Also smoke-test vLLM with this model (on GPUs)."),
    tp: int = typer.Option(1, "--tp", min=1, help="Tensor-parallel size for the vLLM smoke run."),
    out: Path | None = typer.Option(None, "--out", help="Run directory (default: a new one)."),
    nccl_var: list[str] = typer.Option([], help="nccl_tests role variable KEY=VALUE."),
    allreduce_var: list[str] = typer.Option([], help="allreduce role variable KEY=VALUE."),
    vllm_var: list[str] = typer.Option([], help="vllm_smoke role variable KEY=VALUE."),
    output_format: Format | None = FORMAT, output: Path | None = OUTPUT,
) -> None:
    """Onboard nodes: evidence, fixes, proof; PASS / WARN / FAIL per node."""
    if out is not None and out.exists() and any(out.iterdir()):
        raise VfixError(f"--out {out} is not empty")
    request = OnboardRequest(
        inventory=inventory, limit=limit, policy=policy, apply=apply, allreduce=allreduce,
        nccl=nccl, vllm_model=vllm_model, vllm_tp=tp, nccl_vars=dict(parse_vars(nccl_var)),
        allreduce_vars=dict(parse_vars(allreduce_var)), vllm_vars=dict(parse_vars(vllm_var)),
        out=out)
    emit(onboard(request), output_format, output)
