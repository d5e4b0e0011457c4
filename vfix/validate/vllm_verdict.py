"""Judge a vLLM smoke run (the document vfix/validate/node/vllm_smoke.py writes).

Errors: not ready (then the server log is diagnosed: layer and root cause come from
`vfix.diagnose`), ranks missing, /v1/models or a completion failing, a ramp request failing,
the server unhealthy after the ramp, TP=N disagreeing with TP=1, a teardown that left a
process or GPU memory behind. Warnings: temperature-0 repeat differing, a request past
max-model-len accepted, SIGKILL needed, GPU memory unbalanced across the TP ranks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vfix.errors import VfixError
from vfix.findings import Evidence, Finding, Remediation
from vfix.validate.model import NodeResult, Number, ValidationReport
from vfix.vocabulary import Layer, Severity

CHECK = "vllm-smoke"
MEMORY_STEP_MIB = 256  # a GPU "holds the model" when it gained more than this
Diagnoser = Callable[[list[Path]], list[tuple[str, str | None, str | None]]]


@dataclass(frozen=True)
class VllmPolicy:
    memory_balance_max: float = 1.10  # max/min GPU memory across the TP ranks
    token_agreement_min: float = 1.0  # share of generated tokens equal at TP=N and TP=1


def load_smoke(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise VfixError(f"cannot read {path}: {error.strerror}") from error
    except ValueError as error:
        raise VfixError(f"{path}: not JSON ({error})") from error
    if not isinstance(doc, dict) or doc.get("tool") != "vfix-vllm-smoke":
        raise VfixError(f"{path}: not a vfix vLLM smoke result")
    return doc


def default_diagnoser(logs: list[Path]) -> list[tuple[str, str | None, str | None]]:
    """(file, layer, root cause + first failing line) per log, from vfix.diagnose."""
    from vfix.diagnose import diagnose_paths

    out: list[tuple[str, str | None, str | None]] = []
    for diagnosis in diagnose_paths([p for p in logs if p.is_file()]):
        first = diagnosis.first_failure.text if diagnosis.first_failure else None
        cause = diagnosis.root_cause + (f": {first}" if first else "")
        out.append((diagnosis.input, diagnosis.layer, cause))
    return out


def _finding(host: str, sub: str, severity: Severity, layer: Layer, message: str,
             evidence: Iterable[Evidence] = (), remedy: str = "", expected: str | None = None,
             observed: str | None = None) -> Finding:
    return Finding(check=f"{CHECK}[{sub}]", host=host, layer=layer, severity=severity,
                   message=message, expected=expected, observed=observed,
                   evidence=list(evidence), remediation=Remediation.by_hand(remedy or
                   "read the server log (fetched into the run directory)"))


def _tokens(result: dict[str, Any] | None) -> list[int] | None:
    if not isinstance(result, dict) or result.get("status") != 200:
        return None
    ids = result.get("token_ids")
    return list(ids) if isinstance(ids, list) else None


def token_agreement(first: dict[str, Any], second: dict[str, Any]) -> tuple[int, int]:
    """(equal, total) generated tokens between two launches, completion and ramp together."""
    pairs = [(first.get("completion"), second.get("completion"))]
    pairs += list(zip(first.get("ramp") or [], second.get("ramp") or [], strict=False))
    equal = total = 0
    for a, b in pairs:
        ta, tb = _tokens(a), _tokens(b)
        if ta is None or tb is None:
            continue
        total += max(len(ta), len(tb))
        equal += sum(1 for x, y in zip(ta, tb, strict=False) if x == y)
    return equal, total


def judge_smoke(host: str, doc: dict[str, Any], log_dir: Path | None = None,
                policy: VllmPolicy | None = None,
                diagnoser: Diagnoser | None = default_diagnoser) -> NodeResult:
    policy = policy or VllmPolicy()
    findings: list[Finding] = []
    metrics: dict[str, Number] = {"tp": doc.get("tp")}
    notes: list[str] = []
    runs = doc.get("runs") or []
    for run in runs:
        _judge_run(host, run, doc, log_dir, policy, diagnoser, findings, metrics, notes)
    if len(runs) >= 2 and runs[0].get("ready") and runs[1].get("ready"):
        equal, total = token_agreement(runs[0], runs[1])
        share = equal / total if total else 0.0
        metrics["tp1_token_agreement"] = round(share, 4)
        if share < policy.token_agreement_min:
            findings.append(_finding(
                host, "tp-agreement", Severity.ERROR, Layer.PARTITIONING,
                f"TP={runs[0].get('tp')} and TP=1 agree on {equal} of {total} tokens",
                expected=f">= {policy.token_agreement_min:.0%}", observed=f"{share:.1%}",
                evidence=[Evidence(source="completion token ids", lines=[
                    f"TP={r.get('tp')}: {(r.get('completion') or {}).get('token_ids')}"
                    for r in runs[:2]])],
                remedy="check the parallel split (vfix preflight) and NCCL correctness "
                       "(vfix validate nccl)"))
    elif (doc.get("tp") or 1) > 1 and len(runs) < 2:
        notes.append("TP=1 comparison not run (needs --compare-tp1 and a ready TP=N server)")
    return NodeResult(host, findings, metrics, notes)


def _judge_run(host: str, run: dict[str, Any], doc: dict[str, Any], log_dir: Path | None,
               policy: VllmPolicy, diagnoser: Diagnoser | None, findings: list[Finding],
               metrics: dict[str, Number], notes: list[str]) -> None:
    tp = int(run.get("tp") or 1)
    prefix = f"tp{tp}."
    log_name = Path(str(run.get("log") or f"vllm-serve-tp{tp}.log")).name
    log = (log_dir / log_name) if log_dir else Path(str(run.get("log") or log_name))
    metrics[prefix + "ready_s"] = run.get("ready_s")
    if not run.get("ready"):
        layer, cause = Layer.OTHER, str(run.get("reason") or "not ready")
        if diagnoser is not None and log.is_file():
            for _, diag_layer, root in diagnoser([log]):
                if diag_layer in {item.value for item in Layer}:
                    layer = Layer(diag_layer)
                cause = f"{cause}; diagnosis: {root}"
        findings.append(_finding(
            host, "not-ready", Severity.ERROR, layer,
            f"TP={tp}: server never became healthy ({cause})",
            evidence=[Evidence(source=str(log), lines=[str(run.get("reason") or "")])],
            remedy="vfix diagnose on the server log names the first failing process"))
    else:
        _judge_serving(host, run, tp, doc, findings, metrics, notes)
    _judge_memory(host, run, tp, policy, findings, metrics, notes)
    _judge_teardown(host, run, tp, findings)


def _judge_serving(host: str, run: dict[str, Any], tp: int, doc: dict[str, Any],
                   findings: list[Finding], metrics: dict[str, Number], notes: list[str]) -> None:
    prefix = f"tp{tp}."
    ranks = run.get("ranks") or {}
    seen = ranks.get("ranks") or []
    if ranks.get("world_size") is None:
        notes.append(f"TP={tp}: no rank lines in the log; ranks not verified")
    elif sorted(seen) != list(range(tp)) or ranks.get("world_size") != tp:
        findings.append(_finding(
            host, "ranks", Severity.ERROR, Layer.COMMUNICATION,
            f"TP={tp}: ranks initialised {seen} of world size {ranks.get('world_size')}",
            expected=str(list(range(tp))), observed=str(seen),
            evidence=[Evidence(source=str(run.get("log")), lines=[
                "rank N in world size M is assigned as ..."])]))
    metrics[prefix + "ranks"] = len(seen)
    if run.get("models_status") != 200 or not run.get("models"):
        findings.append(_finding(host, "models", Severity.ERROR, Layer.OTHER,
                                 f"TP={tp}: GET /v1/models returned {run.get('models_status')}",
                                 observed=str(run.get("models"))))
    first, again = run.get("completion") or {}, run.get("repeat") or {}
    tokens = _tokens(first)
    metrics[prefix + "completion_tokens"] = len(tokens) if tokens is not None else None
    metrics[prefix + "completion_s"] = first.get("seconds")
    if tokens is None and not (first.get("status") == 200 and first.get("text")):
        findings.append(_finding(
            host, "completion", Severity.ERROR, Layer.OTHER,
            f"TP={tp}: completion failed (HTTP {first.get('status')})",
            evidence=[Evidence(source="POST /v1/completions",
                               lines=[str(first.get("error") or "no token ids")[:300]])]))
    elif _tokens(again) != tokens:
        findings.append(_finding(
            host, "nondeterministic", Severity.WARNING, Layer.OTHER,
            f"TP={tp}: the same temperature-0 seeded request gave different tokens",
            evidence=[Evidence(source="POST /v1/completions", lines=[
                f"first {tokens}", f"again {_tokens(again)}"])]))
    ramp = run.get("ramp") or []
    failed = [r for r in ramp if r.get("status") != 200]
    metrics[prefix + "ramp_max_prompt"] = max((r.get("prompt_len") or 0 for r in ramp
                                               if r.get("status") == 200), default=0)
    if failed:
        findings.append(_finding(
            host, "ramp", Severity.ERROR, Layer.RESOURCES,
            f"TP={tp}: {len(failed)} of {len(ramp)} ramp request(s) failed up to "
            f"max-model-len {doc.get('max_model_len')}",
            evidence=[Evidence(source="POST /v1/completions", lines=[
                f"prompt {r.get('prompt_len')}: HTTP {r.get('status')} "
                f"{str(r.get('error') or '')[:200]}" for r in failed])],
            remedy="lower --max-model-len or raise --gpu-memory-utilization (vfix preflight)"))
    past = run.get("past_limit") or {}
    if past.get("status") == 200:
        findings.append(_finding(
            host, "past-limit", Severity.WARNING, Layer.RESOURCES,
            f"TP={tp}: a prompt past max-model-len was accepted",
            observed=f"prompt {past.get('prompt_len')}: HTTP 200"))
    if run.get("health_after_ramp") != 200:
        findings.append(_finding(
            host, "health-after-ramp", Severity.ERROR, Layer.RESOURCES,
            f"TP={tp}: /health returned {run.get('health_after_ramp')} after the ramp"))


def _judge_memory(host: str, run: dict[str, Any], tp: int, policy: VllmPolicy,
                  findings: list[Finding], metrics: dict[str, Number], notes: list[str]) -> None:
    before, loaded = run.get("memory_before_mib"), run.get("memory_loaded_mib")
    if not isinstance(before, dict) or not isinstance(loaded, dict):
        if run.get("ready"):
            notes.append(f"TP={tp}: no NVML/nvidia-smi: GPU memory not observed")
        return
    gained = {gpu: loaded.get(gpu, 0) - before.get(gpu, 0) for gpu in loaded}
    used = {gpu: mib for gpu, mib in gained.items() if mib > MEMORY_STEP_MIB}
    for gpu, mib in sorted(used.items()):
        metrics[f"tp{tp}.gpu{gpu}_mib"] = mib
    if len(used) < tp:
        findings.append(_finding(
            host, "memory-balance", Severity.WARNING, Layer.VISIBILITY,
            f"TP={tp}: only {len(used)} GPU(s) gained memory",
            observed=json.dumps(gained)))
        return
    if len(used) >= 2:
        ratio = max(used.values()) / max(1, min(used.values()))
        metrics[f"tp{tp}.memory_balance"] = round(ratio, 3)
        if ratio > policy.memory_balance_max:
            findings.append(_finding(
                host, "memory-balance", Severity.WARNING, Layer.RESOURCES,
                f"TP={tp}: GPU memory max/min {ratio:.2f} across ranks",
                expected=f"<= {policy.memory_balance_max}", observed=json.dumps(used)))


def _judge_teardown(host: str, run: dict[str, Any], tp: int, findings: list[Finding]) -> None:
    teardown = run.get("teardown") or {}
    remaining = teardown.get("remaining_pids") or []
    if remaining:
        findings.append(_finding(
            host, "teardown", Severity.ERROR, Layer.RESOURCES,
            f"TP={tp}: {len(remaining)} process(es) of the server survived teardown",
            observed=str(remaining), remedy="role gpu_processes stops stale GPU processes"))
    elif teardown.get("leftover_pids"):
        findings.append(_finding(
            host, "teardown-sigkill", Severity.WARNING, Layer.RESOURCES,
            f"TP={tp}: {len(teardown['leftover_pids'])} process(es) ignored SIGTERM "
            f"and were killed", observed=str(teardown["leftover_pids"])))
    before, after = run.get("memory_before_mib"), teardown.get("memory_after_mib")
    if isinstance(before, dict) and isinstance(after, dict):
        held = {gpu: after.get(gpu, 0) - before.get(gpu, 0) for gpu in after
                if after.get(gpu, 0) - before.get(gpu, 0) > MEMORY_STEP_MIB}
        if held:
            findings.append(_finding(
                host, "teardown-memory", Severity.ERROR, Layer.RESOURCES,
                f"TP={tp}: GPU memory still held after teardown", observed=json.dumps(held),
                remedy="role gpu_processes stops stale GPU processes"))


def judge_smoke_dir(out_dir: Path, policy: VllmPolicy | None = None,
                    diagnoser: Diagnoser | None = default_diagnoser) -> ValidationReport:
    """Judge every host directory the vllm_smoke role filled under `out_dir`."""
    nodes = []
    for host_dir in sorted(p for p in out_dir.iterdir() if p.is_dir()):
        result = host_dir / "result.json"
        if result.is_file():
            nodes.append(judge_smoke(host_dir.name, load_smoke(result), host_dir, policy,
                                     diagnoser))
            continue
        driver = _read_json(host_dir / "driver.json")
        nodes.append(NodeResult(host_dir.name, [_finding(
            host_dir.name, "no-result", Severity.ERROR, Layer.OTHER,
            f"the smoke driver left no result (rc {driver.get('rc')})",
            evidence=[Evidence(source=str(host_dir / "driver.json"), lines=[
                line for line in str(driver.get("stderr") or "").splitlines()[-5:]])])]))
    return ValidationReport(kind="vllm", nodes=nodes, run_dir=str(out_dir))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}
