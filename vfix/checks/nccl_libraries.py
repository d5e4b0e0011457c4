from __future__ import annotations

from collections.abc import Iterable

from vfix.checks.base import Check, Subject
from vfix.findings import Evidence, Finding, Remediation
from vfix.vocabulary import Layer, Severity


class NcclLibraries(Check):
    """One NCCL version on the node, so torch, vLLM and tools like nccl-tests agree."""

    id = "nccl-libraries"
    layer = Layer.VERSIONS
    severity = Severity.WARNING
    tags = ("nccl", "torch", "vllm")
    remediation = Remediation.by_hand(
        "Make every user load the same NCCL: align the system libnccl2 with torch's "
        "nvidia-nccl-cuXX wheel, or point vLLM (VLLM_NCCL_SO_PATH) and tools (LD_LIBRARY_PATH) at "
        "the wheel's library. Ranks on different nodes must run the same NCCL version."
    )

    def check_host(self, subject: Subject) -> Iterable[Finding]:
        versions = subject.facts.versions
        libraries = [lib for lib in versions.nccl if lib.version]
        distinct = sorted({lib.version for lib in libraries if lib.version})
        if len(distinct) < 2:
            return
        torch_lib = next((lib for lib in libraries if lib.loaded_by_torch), None)
        vllm_path = subject.facts.system.env.get("VLLM_NCCL_SO_PATH")
        vllm_lib = next((lib for lib in libraries if vllm_path and lib.path == vllm_path), None)
        vllm_lib = vllm_lib or torch_lib  # vLLM uses torch's NCCL unless VLLM_NCCL_SO_PATH says
        loaded = (
            f"torch loads {torch_lib.version} ({torch_lib.path})"
            if torch_lib
            else "which one torch loads is unknown"
        )
        if vllm_lib is not None and vllm_lib is not torch_lib:
            loaded += f", vLLM loads {vllm_lib.version} ({vllm_lib.path})"
        lines = [
            f"{lib.path}: {lib.version} [{lib.origin}{', ' + lib.package if lib.package else ''}]"
            + (" <- loaded by torch" if lib.loaded_by_torch else "")
            for lib in libraries
        ]
        yield self.finding(
            subject,
            f"{len(libraries)} NCCL libraries with versions {', '.join(distinct)}; {loaded}",
            sub="multiple",
            expected="one NCCL version",
            observed=", ".join(distinct),
            evidence=[Evidence(source="NCCL libraries found (pip, ldconfig, torch)", lines=lines)],
        )
