"""The probe document (node side, raw evidence) into frozen `HostFacts` (controller side)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from vfix.errors import VfixError
from vfix.facts.gpus import GpuFacts, build_gpus
from vfix.facts.model import HostFacts, ProbeError, Processes, System, Topology, Versions
from vfix.facts.processes import build_processes
from vfix.facts.system import build_system
from vfix.facts.topology import parse_p2p_matrix, parse_topo_matrix_with_errors
from vfix.facts.versions import build_versions

T = TypeVar("T")


def unwrap_probe(document: Any) -> dict[str, Any]:
    """Accept the probe document itself or the Ansible module result that carries it."""
    if not isinstance(document, dict):
        raise VfixError(f"probe document is a {type(document).__name__}, not a JSON object")
    facts = document.get("ansible_facts")
    if isinstance(facts, dict) and isinstance(facts.get("vfix_probe"), dict):
        return facts["vfix_probe"]
    if isinstance(document.get("vfix_probe"), dict):
        return document["vfix_probe"]
    return document


def _guard(section: str, errors: list[tuple[str, str]], build: Callable[[], T],
           empty: Callable[[], T]) -> T:
    """A parser bug must cost one section, not the whole host: record it and go on."""
    try:
        return build()
    except Exception as error:
        errors.append((section, f"could not parse: {type(error).__name__}: {error}"))
        return empty()


def _topology(probe: dict[str, Any], errors: list[tuple[str, str]]) -> Topology:
    section = probe.get("topology") or {}
    topo_run = section.get("topo_m") or {}
    if "text" not in topo_run or topo_run.get("rc") != 0:
        if topo_run:
            reason = topo_run.get("error") or f"exit {topo_run.get('rc')}: " + str(
                topo_run.get("stderr") or topo_run.get("text") or "").strip()[-200:]
            errors.append(("topology", f"nvidia-smi topo -m: {reason}"))
        return Topology()
    topology, problems = parse_topo_matrix_with_errors(topo_run["text"])
    errors.extend(("topology", problem) for problem in problems)
    p2p_run = section.get("topo_p2p_r") or {}
    if "text" in p2p_run and p2p_run.get("rc") == 0:
        p2p, p2p_problems = parse_p2p_matrix(p2p_run["text"])
        errors.extend(("topology.p2p", problem) for problem in p2p_problems)
        topology = topology.model_copy(update={"p2p_read": p2p})
    return topology


def build_facts(probe_document: dict[str, Any], host: str | None = None) -> HostFacts:
    """Parse one probe document into `HostFacts`; what cannot be parsed lands in `errors`."""
    probe = unwrap_probe(probe_document)
    errors: list[tuple[str, str]] = []
    probe_errors = probe.get("errors")
    for entry in probe_errors if isinstance(probe_errors, list) else []:
        if isinstance(entry, dict):
            errors.append((str(entry.get("section", "probe")), str(entry.get("reason", entry))))
    gpu_facts = _guard("gpus", errors, lambda: build_gpus(probe), GpuFacts)
    errors.extend(gpu_facts.errors)
    versions = _guard("versions", errors,
                      lambda: build_versions(probe, gpu_facts.summary, errors), Versions)
    topology = _guard("topology", errors, lambda: _topology(probe, errors), Topology)
    system = _guard("system", errors, lambda: build_system(probe, errors), System)
    processes = _guard("processes", errors,
                       lambda: build_processes(probe, gpu_facts.process_memory, errors),
                       Processes)
    name = host or probe.get("host") or system.hostname or "unknown"
    collected = probe.get("collected_at")
    return HostFacts(
        host=str(name),
        collected_at=str(collected) if collected else time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                    time.gmtime()),
        probe_version=str(probe["probe_version"]) if probe.get("probe_version") else None,
        versions=versions,
        gpus=gpu_facts.gpus,
        topology=topology,
        system=system,
        processes=processes,
        errors=[ProbeError(section=section, reason=reason) for section, reason in errors],
    )
