"""vLLM's tensor/pipeline/expert split rules, applied to a model shape before launch.

Every rule names the vLLM 0.26.0 file and function it comes from; a FAIL here is an
exception vLLM would raise while building the model (ValueError / AssertionError from
`vllm.distributed.utils.divide`).
"""

from __future__ import annotations

from collections.abc import Callable

from vfix.preflight.model_config import ModelShape
from vfix.preflight.plan import Plan
from vfix.preflight.result import CheckResult
from vfix.vocabulary import Layer, Verdict

# vllm/model_executor/layers/vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE
VOCAB_PADDING = 64
MARLIN_MIN_THREAD_N = 64  # vllm/model_executor/layers/quantization/utils/marlin_utils.py
MARLIN_MIN_THREAD_K = 128

SRC_HEADS = "vllm/config/model.py ModelConfig.verify_with_parallel_config"
SRC_QKV = "vllm/model_executor/layers/linear.py QKVParallelLinear.__init__ (divide)"
SRC_KV_PER_GPU = "vllm/config/model.py ModelConfig.get_num_kv_heads"
SRC_MLP = ("vllm/model_executor/layers/linear.py MergedColumnParallelLinear / "
           "RowParallelLinear (divide)")
SRC_MOE = "vllm/model_executor/layers/fused_moe/config.py FusedMoEConfig.__post_init__"
SRC_EP = ("vllm/model_executor/layers/fused_moe/expert_map_manager.py determine_expert_map; "
          "fused_moe/layer.py (EPLB needs experts % ep_size == 0)")
SRC_VOCAB = ("vllm/model_executor/layers/vocab_parallel_embedding.py "
             "VocabParallelEmbedding.__init__ (pad_vocab_size to 64, divide by TP)")
SRC_PP = "vllm/distributed/utils.py get_pp_indices"
SRC_FP8_LINEAR = ("vllm/model_executor/layers/quantization/utils/fp8_utils.py "
                  "validate_fp8_block_shape")
SRC_FP8_MOE = "vllm/model_executor/layers/quantization/fp8.py Fp8MoEMethod.create_weights"
SRC_GROUP = ("vllm/model_executor/layers/quantization/auto_awq.py BaseAWQLinearMethod."
             "create_weights; quantization/utils/marlin_utils.py verify_marlin_supports_shape")


def check_partitioning(shape: ModelShape, plan: Plan) -> list[CheckResult]:
    """All partitioning verdicts for `plan` (TP, PP, EP) on `shape`."""
    checks: list[Callable[[ModelShape, Plan], CheckResult | None]] = [
        _attention_heads, _kv_heads, _dense_mlp, _moe_experts, _vocab, _pipeline_layers,
        _quantized_shards,
    ]
    return [result for check in checks if (result := check(shape, plan)) is not None]


def tp_failures(shape: ModelShape, tp: int, enable_expert_parallel: bool = False) -> list[str]:
    """The reasons `tp` cannot work for this model (empty: it can)."""
    plan = Plan(tp=tp, enable_expert_parallel=enable_expert_parallel)
    return [r.reason for r in check_partitioning(shape, plan) if r.verdict is Verdict.FAIL]


def valid_tp_sizes(shape: ModelShape, limit: int,
                   enable_expert_parallel: bool = False) -> list[int]:
    return [tp for tp in range(1, limit + 1)
            if not tp_failures(shape, tp, enable_expert_parallel)]


def _result(check: str, verdict: Verdict, reason: str, source: str) -> CheckResult:
    return CheckResult(check=check, layer=Layer.PARTITIONING, verdict=verdict, reason=reason,
                       source=source)


def _attention_heads(shape: ModelShape, plan: Plan) -> CheckResult:
    heads, tp = shape.num_heads, plan.tp
    if heads % tp:
        return _result("tp-attention-heads", Verdict.FAIL,
                       f"{heads} attention heads are not divisible by TP={tp} (vLLM raises "
                       f"'Total number of attention heads ({heads}) must be divisible by tensor "
                       f"parallel size ({tp})')", SRC_HEADS)
    return _result("tp-attention-heads", Verdict.PASS,
                   f"{heads} attention heads / TP={tp} = {heads // tp} per GPU", SRC_HEADS)


