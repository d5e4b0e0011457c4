"""Every signature loads, is documented, and has logs that must and must not trigger it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vfix.diagnose import diagnose_text
from vfix.diagnose.signatures import ROLES, load_signatures, parse_signatures
from vfix.errors import VfixError
from vfix.vocabulary import Layer

EXAMPLES = yaml.safe_load((Path(__file__).parent / "signature_examples.yaml").read_text())
SIGNATURES = {s.id: s for s in load_signatures()}
ISSUE_VOCABULARY = {
    "tp_heads_indivisible", "tp_kv_heads_indivisible", "tp_dimension_indivisible",
    "gpu_count_insufficient", "cuda_visible_devices_invalid", "mig_unsupported",
    "duplicate_gpu_assignment", "p2p_unsupported_or_blocked", "iommu_acs_blocks_p2p",
    "custom_allreduce_failure", "nccl_timeout_rank_died", "nccl_internal_error",
    "ib_unavailable", "ib_hca_unusable", "ib_memory_registration_failed", "rdma_device_missing",
    "socket_ifname_wrong", "ray_cluster_incomplete", "port_in_use", "shm_too_small",
    "gpu_oom_weights", "kv_cache_insufficient", "max_model_len_too_large",
    "cudagraph_capture_oom", "stale_gpu_process", "cuda_driver_too_old", "nccl_cuda_mismatch",
    "nccl_library_load_failed", "nccl_version_bug", "driver_mismatch_reboot_required",
}


def test_every_signature_has_examples_both_ways() -> None:
    assert set(EXAMPLES) == set(SIGNATURES)
    for signature_id, examples in EXAMPLES.items():
        assert examples["match"], signature_id
        assert examples["no_match"], signature_id


def test_signatures_cover_the_issue_vocabulary() -> None:
    covered = {s.root_cause for s in SIGNATURES.values()}
    assert covered >= ISSUE_VOCABULARY, ISSUE_VOCABULARY - covered


def test_signatures_are_complete() -> None:
    for signature in SIGNATURES.values():
        assert signature.layer in Layer
        assert signature.explanation and signature.source
        assert signature.fix or signature.kind != "cause", signature.id
        for step in signature.fix:
            assert step.role is None or step.role in ROLES


@pytest.mark.parametrize(
    ("signature_id", "log"),
    [(sid, log) for sid, ex in EXAMPLES.items() for log in ex["match"]],
)
def test_signature_matches(signature_id: str, log: str) -> None:
    found = {c.signature for c in diagnose_text(log).candidates}
    # One candidate per root cause: a better-ranked signature of the same cause may speak.
    causes = {c.root_cause for c in diagnose_text(log).candidates}
    assert signature_id in found or SIGNATURES[signature_id].root_cause in causes, found


@pytest.mark.parametrize(
    ("signature_id", "log"),
    [(sid, log) for sid, ex in EXAMPLES.items() for log in ex["no_match"]],
)
def test_signature_ignores_look_alikes(signature_id: str, log: str) -> None:
    found = {c.signature for c in diagnose_text(log).candidates}
    assert signature_id not in found


def test_broken_signature_file_is_one_clear_error() -> None:
    with pytest.raises(VfixError, match=r"signature file bad\.yaml"):
        parse_signatures("- id: x\n  root_cause: y\n  layer: nowhere\n", "bad.yaml")
    with pytest.raises(VfixError, match="unknown vfix role"):
        parse_signatures(
            "- {id: x, root_cause: y, layer: other, confidence: 0.5, source: here,"
            " explanation: long enough text, match: [{keyword: abcd}],"
            " fix: [{step: do a thing, role: nosuchrole}]}\n", "bad.yaml")
