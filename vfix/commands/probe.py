"""`vfix probe`: probe this machine (no Ansible) and show its facts."""

from __future__ import annotations

import sys

import typer

from vfix.facts import build_facts, dump_facts
from vfix.facts.summary import render_summary
from vfix.probe import run_local_probe


def probe(
    json_output: bool = typer.Option(False, "--json", help="Print the facts document as JSON."),
    python: str = typer.Option("python3", "--python",
                               help="Interpreter whose packages (torch, vllm, ...) to read."),
    section_timeout: float = typer.Option(20.0, "--section-timeout", min=0.1,
                                          help="Seconds each probe section may take."),
) -> None:
    """Probe this machine: GPUs, driver/CUDA/NCCL versions, topology, system, processes."""
    facts = build_facts(run_local_probe(python=python, section_timeout=section_timeout))
    if json_output:
        sys.stdout.write(dump_facts(facts))
    else:
        render_summary(facts)
