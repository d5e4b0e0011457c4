"""Preflight: model config + parallel plan + facts -> predicted failures + suggested command."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from vfix.facts.model import HostFacts
from vfix.preflight import memory as mem
from vfix.preflight.model_config import ModelShape, load_model
from vfix.preflight.params import count_params
from vfix.preflight.partitioning import check_partitioning
from vfix.preflight.placement import Placement, place, visible_devices_without_facts
from vfix.preflight.plan import Plan
from vfix.preflight.resources import check_free_memory, check_memory_fit, check_port, check_shm
from vfix.preflight.result import CheckResult, PreflightReport, Skipped, Suggestion
from vfix.preflight.suggest import build, choose_tp, grow_tp_for_memory
from vfix.preflight.versions import check_drift, check_driver, check_torch_pin
from vfix.vocabulary import Layer, Verdict

SRC_MAX_LEN = "vllm/config/model.py _get_and_verify_max_len"


def run_preflight(model: str | Path, plan: Plan,
                  hosts: list[HostFacts] | None = None) -> PreflightReport:
    shape = load_model(model)
    hosts = list(hosts or [])
    results: list[CheckResult] = list(check_partitioning(shape, plan))
    skipped: list[Skipped] = []
    results.append(_max_len_check(shape, plan))
    max_len = plan.max_model_len or shape.derived_max_len

    placements = _placements(hosts, plan, results)
    if not hosts and plan.cuda_visible_devices is not None:
        results += visible_devices_without_facts(plan)
    for placement in placements:
        results += placement.results
        skipped += placement.skipped
    total_bytes = _gpu_total_bytes(plan, hosts, placements)
    estimates: dict[str, object] = {"model": _shape_summary(shape)}
    if total_bytes is None:
        skipped.append(Skipped("memory-fit", "no GPU memory size: give --facts, -i or "
                                             "--gpu-memory-gib"))
    else:
        memory = mem.estimate(shape, plan, total_bytes)
        estimates["memory_per_gpu"] = memory.as_dict()
        results += check_memory_fit(memory, plan, max_len, shape.derived_max_len)
    _host_checks(hosts, placements, plan, results, skipped)

    suggestion = _suggest(model, shape, plan, hosts, placements, total_bytes, max_len)
    return PreflightReport(model=str(model), results=tuple(results), skipped=tuple(skipped),
                           suggestion=suggestion, estimates=estimates)


def _max_len_check(shape: ModelShape, plan: Plan) -> CheckResult:
    derived = shape.derived_max_len
    if plan.max_model_len is not None and plan.max_model_len > derived:
        return CheckResult(
            check="max-model-len", layer=Layer.OTHER, verdict=Verdict.FAIL,
            reason=f"--max-model-len {plan.max_model_len} > the model's {derived} "
                   f"({shape.max_len_key}); vLLM refuses it unless "
                   f"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", source=SRC_MAX_LEN)
    used = plan.max_model_len or derived
    return CheckResult(check="max-model-len", layer=Layer.OTHER, verdict=Verdict.PASS,
                       reason=f"max-model-len {used} (model allows {derived} via "
                              f"{shape.max_len_key})", source=SRC_MAX_LEN)


def _placements(hosts: list[HostFacts], plan: Plan,
                results: list[CheckResult]) -> list[Placement]:
    if not hosts:
        return []
    per_node = -(-plan.world_size // len(hosts))
    if plan.world_size % len(hosts):
        results.append(CheckResult(
            check="nodes", layer=Layer.VISIBILITY, verdict=Verdict.FAIL,
            reason=f"TP x PP = {plan.world_size} ranks do not split evenly over "
                   f"{len(hosts)} nodes", source="vLLM places the same rank count on each node"))
    elif len(hosts) > 1 and plan.tp > per_node:
        results.append(CheckResult(
            check="nodes", layer=Layer.COMMUNICATION, verdict=Verdict.WARN,
            reason=f"TP={plan.tp} > {per_node} GPUs per node: the TP all-reduce crosses the "
                   f"network every layer; prefer TP within a node and PP across nodes",
            source="vLLM docs: distributed serving (TP inside a node, PP across nodes)"))
    return [place(facts, plan, per_node) for facts in hosts]


def _gpu_total_bytes(plan: Plan, hosts: list[HostFacts],
                     placements: list[Placement]) -> float | None:
    if plan.gpu_memory_gib is not None:
        return plan.gpu_memory_gib * mem.GIB
    sizes = []
    for facts, placement in zip(hosts, placements, strict=True):
        chosen = set(placement.chosen or placement.visible)
        sizes += [g.memory_total_mib for g in facts.gpus
                  if g.index in chosen and g.memory_total_mib]
    return min(sizes) * 1024**2 if sizes else None


def _host_checks(hosts: list[HostFacts], placements: list[Placement], plan: Plan,
                 results: list[CheckResult], skipped: list[Skipped]) -> None:
    for index, (facts, placement) in enumerate(zip(hosts, placements, strict=True)):
        free = check_free_memory(facts, placement.chosen or placement.visible, plan)
        if free is not None:
            results.append(free)
        for outcome in (check_shm(facts, plan), check_torch_pin(facts), check_driver(facts)):
            if isinstance(outcome, CheckResult):
                results.append(outcome)
            else:
                skipped.append(outcome)
        if index == 0:  # the API server runs on the first node
            results.append(check_port(facts, plan))
    results += check_drift(hosts)


def _suggest(model: str | Path, shape: ModelShape, plan: Plan, hosts: list[HostFacts],
             placements: list[Placement], total_bytes: float | None,
             max_len: int) -> Suggestion:
    gpus_per_node = len(placements[0].visible) if placements else None
    choice = choose_tp(shape, plan, gpus_per_node)
    notes: list[str] = []
    length: int | None = plan.max_model_len
    if total_bytes is not None:
        tp_limit = gpus_per_node * len(hosts) // plan.pp if gpus_per_node else max(8, plan.tp)
        choice = grow_tp_for_memory(shape, plan, choice, total_bytes, max_len, tp_limit)
        suggested = replace(plan, tp=choice.tp,
                            enable_expert_parallel=choice.enable_expert_parallel)
        fits = mem.largest_fitting_len(mem.estimate(shape, suggested, total_bytes),
                                       shape.derived_max_len)
        if fits <= 0:
            notes.append("the weights alone do not fit these GPUs: use more GPUs (TP/PP) or a "
                         "quantised checkpoint")
        elif fits < max_len:
            length = fits // 1024 * 1024 if fits >= 1024 else fits
            notes.append(f"max-model-len lowered from {max_len} to {length} to fit the KV cache")
    devices = None
    if placements and choice.tp == plan.tp:
        devices = placements[0].chosen or None
    elif hosts and choice.tp * plan.pp % len(hosts) == 0:
        regrouped = place(hosts[0], replace(plan, tp=choice.tp), choice.tp * plan.pp // len(hosts))
        devices = regrouped.chosen or None
    return build(model, plan, choice, length, devices, hosts, notes)


def _shape_summary(shape: ModelShape) -> dict[str, object]:
    return {
        "config": shape.source, "architectures": list(shape.architectures),
        "model_type": shape.model_type, "layers": shape.num_layers,
        "attention_heads": shape.num_heads, "kv_heads": shape.num_kv_heads,
        "head_dim": shape.head_dim, "hidden_size": shape.hidden_size,
        "vocab_size": shape.vocab_size, "experts": shape.num_experts,
        "mla": shape.is_mla, "derived_max_model_len": shape.derived_max_len,
        "quantization": shape.quantization.method if shape.quantization else None,
        "parameters": count_params(shape).total,
    }
