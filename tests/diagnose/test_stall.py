"""A log whose NCCL output simply stops, with no error, is reported as a P2P/ACS hang."""

from __future__ import annotations

from vfix.diagnose import diagnose_text
from vfix.diagnose.model import Status

BOOTSTRAP = (
    "host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
    "host:1:1 [0] NCCL INFO cudaDriverVersion 12040\n"
    "NCCL version 2.21.5+cuda12.4\n"
    "host:2:2 [1] NCCL INFO cudaDriverVersion 12040\n"
)
READY = (
    "host:1:3 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 47000 - Init START\n"
    "host:2:4 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 48000 - Init START\n"
    "host:1:3 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC\n"
    "host:1:3 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 47000 - Init COMPLETE\n"
    "host:2:4 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 48000 - Init COMPLETE\n"
)
PROGRESS = "Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s]\n"


def test_a_log_that_stops_after_init_complete_is_a_p2p_hang() -> None:
    diagnosis = diagnose_text(BOOTSTRAP + READY + PROGRESS)
    assert diagnosis.status is Status.CAUSE_FOUND
    assert (diagnosis.layer, diagnosis.root_cause) == ("communication",
                                                       "p2p_unsupported_or_blocked")
    top = diagnosis.candidates[0]
    assert top.signature == "nccl-stalled" and top.confidence < 0.5
    assert "Init COMPLETE" in top.explanation and "iommu_acs_blocks_p2p" in top.explanation
    assert top.evidence[0].line == 9  # the last NCCL line: where it stopped
    assert any("NCCL_P2P_DISABLE=1" in step.step for step in top.fix)
    assert diagnosis.candidates[1].root_cause == "iommu_acs_blocks_p2p"  # the alternative
    assert diagnosis.candidates[1].confidence < top.confidence


def test_a_log_that_stops_during_bootstrap_says_so() -> None:
    top = diagnose_text(BOOTSTRAP).candidates[0]
    assert top.signature == "nccl-stalled"
    assert "during bootstrap" in top.explanation


def test_a_hang_during_bootstrap_puts_a_network_nccl_gave_up_on_first() -> None:
    # before any rank is set up P2P cannot hang the run; the missing IB stack can matter
    note = "host:1:1 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
    diagnosis = diagnose_text(BOOTSTRAP + note)
    assert diagnosis.root_cause == "rdma_device_missing"
    assert diagnosis.candidates[0].kind == "cause"
    assert diagnosis.candidates[1].signature == "nccl-stalled"
    assert [c.signature for c in diagnosis.candidates].count("verbs-library-not-loaded") == 1


def test_a_finished_run_is_not_a_hang() -> None:
    done = "host:1:3 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 - Destroy COMPLETE\n"
    diagnosis = diagnose_text(BOOTSTRAP + READY + done)
    assert diagnosis.status is Status.NO_FAILURE


def test_a_server_that_keeps_logging_is_not_a_hang() -> None:
    serving = "".join(f"INFO 01-01 00:00:{i:02d} [loggers.py:1] Avg prompt throughput: 1.0\n"
                      for i in range(10))
    diagnosis = diagnose_text(BOOTSTRAP + READY + serving)
    assert diagnosis.status is Status.NO_FAILURE


def test_an_error_is_the_cause_not_the_stop() -> None:
    error = ("host:1:3 [0] misc/shmutils.cc:1 NCCL WARN Error while creating shared memory segment"
             " /dev/shm/nccl-X (size 9637888)\n")
    diagnosis = diagnose_text(BOOTSTRAP + error)
    assert diagnosis.root_cause == "shm_too_small"
    assert all(c.signature != "nccl-stalled" for c in diagnosis.candidates)


def test_a_crash_after_nccl_setup_is_a_failure_not_a_hang() -> None:
    diagnosis = diagnose_text(BOOTSTRAP + "[host:1] *** Process received signal ***\n")
    assert diagnosis.status is Status.UNKNOWN


def test_model_loading_after_init_complete_is_a_log_cut_short() -> None:
    loading = ("INFO 01-01 00:00:01 [model_runner.py:1] Starting to load model /models/x...\n"
               "INFO 01-01 00:00:09 [model_runner.py:1] Loading model weights took 12.5 GB\n")
    assert diagnose_text(BOOTSTRAP + READY + loading).status is Status.NO_FAILURE


def test_a_stuck_progress_bar_after_loading_is_still_a_hang() -> None:
    loading = "INFO 01-01 00:00:09 [model_runner.py:1] Loading model weights took 12.5 GB\n"
    diagnosis = diagnose_text(BOOTSTRAP + READY + loading + PROGRESS)
    assert diagnosis.root_cause == "p2p_unsupported_or_blocked"