def _kv_heads(shape: ModelShape, plan: Plan) -> CheckResult:
    tp, kv = plan.tp, shape.num_kv_heads
    if shape.is_mla:
        return _result("tp-kv-heads", Verdict.PASS,
                       f"MLA ({shape.model_type}): one latent KV entry of "
                       f"{shape.kv_head_dim} per token, replicated on every TP rank",
                       SRC_KV_PER_GPU)
    if tp >= kv:
        if tp % kv:
            return _result("tp-kv-heads", Verdict.FAIL,
                           f"TP={tp} exceeds the {kv} KV heads but is not a multiple of it: "
                           f"vLLM replicates KV heads only a whole number of times", SRC_QKV)
        if tp > kv:
            return _result("tp-kv-heads", Verdict.PASS,
                           f"{kv} KV heads < TP={tp}: each KV head replicated {tp // kv}x, "
                           f"1 per GPU (KV cache per GPU does not shrink beyond TP={kv})",
                           f"{SRC_QKV}; {SRC_KV_PER_GPU}")
    elif kv % tp:
        return _result("tp-kv-heads", Verdict.FAIL,
                       f"{kv} KV heads are not divisible by TP={tp} (divide() assertion "
                       f"'{kv} is not divisible by {tp}')", SRC_QKV)
    return _result("tp-kv-heads", Verdict.PASS,
                   f"{kv} KV heads / TP={tp} = {max(1, kv // tp)} per GPU", SRC_QKV)


def _dense_mlp(shape: ModelShape, plan: Plan) -> CheckResult | None:
    widths: dict[str, int] = {}
    if not shape.is_moe or shape.first_dense_layers:
        widths["intermediate_size"] = shape.intermediate_size
    if shape.shared_expert_intermediate_size:
        widths["shared expert intermediate size"] = shape.shared_expert_intermediate_size
    if not widths:
        return None
    bad = {name: width for name, width in widths.items() if width % plan.tp}
    if bad:
        name, width = next(iter(bad.items()))
        return _result("tp-mlp", Verdict.FAIL,
                       f"{name} {width} is not divisible by TP={plan.tp}", SRC_MLP)
    text = ", ".join(f"{name} {width}/{plan.tp}={width // plan.tp}"
                     for name, width in widths.items())
    return _result("tp-mlp", Verdict.PASS, text, SRC_MLP)


def _moe_experts(shape: ModelShape, plan: Plan) -> CheckResult | None:
    if not shape.is_moe:
        if plan.enable_expert_parallel:
            return _result("moe-experts", Verdict.FAIL,
                           "--enable-expert-parallel on a model with no experts (vLLM: "
                           "'Number of experts in the model must be greater than 0')",
                           "vllm/config/model.py ModelConfig._verify_with_expert_parallelism")
        return None
    experts, width = shape.num_experts, shape.expert_intermediate_size
    if plan.enable_expert_parallel:
        ep = plan.tp  # data parallel size 1: ep_size = tp_size x dp_size
        if experts < ep:
            return _result("moe-experts", Verdict.FAIL,
                           f"{experts} experts cannot give each of {ep} EP ranks one", SRC_EP)
        if experts % ep:
            return _result("moe-experts", Verdict.WARN,
                           f"{experts} experts over {ep} EP ranks is uneven "
                           f"({experts // ep}-{experts // ep + 1} per GPU); EPLB would refuse it",
                           SRC_EP)
        return _result("moe-experts", Verdict.PASS,
                       f"{experts} experts / EP={ep} = {experts // ep} per GPU, each whole",
                       SRC_EP)
    if width % plan.tp:
        return _result("moe-experts", Verdict.FAIL,
                       f"expert intermediate size {width} is not divisible by TP={plan.tp} "
                       f"(FusedMoEConfig asserts intermediate_size % tp_size == 0); "
                       f"try --enable-expert-parallel", SRC_MOE)
    return _result("moe-experts", Verdict.PASS,
                   f"{experts} experts, each TP-split: {width}/{plan.tp}={width // plan.tp}",
                   SRC_MOE)


