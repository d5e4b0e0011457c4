"""`vfix validate nccl|allreduce|vllm`: prove the fleet works; one verdict per node.

Each sub-command runs its playbook (or, with --results DIR, re-judges saved outputs without
Ansible), then renders the report. Exit code: 0 when no node FAILs, 1 when one does, 2 on an
operational error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from vfix.commands.output import write_report
from vfix.errors import VfixError
from vfix.formats import Format
from vfix.validate import runs
from vfix.validate.model import ValidationReport
from vfix.validate.nccl_verdict import NcclPolicy
from vfix.validate.references import load_references
from vfix.validate.render import render_report
from vfix.validate.vllm_verdict import VllmPolicy, judge_smoke_dir
from vfix.vocabulary import ExitCode

app = typer.Typer(help="Prove GPUs, links and vLLM work: nccl-tests, all-reduce, vLLM smoke.",
                  no_args_is_help=True)

INVENTORY = typer.Option(None, "-i", "--inventory", help="Ansible inventory.",
                         show_default="inventories/local (this machine)")
LIMIT = typer.Option(None, "-l", "--limit", help="Ansible host pattern.")
OUT = typer.Option(None, "--out", help="Where the outputs go.",
                   show_default=".vfix/runs/<UTC timestamp>/validate-<kind>")
RESULTS = typer.Option(None, "--results",
                       help="Judge a saved output directory (<host>/...) instead of running.")
FORMAT = typer.Option(None, "--format", "-f", help="Report format.",
                      show_default="table on a TTY, else json")
OUTPUT = typer.Option(None, "--output", "-o", help="Write the report here.")
VARS = typer.Option([], "--var", "-e", help="Extra role variable KEY=VALUE (repeatable).")


def parse_vars(pairs: list[str]) -> dict[str, str]:
    variables = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise VfixError(f"--var needs KEY=VALUE, not {pair!r}")
        variables[key.strip()] = value
    return variables


def out_dir(out: Path | None, kind: str) -> Path:
    if out is not None:
        return out
    from vfix.gather.rundir import new_run_dir

    return new_run_dir() / f"validate-{kind}"


def emit(report: ValidationReport, output_format: Format | None, output: Path | None) -> None:
    to_terminal = output is None and sys.stdout.isatty()
    chosen = output_format or (Format.TABLE if to_terminal else Format.JSON)
    write_report(render_report(report, chosen, color=to_terminal), output)
    if not report.nodes:
        raise VfixError("no host produced a result")
    raise typer.Exit(ExitCode.CLEAN if report.passed else ExitCode.FINDINGS)


def _existing(path: Path | None, what: str) -> Path | None:
    if path is not None and not path.exists():
        raise VfixError(f"{what} {path} does not exist")
    return path


@app.command("nccl")
def nccl(
    inventory: Path | None = INVENTORY, limit: str | None = LIMIT, out: Path | None = OUT,
    results: Path | None = RESULTS, output_format: Format | None = FORMAT,
    output: Path | None = OUTPUT, var: list[str] = VARS,
    source_tarball: Path | None = typer.Option(None, help="nccl-tests source tarball."),
    source_dir: Path | None = typer.Option(None, help="nccl-tests source directory."),
    git_version: str | None = typer.Option(None, help="nccl-tests git tag or commit."),
    min_bytes: str | None = typer.Option(None, help="Smallest size, e.g. 8M."),
    max_bytes: str | None = typer.Option(None, help="Largest size (the judged one), e.g. 16G."),
    repeats: int | None = typer.Option(None, min=1, help="Runs per binary before failing."),
    references: Path | None = typer.Option(None, help="Reference table YAML (busbw floors)."),
    fleet_tolerance: float = typer.Option(0.10, min=0.0, max=1.0,
                                          help="Warn this far below the fleet median."),
) -> None:
    """Build and run nccl-tests; judge busbw at the largest size and wrong values."""
    policy = NcclPolicy(references=load_references(_existing(references, "reference table")),
                        fleet_tolerance=fleet_tolerance)
    if results is not None:
        emit(runs.judge_nccl_dir(_existing(results, "results directory") or results, policy),
             output_format, output)
    variables: dict[str, object] = dict(parse_vars(var))
    for key, value in {"nccl_tests_source_tarball": _existing(source_tarball, "tarball"),
                       "nccl_tests_source_dir": _existing(source_dir, "source directory"),
                       "nccl_tests_git_version": git_version, "nccl_tests_min_bytes": min_bytes,
                       "nccl_tests_max_bytes": max_bytes, "nccl_tests_repeats": repeats}.items():
        if value is not None:
            variables[key] = str(Path(value).resolve()) if isinstance(value, Path) else value
    report = runs.validate_nccl(inventory, limit, out_dir(out, "nccl"), variables, policy=policy)
    emit(report, output_format, output)


@app.command("allreduce")
def allreduce(
    inventory: Path | None = INVENTORY, limit: str | None = LIMIT, out: Path | None = OUT,
    results: Path | None = RESULTS, output_format: Format | None = FORMAT,
    output: Path | None = OUTPUT, var: list[str] = VARS,
    backend: str = typer.Option("auto", help="auto (nccl on GPUs, else gloo), nccl or gloo."),
    nproc_per_node: int = typer.Option(0, min=0, help="Processes per node (0: one per GPU)."),
    min_bytes: int | None = typer.Option(None, min=4), max_bytes: int | None = typer.Option(
        None, min=4), iters: int | None = typer.Option(None, min=1),
    python: str | None = typer.Option(None, help="Interpreter with torch on the nodes."),
    pythonpath: str | None = typer.Option(None, help="Extra PYTHONPATH on the nodes."),
    ifname: str | None = typer.Option(None, help="Socket interface for gloo/NCCL."),
    port: int | None = typer.Option(None, min=1, max=65535, help="Rendezvous port."),
) -> None:
    """torch.distributed all-reduce across the inventory (torchrun rendezvous), nccl-tests busbw."""
    if backend not in ("auto", "nccl", "gloo"):
        raise VfixError(f"--backend must be auto, nccl or gloo, not {backend!r}")
    if min_bytes is not None and max_bytes is not None and min_bytes > max_bytes:
        raise VfixError(f"--min-bytes {min_bytes} is larger than --max-bytes {max_bytes}")
    if results is not None:
        emit(runs.judge_allreduce_dir(_existing(results, "results directory") or results),
             output_format, output)
    variables: dict[str, object] = {"allreduce_backend": backend,
                                    "allreduce_nproc_per_node": nproc_per_node}
    for key, value in {"allreduce_min_bytes": min_bytes, "allreduce_max_bytes": max_bytes,
                       "allreduce_iters": iters, "allreduce_python": python,
                       "allreduce_pythonpath": pythonpath, "allreduce_ifname": ifname,
                       "allreduce_rdzv_port": port}.items():
        if value is not None:
            variables[key] = value
    variables.update(parse_vars(var))
    emit(runs.validate_allreduce(inventory, limit, out_dir(out, "allreduce"), variables),
         output_format, output)


@app.command("vllm")
def vllm(
    inventory: Path | None = INVENTORY, limit: str | None = LIMIT, out: Path | None = OUT,
    results: Path | None = RESULTS, output_format: Format | None = FORMAT,
    output: Path | None = OUTPUT, var: list[str] = VARS,
    model: str | None = typer.Option(None, "--model", help="Model directory on the nodes."),
    tp: int = typer.Option(1, "--tp", min=1, help="Tensor-parallel size to prove."),
    max_model_len: int | None = typer.Option(None, min=16),
    extra_args: str | None = typer.Option(None, help="More `vllm serve` options."),
    python: str | None = typer.Option(None, help="Interpreter with vLLM on the nodes."),
    pythonpath: str | None = typer.Option(None, help="Extra PYTHONPATH on the nodes."),
    serve_cmd: str | None = typer.Option(None, help="Command that starts the server."),
    compare_tp1: bool = typer.Option(True, help="With --tp > 1, also serve at TP=1 and compare."),
    ready_timeout: int | None = typer.Option(None, min=1, help="Seconds to wait for /health."),
    memory_balance_max: float = typer.Option(1.10, min=1.0),
    token_agreement_min: float = typer.Option(1.0, min=0.0, max=1.0),
) -> None:
    """Launch vLLM, probe it, ramp requests, compare TP=N with TP=1, tear down verified."""
    policy = VllmPolicy(memory_balance_max=memory_balance_max,
                        token_agreement_min=token_agreement_min)
    if results is not None:
        emit(judge_smoke_dir(_existing(results, "results directory") or results, policy),
             output_format, output)
    if not model:
        raise VfixError("--model PATH is required (a model directory on the nodes)")
    variables: dict[str, object] = {"vllm_smoke_model": model, "vllm_smoke_tp": tp,
                                    "vllm_smoke_compare_tp1": compare_tp1}
    for key, value in {"vllm_smoke_max_model_len": max_model_len,
                       "vllm_smoke_extra_args": extra_args, "vllm_smoke_python": python,
                       "vllm_smoke_pythonpath": pythonpath, "vllm_smoke_serve_cmd": serve_cmd,
                       "vllm_smoke_ready_timeout_s": ready_timeout}.items():
        if value is not None:
            variables[key] = value
    variables.update(parse_vars(var))
    emit(runs.validate_vllm(inventory, limit, out_dir(out, "vllm"), variables, policy),
         output_format, output)