def test_teardown_and_results_lines_mean_the_run_ended() -> None:
    closed = "host:1:9 [0] NCCL INFO [Service thread] Connection closed by localRank 0\n"
    table = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 21.2\n"
    aborted = ("[rank0]:[W1203 07:51:00.108484008 ProcessGroupNCCL.cpp:1575] Warning: WARNING: "
               "destroy_process_group() was not called before program exit, which can leak\n"
               "host:1:9 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 - Abort COMPLETE\n"
               "host:1:1 [0] NCCL INFO ENV/Plugin: Closing env plugin ncclEnvDefault\n")
    for ending in (closed, table, aborted):
        assert diagnose_text(BOOTSTRAP + READY + ending).status is Status.NO_FAILURE
        assert diagnose_text(BOOTSTRAP + ending).status is Status.NO_FAILURE


def test_a_progress_bar_alone_makes_no_nccl_summary() -> None:
    assert diagnose_text(PROGRESS).nccl is None


def test_a_version_banner_alone_is_not_a_hang() -> None:
    banner = "host:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda11.0\n"
    assert diagnose_text(banner).status is Status.NO_FAILURE


def test_an_excerpt_of_init_complete_lines_alone_is_still_a_hang() -> None:
    # a pasted excerpt keeps only the last lines before the hang, without Init START
    complete_only = "".join(line + "\n" for line in READY.splitlines() if "COMPLETE" in line)
    top = diagnose_text(complete_only).candidates[0]
    assert top.signature == "nccl-stalled" and "after Init COMPLETE" in top.explanation


def test_a_note_does_not_hide_a_hang() -> None:
    # NCCL falls back to sockets without libibverbs: a note, not why the run stopped
    note = "host:1:1 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
    diagnosis = diagnose_text(note + BOOTSTRAP + READY + PROGRESS)
    assert diagnosis.root_cause == "p2p_unsupported_or_blocked"
    assert "rdma_device_missing" in {c.root_cause for c in diagnosis.candidates}


def test_a_communicator_of_one_rank_that_stops_was_cut_short_not_hung() -> None:
    alone = ("host:1:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 1 cudaDev 0 "
             "nvmlDev 0 busId 1000 commId 0x7d30 - Init START\n"
             "host:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 1 nNodes 1 localRanks 1 localRank 0\n"
             "host:1:1 [0] NCCL INFO Channel 00/64 : 0\n")
    diagnosis = diagnose_text(BOOTSTRAP + alone)
    assert diagnosis.nccl is not None and diagnosis.nccl.communicator_size == 1
    assert diagnosis.status is Status.NO_FAILURE
    two = alone.replace("nranks 1", "nranks 2").replace("nRanks 1", "nRanks 2")
    assert diagnose_text(BOOTSTRAP + two).candidates[0].signature == "nccl-stalled"


def test_training_steps_at_the_end_are_a_run_that_went_on_whatever_last_names_nccl() -> None:
    ended = "step 100 | loss 2.77\nstep 5000 | loss 1.61\n# all ranks finished; NCCL was fine\n"
    assert diagnose_text(BOOTSTRAP + READY + ended).status is Status.NO_FAILURE
    assert diagnose_text(BOOTSTRAP + READY + "# NCCL was fine\n").status is Status.CAUSE_FOUND


def watchdog(sequence: int) -> str:
    return "".join(
        f"[rank{rank}]:[E1210 16:30:07.918443125 ProcessGroupNCCL.cpp:685] [Rank {rank}] Watchdog "
        f"caught collective operation timeout: WorkNCCL(SeqNum={sequence}, OpType=ALLREDUCE, "
        "NumelIn=7852545, NumelOut=7852545, Timeout(ms)=600000) ran for 600007 milliseconds "
        "before timing out.\n" for rank in (0, 1))


def test_a_watchdog_timeout_in_the_first_collectives_over_p2p_is_p2p_blocked() -> None:
    diagnosis = diagnose_text(BOOTSTRAP + READY + watchdog(2))
    assert diagnosis.root_cause == "p2p_unsupported_or_blocked"
    top = diagnosis.candidates[0]
    assert top.signature == "nccl-p2p-early-timeout"
    assert "collective 2" in top.explanation
    assert diagnosis.candidates[1].root_cause == "iommu_acs_blocks_p2p"


def test_a_watchdog_timeout_after_many_collectives_is_not_p2p() -> None:
    # the path carried 1287 collectives before: it works
    assert diagnose_text(BOOTSTRAP + READY + watchdog(1288)).root_cause == "nccl_timeout_rank_died"


def test_a_watchdog_timeout_over_the_network_is_not_p2p() -> None:
    over_ib = READY.replace("via P2P/IPC", "[send] via NET/IB/0")
    assert diagnose_text(BOOTSTRAP + over_ib + watchdog(2)).root_cause != (
        "p2p_unsupported_or_blocked")