def padded_vocab(vocab: int) -> int:
    return -(-vocab // VOCAB_PADDING) * VOCAB_PADDING


def _vocab(shape: ModelShape, plan: Plan) -> CheckResult:
    padded = padded_vocab(shape.vocab_size)
    if padded % plan.tp:
        return _result("tp-vocab", Verdict.FAIL,
                       f"vocab {shape.vocab_size} padded to {padded} is not divisible by "
                       f"TP={plan.tp}", SRC_VOCAB)
    return _result("tp-vocab", Verdict.PASS,
                   f"vocab {shape.vocab_size} padded to {padded}: {padded // plan.tp} rows "
                   f"per GPU", SRC_VOCAB)


def pp_partition(num_layers: int, pp: int) -> list[int]:
    """Layers per pipeline stage exactly as vLLM's get_pp_indices splits them."""
    partitions = [num_layers // pp] * pp
    remaining = num_layers % pp
    for i in range(2, remaining + 2):
        partitions[-i] += 1
    return partitions


def _pipeline_layers(shape: ModelShape, plan: Plan) -> CheckResult | None:
    if plan.pp == 1:
        return None
    layers = shape.num_layers
    if layers < plan.pp:
        return _result("pp-layers", Verdict.FAIL,
                       f"{layers} layers cannot fill {plan.pp} pipeline stages", SRC_PP)
    split = pp_partition(layers, plan.pp)
    even = len(set(split)) == 1
    return _result("pp-layers", Verdict.PASS,
                   f"{layers} layers over PP={plan.pp}: {split}"
                   + ("" if even else " (uneven; VLLM_PP_LAYER_PARTITION overrides)"), SRC_PP)


def _quantized_shards(shape: ModelShape, plan: Plan) -> CheckResult | None:
    quant = shape.quantization
    if quant is None:
        return None
    problems: list[str] = []
    source = ""
    if quant.block is not None:
        problems, source = _fp8_block_problems(shape, plan, quant.block), \
            f"{SRC_FP8_LINEAR}; {SRC_FP8_MOE}"
    elif quant.group_size and plan.tp > 1:
        problems, source = _group_problems(shape, plan, quant.group_size), SRC_GROUP
    else:
        return None
    if problems:
        return _result("quant-shards", Verdict.FAIL,
                       f"{quant.method} weights cannot be split by TP={plan.tp}: "
                       + "; ".join(problems), source)
    return _result("quant-shards", Verdict.PASS,
                   f"{quant.method} blocks/groups stay whole at TP={plan.tp}", source)


def _fp8_block_problems(shape: ModelShape, plan: Plan, block: tuple[int, int]) -> list[str]:
    block_n, block_k = block
    tp = plan.tp
    problems: list[str] = []
    if shape.is_moe:
        moe_tp = 1 if plan.enable_expert_parallel else tp
        width = shape.expert_intermediate_size // moe_tp if \
            shape.expert_intermediate_size % moe_tp == 0 else 0
        if width and width % block_n:
            problems.append(f"expert gate/up output {width} % block_n {block_n} != 0")
        if width and moe_tp > 1 and width % block_k:
            problems.append(f"expert down input {width} % block_k {block_k} != 0")
    if tp == 1:
        return problems
    dense = {}
    if not shape.is_moe or shape.first_dense_layers:
        dense["gate/up output, down input"] = shape.intermediate_size
    if shape.shared_expert_intermediate_size:
        dense["shared expert gate/up output, down input"] = shape.shared_expert_intermediate_size
    for name, size in dense.items():
        if size % tp == 0 and (size // tp) % block_n:
            problems.append(f"{name} {size // tp} % block {block_n} != 0")
    if not shape.is_mla and shape.num_heads % tp == 0:
        q_out = shape.num_heads // tp * shape.head_dim
        if q_out % block_n:
            problems.append(f"q/o projection shard {q_out} % block {block_n} != 0")
    return problems


def _group_problems(shape: ModelShape, plan: Plan, group: int) -> list[str]:
    tp = plan.tp
    problems: list[str] = []
    row_inputs: dict[str, int] = {}
    if shape.num_heads % tp == 0:
        row_inputs["o_proj input"] = shape.num_heads // tp * shape.head_dim
    if (not shape.is_moe or shape.first_dense_layers) and shape.intermediate_size % tp == 0:
        row_inputs["down_proj input"] = shape.intermediate_size // tp
    if shape.is_moe and not plan.enable_expert_parallel \
            and shape.expert_intermediate_size % tp == 0:
        row_inputs["expert down input"] = shape.expert_intermediate_size // tp
    for name, size in row_inputs.items():
        if size % group:
            problems.append(f"{name} {size} % group_size {group} != 0")
        elif size % MARLIN_MIN_THREAD_K:
            problems.append(f"{name} {size} % Marlin min_thread_k {MARLIN_MIN_THREAD_K} != 0")
    return problems
