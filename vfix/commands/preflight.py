"""`vfix preflight`: predict a vLLM deployment's failures before launch, and suggest the command."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import typer

from vfix.commands.output import write_report
from vfix.errors import VfixError
from vfix.facts.model import HostFacts
from vfix.preflight import Plan, run_preflight
from vfix.preflight.render import Format, render


def preflight(
    model: Path = typer.Option(..., "--model", "-m",
                               help="Model directory holding config.json, or the config.json."),
    tp: int = typer.Option(1, "--tp", "--tensor-parallel-size", help="Tensor parallel size."),
    pp: int = typer.Option(1, "--pp", "--pipeline-parallel-size",
                           help="Pipeline parallel size."),
    max_model_len: int | None = typer.Option(None, "--max-model-len",
                                             help="Context length (default: the model's)."),
    gpu_memory_utilization: float = typer.Option(0.9, "--gpu-memory-utilization"),
    dtype: str = typer.Option("auto", "--dtype"),
    kv_cache_dtype: str = typer.Option("auto", "--kv-cache-dtype"),
    max_num_seqs: int | None = typer.Option(None, "--max-num-seqs",
                                            help="Concurrent requests to size the KV cache for."),
    cuda_visible_devices: str | None = typer.Option(
        None, "--cuda-visible-devices", help="Indices, GPU-/MIG- UUIDs (default: facts' env)."),
    enable_expert_parallel: bool = typer.Option(False, "--enable-expert-parallel"),
    enforce_eager: bool = typer.Option(False, "--enforce-eager"),
    port: int = typer.Option(8000, "--port", help="The API server port vllm serve will bind."),
    gpu_memory_gib: float | None = typer.Option(
        None, "--gpu-memory-gib", help="Per-GPU memory when no facts are given."),
    inventory: Path | None = typer.Option(None, "-i", "--inventory",
                                          help="Gather live facts from this inventory."),
    facts: Path | None = typer.Option(None, "--facts", help="A saved run directory."),
    limit: str | None = typer.Option(None, "-l", "--limit", help="Ansible host pattern."),
    output_format: Format = typer.Option(
        None, "--format", "-f", help="table (default on a TTY), json or markdown.",
        show_default=False),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here."),
) -> None:
    """Say which layer a vLLM deployment will break in, and the command that should work."""
    if inventory is not None and facts is not None:
        raise VfixError("give either -i/--inventory or --facts, not both")
    plan = Plan(tp=tp, pp=pp, max_model_len=max_model_len,
                gpu_memory_utilization=gpu_memory_utilization, dtype=dtype,
                kv_cache_dtype=kv_cache_dtype, max_num_seqs=max_num_seqs,
                cuda_visible_devices=cuda_visible_devices,
                enable_expert_parallel=enable_expert_parallel, enforce_eager=enforce_eager,
                port=port, gpu_memory_gib=gpu_memory_gib)
    hosts = _load_hosts(inventory, facts, limit)
    report = run_preflight(model, plan, hosts)
    fmt = output_format or (Format.TABLE if sys.stdout.isatty() else Format.JSON)
    write_report(render(report, fmt, width=shutil.get_terminal_size((120, 24)).columns), output)
    raise typer.Exit(report.exit_code)


def _load_hosts(inventory: Path | None, facts: Path | None, limit: str | None) -> list[HostFacts]:
    if facts is not None:
        from vfix.gather.rundir import load_run_dir

        run = load_run_dir(facts)
    elif inventory is not None:
        from vfix.gather import gather

        run = gather(inventory, limit=limit)
    else:
        return []
    if not run.facts:
        raise VfixError(f"no host facts in {run.path} (every host unreachable or failed)")
    return [run.facts[host] for host in sorted(run.facts)]
