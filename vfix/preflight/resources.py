"""Resources: GPU memory fit, free memory at start, /dev/shm and the API port."""

from __future__ import annotations

from vfix.facts.model import HostFacts
from vfix.preflight.memory import GIB, MemoryEstimate, largest_fitting_len
from vfix.preflight.plan import Plan
from vfix.preflight.result import CheckResult, Skipped
from vfix.vocabulary import Layer, Verdict

MIB = 1024**2
# vllm/distributed/device_communicators/shm_broadcast.py MessageQueue: 10 chunks x 24 MiB each;
# the multiproc executor's RPC broadcast and the TP group's broadcaster each hold one.
SHM_NEEDED_BYTES = 2 * 10 * 24 * MIB
SRC_KV_FIT = "vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory"
SRC_NO_KV = "vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory ('No available memory')"
SRC_FREE = "vllm/v1/worker/utils.py request_memory"
SRC_SHM = "vllm/distributed/device_communicators/shm_broadcast.py MessageQueue (10 x 24 MiB)"


def _result(check: str, verdict: Verdict, reason: str, source: str,
            host: str | None = None) -> CheckResult:
    return CheckResult(check=check, layer=Layer.RESOURCES, verdict=verdict, reason=reason,
                       source=source, host=host)


def check_memory_fit(memory: MemoryEstimate, plan: Plan, max_model_len: int,
                     derived_max_len: int) -> list[CheckResult]:
    gib = memory.as_dict()
    breakdown = (f"{gib['budget_gib']} GiB budget - {gib['weights_gib']} weights - "
                 f"{gib['activation_gib']} activation - {gib['non_torch_gib']} non-torch - "
                 f"{gib['cuda_graph_gib']} CUDA graphs = {gib['kv_cache_gib']} GiB KV cache")
    if memory.kv_available_bytes <= 0:
        return [_result("memory-fit", Verdict.FAIL,
                        f"no room for the KV cache per GPU: {breakdown}; raise TP or "
                        f"--gpu-memory-utilization", SRC_NO_KV)]
    fits = largest_fitting_len(memory, derived_max_len)
    results = []
    if memory.kv_tokens < max_model_len:
        results.append(_result(
            "memory-fit", Verdict.FAIL,
            f"one {max_model_len}-token request needs "
            f"{memory.kv_bytes_per_token * max_model_len / GIB:.2f} GiB KV cache per GPU but "
            f"{breakdown}; largest max-model-len that fits: {fits}", SRC_KV_FIT))
    else:
        results.append(_result(
            "memory-fit", Verdict.PASS,
            f"{breakdown} ({memory.kv_tokens} tokens); max-model-len {max_model_len} fits, "
            f"largest that fits: {fits}", SRC_KV_FIT))
    if plan.max_num_seqs is not None and max_model_len:
        concurrent = memory.kv_tokens // max_model_len
        if concurrent < plan.max_num_seqs:
            results.append(_result(
                "kv-concurrency", Verdict.WARN,
                f"KV cache holds {concurrent} full-length ({max_model_len}-token) requests, "
                f"fewer than --max-num-seqs {plan.max_num_seqs}: the rest wait or are preempted",
                "vllm/v1/core/kv_cache_utils.py ('Maximum concurrency for N tokens per request')"))
        else:
            results.append(_result(
                "kv-concurrency", Verdict.PASS,
                f"KV cache holds {concurrent} full-length requests >= --max-num-seqs "
                f"{plan.max_num_seqs}", "vllm/v1/core/kv_cache_utils.py"))
    return results


def check_free_memory(facts: HostFacts, gpu_indices: list[int], plan: Plan) -> CheckResult | None:
    """vLLM refuses to start when a GPU's free memory is below utilization x total."""
    short = []
    for gpu in facts.gpus:
        if gpu.index not in gpu_indices or not gpu.memory_total_mib \
                or gpu.memory_used_mib is None:
            continue
        free = gpu.memory_total_mib - gpu.memory_used_mib
        wanted = plan.gpu_memory_utilization * gpu.memory_total_mib
        if free < wanted:
            short.append(f"GPU {gpu.index} has {free} MiB free < {wanted:.0f} MiB "
                         f"({plan.gpu_memory_utilization} x {gpu.memory_total_mib})")
    if short:
        return _result("gpu-free-memory", Verdict.FAIL,
                       "; ".join(short) + " (other processes hold GPU memory)", SRC_FREE,
                       facts.host)
    if not any(g.index in gpu_indices and g.memory_used_mib is not None for g in facts.gpus):
        return None
    return _result("gpu-free-memory", Verdict.PASS,
                   f"GPU(s) {gpu_indices} have the requested "
                   f"{plan.gpu_memory_utilization:.0%} free", SRC_FREE, facts.host)


def check_shm(facts: HostFacts, plan: Plan) -> CheckResult | Skipped:
    size = facts.system.shm.size_bytes
    if plan.world_size == 1:
        return Skipped("shm", f"{facts.host}: TP x PP = 1, vLLM's single-process executor uses "
                              f"no shared-memory queues")
    if size is None:
        return Skipped("shm", f"{facts.host}: /dev/shm size not in facts")
    if size < SHM_NEEDED_BYTES:
        return _result("shm", Verdict.FAIL,
                       f"/dev/shm is {size // MIB} MiB; TP/PP workers need >= "
                       f"{SHM_NEEDED_BYTES // MIB} MiB for vLLM's shared-memory queues "
                       f"(containers: --ipc=host or --shm-size)", SRC_SHM, facts.host)
    return _result("shm", Verdict.PASS, f"/dev/shm is {size // MIB} MiB", SRC_SHM, facts.host)


def check_port(facts: HostFacts, plan: Plan) -> CheckResult:
    users = [p for p in facts.processes.listening if p.port == plan.port]
    if users:
        who = ", ".join(f"{p.process or 'pid ' + str(p.pid)} on {p.address}" for p in users)
        return _result("port", Verdict.FAIL,
                       f"port {plan.port} is already listening ({who}): the API server cannot "
                       f"bind it", "vllm serve --port", facts.host)
    return _result("port", Verdict.PASS, f"port {plan.port} is free", "vllm serve --port",
                   facts.host)
