"""Run the validation playbooks and judge what they leave in the run directory.

    report = validate_nccl(inventory, limit=None, out=Path(".vfix/runs/.../validate-nccl"))

Each playbook writes per-host files under `out/<host>/`; judging reads only those files, so
a saved directory can be re-judged later (`judge_*_dir`). Hosts that Ansible could not reach
or where the role failed become FAIL results with the reason, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vfix.errors import VfixError
from vfix.facts import HostFacts
from vfix.findings import Evidence, Finding, Remediation
from vfix.validate import allreduce_verdict, nccl_verdict, vllm_verdict
from vfix.validate.model import NodeResult, ValidationReport
from vfix.validate.nccl_output import NcclRun, parse_file
from vfix.vocabulary import Layer, Severity

NODE_SCRIPTS = Path(__file__).resolve().parent / "node"


def nccl_home_from_facts(facts: HostFacts) -> str | None:
    """The NCCL the node's torch loads (its directory above lib/), or None when unknown."""
    libraries = sorted(facts.versions.nccl, key=lambda lib: not lib.loaded_by_torch)
    for library in libraries:
        path = Path(library.path)
        if not library.loaded_by_torch:
            continue
        if path.parent.name in ("lib", "lib64"):
            return str(path.parent.parent)
        if path.parts[1:3] == ("usr", "lib"):  # /usr/lib/<triplet>/libnccl.so.2: libnccl-dev
            return "/usr"
    return None


def _host_failures(result: Any) -> dict[str, str]:
    return {host: f"{r.status.value}: {r.reason or 'no reason given'}"
            + (f" (task: {r.failed_task})" if r.failed_task else "")
            for host, r in result.hosts.items() if not r.status.succeeded}


def _failed_node(host: str, check: str, reason: str) -> NodeResult:
    layer = Layer.NETWORK if reason.startswith("unreachable") else Layer.OTHER
    return NodeResult(host, [Finding(
        check=f"{check}[role-failed]", host=host, layer=layer, severity=Severity.ERROR,
        message=f"the validation role did not complete: {reason}",
        evidence=[Evidence(source="ansible", lines=[reason])],
        remediation=Remediation.by_hand("fix what the reason names, then rerun"))])


def _merge_failures(report: ValidationReport, failures: Mapping[str, str],
                    check: str) -> ValidationReport:
    failed = {host for host in failures}
    nodes = [n for n in report.nodes if n.host not in failed]
    nodes += [_failed_node(host, check, reason) for host, reason in sorted(failures.items())]
    return ValidationReport(kind=report.kind, nodes=sorted(nodes, key=lambda n: n.host),
                            notes=report.notes, run_dir=report.run_dir)


# --- nccl-tests -------------------------------------------------------------------------------


def judge_nccl_dir(out: Path, policy: nccl_verdict.NcclPolicy | None = None,
                   hosts: list[str] | None = None) -> ValidationReport:
    """Judge `out/<host>/*_perf-*.txt|.json` as left by the nccl_tests role (or by hand)."""
    if not out.is_dir():
        raise VfixError(f"{out}: not a directory of nccl-tests outputs")
    runs: dict[str, list[NcclRun]] = {host: [] for host in hosts or []}
    for host_dir in sorted(p for p in out.iterdir() if p.is_dir() and p.name != "fleet-mpi"):
        files = sorted([*host_dir.glob("*.txt"), *host_dir.glob("*_perf*.json")])
        runs.setdefault(host_dir.name, [])
        for file in files:
            try:
                runs[host_dir.name].extend(parse_file(file))
            except VfixError:
                continue  # a run that printed no table is judged as missing output
    report = nccl_verdict.judge_nccl(runs, policy)
    return ValidationReport(kind="nccl", nodes=report.nodes, run_dir=str(out))


def validate_nccl(inventory: str | Path | None, limit: str | None, out: Path,
                  extravars: Mapping[str, Any] | None = None,
                  facts: Mapping[str, HostFacts] | None = None,
                  policy: nccl_verdict.NcclPolicy | None = None) -> ValidationReport:
    from vfix.ansible.runner import run_playbook

    homes = {host: home for host, f in (facts or {}).items()
             if (home := nccl_home_from_facts(f)) is not None}
    variables = {"nccl_tests_output_dir": str(out.resolve()),
                 "nccl_tests_nccl_home_by_host": homes, **(extravars or {})}
    result = run_playbook("validate_nccl", inventory, limit=limit, extravars=variables,
                          title="vfix validate nccl")
    out.mkdir(parents=True, exist_ok=True)
    report = judge_nccl_dir(out, policy, hosts=list(result.hosts))
    return _merge_failures(report, _host_failures(result), nccl_verdict.CHECK)


# --- torch all-reduce -------------------------------------------------------------------------


def judge_allreduce_dir(out: Path, hosts: list[str] | None = None) -> ValidationReport:
    if not out.is_dir():
        raise VfixError(f"{out}: not a directory of all-reduce results")
    names = sorted(set(hosts or []) | {p.name for p in out.iterdir() if p.is_dir()})
    attempts = [allreduce_verdict.load_attempt(out / name) for name in names]
    report = allreduce_verdict.judge_allreduce(attempts)
    return ValidationReport(kind="allreduce", nodes=report.nodes, run_dir=str(out))


def validate_allreduce(inventory: str | Path | None, limit: str | None, out: Path,
                       extravars: Mapping[str, Any] | None = None) -> ValidationReport:
    from vfix.ansible.runner import run_playbook

    variables = {"allreduce_output_dir": str(out.resolve()),
                 "allreduce_script_src": str(NODE_SCRIPTS / "allreduce_bench.py"),
                 **(extravars or {})}
    result = run_playbook("validate_allreduce", inventory, limit=limit, extravars=variables,
                          title="vfix validate allreduce")
    out.mkdir(parents=True, exist_ok=True)
    report = judge_allreduce_dir(out, hosts=list(result.hosts))
    return _merge_failures(report, _host_failures(result), allreduce_verdict.CHECK)


# --- vLLM smoke -------------------------------------------------------------------------------


def validate_vllm(inventory: str | Path | None, limit: str | None, out: Path,
                  extravars: Mapping[str, Any] | None = None,
                  policy: vllm_verdict.VllmPolicy | None = None) -> ValidationReport:
    from vfix.ansible.runner import run_playbook

    variables = {"vllm_smoke_output_dir": str(out.resolve()),
                 "vllm_smoke_script_src": str(NODE_SCRIPTS / "vllm_smoke.py"),
                 **(extravars or {})}
    result = run_playbook("validate_vllm", inventory, limit=limit, extravars=variables,
                          title="vfix validate vllm")
    out.mkdir(parents=True, exist_ok=True)
    report = vllm_verdict.judge_smoke_dir(out, policy)
    return _merge_failures(report, _host_failures(result), vllm_verdict.CHECK)
