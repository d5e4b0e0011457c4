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
    with pytest.raises(VfixError, match="duplicate key 'regex'"):  # YAML would keep the last
        parse_signatures(
            "- id: x\n  match:\n    - keyword: abcd\n      regex: a\n      regex: b\n", "bad.yaml")


# Ranking semantics: the concrete cause wins over what followed from it and over notes.
RANKED = [
    (  # a kernel fault is what the other ranks saw; the Xid is why
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n",
        "gpu_hardware_fault",
    ),
    (  # the watchdog timeout comes first in the file, the shm failure explains it
        "[rank1]:[E ProcessGroupNCCL.cpp:1] [Rank 1] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600123 milliseconds before timing out.\n"
        "host:1:2 [0] misc/shmutils.cc:842 NCCL WARN Error while creating shared memory segment"
        " /dev/shm/nccl-XyZ (size 9637888), error: No space left on device (28)\n",
        "shm_too_small",
    ),
    (  # the "Last error" names the call that failed inside the generic NCCL error
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1, remote process"
        " exited or there was a network error, NCCL version 2.20.5\n"
        "ncclRemoteError: A call failed possibly due to a network error.\nLast error:\n"
        "socketStartConnect: Connect to 172.17.0.3<50207> failed :"
        " Software caused connection abort\n",
        "socket_ifname_wrong",
    ),
    (  # a known-buggy NCCL version does not hide a specific cause
        "host:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
        "host:1:2 [0] misc/ibvwrap.cc:191 NCCL WARN Call to ibv_reg_mr failed with error"
        " Cannot allocate memory\n",
        "ib_memory_registration_failed",
    ),
    (  # an INFO line that mentions a word is a note, the failure is elsewhere
        "host:1:1 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
        "RuntimeError: CUDA error: system not yet initialized\n",
        "fabric_manager_not_running",
    ),
    (  # a bare "unhandled system error" is /dev/shm only when no failing call is named
        "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
        "Last error:\nsocketStartConnect: Connect to 172.17.0.3<50207> failed :"
        " Software caused connection abort\n",
        "socket_ifname_wrong",
    ),
    (  # a SIGKILL without a reason does not hide the reason when there is one
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
        "E0101 00:00:00.000000 1 api.py:1] failed (exitcode: -9) local_rank: 0 (pid: 42)\n",
        "gpu_oom",
    ),
]


@pytest.mark.parametrize(("log", "cause"), RANKED)
def test_the_concrete_cause_wins(log: str, cause: str) -> None:
    assert diagnose_text(log).root_cause == cause


def test_a_kernel_fault_alone_is_a_consequence_in_layer_other() -> None:
    diagnosis = diagnose_text("RuntimeError: CUDA error: unspecified launch failure\n")
    assert (diagnosis.layer, diagnosis.root_cause) == ("other", "cuda_kernel_fault")
    assert diagnosis.candidates[0].kind == "consequence"


def test_each_root_cause_has_one_layer() -> None:
    layers: dict[str, set[str]] = {}
    for signature in SIGNATURES.values():
        layers.setdefault(signature.root_cause, set()).add(signature.layer.value)
    assert {cause: found for cause, found in layers.items() if len(found) > 1} == {}
