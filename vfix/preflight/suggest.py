"""The `vllm serve` command line and environment preflight expects to work."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from vfix.facts.model import HostFacts
from vfix.preflight.memory import estimate
from vfix.preflight.model_config import ModelShape, config_path
from vfix.preflight.partitioning import tp_failures, valid_tp_sizes
from vfix.preflight.plan import DEFAULT_PORT, Plan
from vfix.preflight.result import Suggestion


@dataclass(frozen=True)
class Choice:
    """The parallel plan preflight recommends, and why it differs from the one asked for."""

    tp: int
    enable_expert_parallel: bool
    notes: tuple[str, ...]


def choose_tp(shape: ModelShape, plan: Plan, gpus_per_node: int | None) -> Choice:
    if not tp_failures(shape, plan.tp, plan.enable_expert_parallel):
        return Choice(plan.tp, plan.enable_expert_parallel, ())
    if shape.is_moe and not plan.enable_expert_parallel \
            and not tp_failures(shape, plan.tp, enable_expert_parallel=True):
        return Choice(plan.tp, True, (f"TP={plan.tp} cannot split the experts (see the FAIL "
                                      f"above); expert parallelism places whole experts instead",))
    limit = max(plan.tp, gpus_per_node or 0)
    valid = valid_tp_sizes(shape, limit, plan.enable_expert_parallel)
    below = [tp for tp in valid if tp <= plan.tp]
    tp = below[-1] if below else (valid[0] if valid else 1)
    return Choice(tp, plan.enable_expert_parallel,
                  (f"TP={plan.tp} is invalid for this model; valid TP sizes up to {limit}: "
                   f"{valid}",))


def grow_tp_for_memory(shape: ModelShape, plan: Plan, choice: Choice, total_bytes: float,
                       max_len: int, limit: int) -> Choice:
    """The smallest valid TP >= the chosen one (up to `limit`) whose KV cache holds one
    `max_len` request; the chosen one when none does."""
    for tp in valid_tp_sizes(shape, limit, choice.enable_expert_parallel):
        if tp < choice.tp:
            continue
        trial = replace(plan, tp=tp, enable_expert_parallel=choice.enable_expert_parallel)
        if estimate(shape, trial, total_bytes).kv_tokens >= max_len:
            if tp == choice.tp:
                return choice
            why = (f"TP={choice.tp} leaves no KV cache room for one {max_len}-token request; "
                   f"TP={tp} does")
            return Choice(tp, choice.enable_expert_parallel, (*choice.notes, why))
    return choice


def model_argument(model: str | Path) -> str:
    return str(config_path(model).parent)


def socket_interface(facts: HostFacts) -> str | None:
    """An up, non-loopback interface with an address: what NCCL/Gloo should bind across nodes."""
    for interface in facts.system.interfaces:
        if interface.kind != "loopback" and interface.name != "lo" \
                and interface.state == "up" and interface.addresses:
            return interface.name
    return None


def build(model: str | Path, plan: Plan, choice: Choice, max_model_len: int | None,
          cuda_visible_devices: list[int] | None, hosts: list[HostFacts],
          extra_notes: list[str]) -> Suggestion:
    argv = ["vllm", "serve", model_argument(model), "--tensor-parallel-size", str(choice.tp)]
    if plan.pp > 1:
        argv += ["--pipeline-parallel-size", str(plan.pp)]
    if max_model_len is not None:
        argv += ["--max-model-len", str(max_model_len)]
    argv += ["--gpu-memory-utilization", f"{plan.gpu_memory_utilization:g}"]
    if plan.dtype != "auto":
        argv += ["--dtype", plan.dtype]
    if plan.kv_cache_dtype != "auto":
        argv += ["--kv-cache-dtype", plan.kv_cache_dtype]
    if plan.max_num_seqs is not None:
        argv += ["--max-num-seqs", str(plan.max_num_seqs)]
    if choice.enable_expert_parallel:
        argv.append("--enable-expert-parallel")
    if plan.enforce_eager:
        argv.append("--enforce-eager")
    if plan.port != DEFAULT_PORT:
        argv += ["--port", str(plan.port)]
    if len(hosts) > 1:
        argv += ["--distributed-executor-backend", "ray"]
    env: dict[str, str] = {}
    if cuda_visible_devices:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in cuda_visible_devices)
    elif plan.cuda_visible_devices is not None and not hosts:
        env["CUDA_VISIBLE_DEVICES"] = plan.cuda_visible_devices
    notes = list(choice.notes) + extra_notes
    if len(hosts) > 1:
        interface = socket_interface(hosts[0])
        if interface:
            env["NCCL_SOCKET_IFNAME"] = interface
            env["GLOO_SOCKET_IFNAME"] = interface
        notes.append(f"{len(hosts)} nodes: start a Ray cluster across them first (ray start "
                     f"--head on the first node, ray start --address on the others), then run "
                     f"this on the head node")
    return Suggestion(argv=tuple(argv), env=env, notes=tuple(notes))
