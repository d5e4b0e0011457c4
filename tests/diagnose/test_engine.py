"""The engine on whole logs: ranking, first failing rank, consequences, hints, robustness."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from vfix.diagnose import (
    Status,
    diagnose_paths,
    diagnose_stream,
    diagnose_text,
    firewall,
    recovery,
    scanner,
    tally,
)
from vfix.errors import VfixError

LOGS = Path(__file__).resolve().parent.parent / "data" / "logs"

# A TP=2 run where rank 1 dies of a real cause; rank 0 only times out afterwards.
INTERLEAVED = (Path(__file__).parent / "interleaved_tp2.log").read_text()


def test_first_failing_rank_is_the_cause_not_the_timeouts() -> None:
    result = diagnose_text(INTERLEAVED, name="tp2.log")
    assert result.status is Status.CAUSE_FOUND
    assert result.root_cause == "shm_too_small"
    assert result.layer == "resources"
    assert result.first_failure is not None
    assert result.first_failure.line == 5
    assert result.first_failure.source == "VllmWorker rank=1 pid=101"
    kinds = [(c.root_cause, c.kind) for c in result.candidates]
    assert ("nccl_timeout_rank_died", "consequence") in kinds
    assert kinds[0] == ("shm_too_small", "cause")


def test_timeouts_alone_are_reported_as_a_dead_or_hung_rank() -> None:
    result = diagnose_paths([LOGS / "dev" / "llamafactory-6269-watchdog-rs.log"])[0]
    assert result.root_cause == "nccl_timeout_rank_died"
    top = result.candidates[0]
    assert top.kind == "consequence"
    assert [e.source for e in top.evidence[:3]] == ["rank0", "rank4", "rank3"]
    assert top.fix and top.check_next


def test_evidence_has_line_numbers_text_and_fix_with_role() -> None:
    result = diagnose_paths([LOGS / "dev" / "dynamo-1408-shm-tp2.log"])[0]
    top = result.candidates[0]
    assert top.root_cause == "shm_too_small"
    assert top.evidence[0].line == 13
    assert "failed to extend /dev/shm" in top.evidence[0].text
    assert any(step.role == "shm" for step in top.fix)


def test_real_h200_vllm_failure_names_the_engine_core_cause() -> None:
    result = diagnose_paths([LOGS / "heldout" / "h200-vllm026-missing-flashinfer.log"])[0]
    assert result.root_cause == "python_dependency_missing"
    assert "flashinfer" in result.candidates[0].explanation
    assert result.first_failure is not None and result.first_failure.line == 53
    assert result.first_failure.source == "EngineCore pid=1339"
    # The API server's "Engine core initialization failed" is a consequence, ranked after.
    consequence = next(c for c in result.candidates if c.kind == "consequence")
    assert "Engine core initialization failed" in consequence.evidence[0].text


def test_real_healthy_run_is_no_failure_with_notes_only() -> None:
    result = diagnose_paths([LOGS / "dev" / "h200-vllm026-serve-ok.log"])[0]
    assert result.status is Status.NO_FAILURE
    assert result.exit_code == 0
    assert all(c.kind == "hint" for c in result.candidates)  # the ulimit warning, as a note


def test_warning_level_lines_do_not_make_a_failure() -> None:
    log = ("WARNING 01-01 10:00:00 [system_utils.py:1] Found ulimit of 1024. This can cause fd"
           " limit errors like `OSError: [Errno 24] Too many open files`.\n")
    result = diagnose_text(log)
    assert result.status is Status.NO_FAILURE
    assert not result.candidates  # a prediction ("can cause"), not a report of the fd limit


def test_megatron_core_s_warnings_are_logged_at_warning_level() -> None:
    log = ("[WARNING  | megatron.core.dist_checkpointing.strategies.async_utils]: PID 2270114: "
           "Failed to set I/O priority: [Errno 1] Operation not permitted\n")
    assert diagnose_text(log).status is Status.NO_FAILURE
    assert diagnose_text(log.replace("WARNING ", "ERROR   ")).status is not Status.NO_FAILURE


def test_go_pingcap_log_warnings_are_logged_at_warning_level() -> None:
    log = ('[2026/12/10 03:06:01.114 +00:00] [WARN] [retry_interceptor.go:62] ["retrying of '
           'unary invoker failed"] [error="rpc error: code = Unavailable desc = error reading '
           'from server: EOF"]\n')
    assert diagnose_text(log).status is Status.NO_FAILURE
    assert diagnose_text(log.replace("[WARN]", "[ERROR]")).status is not Status.NO_FAILURE


def test_rust_tracing_warnings_do_not_outrank_the_error() -> None:
    # TGI's launcher logs through Rust's tracing: the WARN about an optional kernel is a note,
    # the ERROR (a GPU too old for the quantised kernels) is the failure
    log = ("2026-12-16T10:05:19.106227Z  WARN text_generation_launcher: Could not import Flash "
           "Attention enabled models: Flash Attention is not installed.\n"
           "2026-12-16T10:05:21.224583Z ERROR text_generation_launcher: Error when initializing "
           "model\n"
           "NotImplementedError: Using quantized Marlin models requires a GPU with CUDA "
           "capability 8.0 or later.\n")
    assert diagnose_text(log).root_cause == "cuda_arch_unsupported"
    assert diagnose_text(log.splitlines(keepends=True)[0]).status is Status.NO_FAILURE


def test_a_note_the_run_went_on_from_explains_no_failure() -> None:
    # huggingface_hub without hf_xet downloads over HTTP instead: not why anything failed
    log = ("[2026-12-13 16:41:03] Xet Storage is enabled for this repo, but the 'hf_xet' package "
           "is not installed. Falling back to regular HTTP download.\n"
           "[2026-12-13 19:15:40] ERROR: frobnicator stalled\n")
    result = diagnose_text(log)
    assert result.status is Status.UNKNOWN
    assert result.root_cause == "unknown"


def test_nccl_without_gdrcopy_goes_on() -> None:
    # an old libgdrapi lacks a symbol: NCCL runs without GDRCopy, an optional fast path
    log = ("gb200-r03-t07:402117:402117 [0] misc/gdrwrap.cc:47 NCCL WARN ncclOsDlsym failed on "
           "gdr_runtime_get_version - /usr/lib/aarch64-linux-gnu/libgdrapi.so: undefined symbol: "
           "gdr_runtime_get_version\n"
           "#  Avg bus bandwidth    : 851.207\n")
    assert diagnose_text(log).status is Status.NO_FAILURE


def test_a_hint_after_the_first_exception_does_not_explain_it() -> None:
    # a health check that found nothing listening: why the client failed, not the server
    died = "(APIServer pid=860) OSError: [Errno 30] Read-only file system: '/data/hf-cache'\n"
    poll = ("[client t=80s] GET http://127.0.0.1:8304/health failed: "
            "URLError(ConnectionRefusedError(111, 'Connection refused'))\n")
    assert diagnose_text(died + poll).root_cause == "unknown"
    # the client that could not reach its server, and failed for it
    failed = "RuntimeError: could not fetch the model list from the server\n"
    assert diagnose_text(poll + failed).root_cause == "rendezvous_unreachable"


def test_hint_explains_a_failure_when_nothing_else_does() -> None:
    log = ("INFO 01-01 10:00:00 [worker.py:1] model weights take 5.20GiB; the rest of the memory"
           " reserved for KV Cache is -1.05GiB.\n"
           "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
           "RuntimeError: something else went wrong\n")
    result = diagnose_text(log)
    assert result.status is Status.CAUSE_FOUND
    assert result.root_cause == "kv_cache_insufficient"
    assert result.candidates[0].confidence < 0.5


def test_a_warning_does_not_explain_an_exception_of_its_own() -> None:
    log = ("WARNING 01-01 10:00:00 [worker.py:1] model weights take 5.20GiB; the rest of the memory"
           " reserved for KV Cache is -1.05GiB.\n"
           "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
           "RuntimeError: something else went wrong\n")
    result = diagnose_text(log)
    assert result.status is Status.UNKNOWN
    assert result.candidates[0].root_cause == "kv_cache_insufficient"  # still shown, as a note
    # an ERROR line without an exception of its own: the warning may still be why
    result = diagnose_text(log.split("Traceback")[0] + "ERROR 01-01 10:00:01 [x.py:1] failed\n")
    assert result.root_cause == "kv_cache_insufficient"


def test_unknown_failure_lists_the_most_suspicious_lines() -> None:
    log = "INFO starting\n" * 5 + "Traceback (most recent call last):\n" \
          "  File \"x.py\", line 3, in <module>\nKeyError: 'frobnicate'\nINFO bye\n"
    result = diagnose_text(log)
    assert result.status is Status.UNKNOWN
    assert result.root_cause == "unknown"
    assert result.exit_code == 1
    assert [e.line for e in result.suspicious] == [6, 8]
    assert result.first_failure is not None and result.first_failure.line == 8
    assert result.layer == "other"  # a KeyError names no layer's words


@pytest.mark.parametrize(("failing_line", "layer"), [
    ("RuntimeError: all_gather_into_tensor on the process group never completed",
     "communication"),
    ("RuntimeError: TCPStore handshake with the head node was rejected", "network"),
    ("AssertionError: res=<Response [502]>, res.text=''", "network"),  # a proxy in between
    ("AssertionError: local_world_size (16) must be <= the number of visible devices (8)",
     "visibility"),
    ("AttributeError: 'Model' object has no attribute 'fused_op'", "versions"),
    ("RuntimeError: the memory limit of the pod was reached while pinning host buffers",
     "resources"),
    ("  Value error, expert parallel needs a MoE model, not a dense one [type=value_error",
     "partitioning"),
    ("RuntimeError: GPU 3 reported a PCIe replay storm, the frobnicator gave up", "visibility"),
    ("srun: error: Node failure on gpu-node-04", "network"),
    ("frob.py ERROR: Quota for frob units exceeded. Limit: 300.0 in region europe-west4.",
     "resources"),
    ("RuntimeError: the frobnicator found too little device memory for its tables",
     "resources"),
    ("AssertionError: Zero or multiple node IP keys found in the frobnicator", "network"),
    ("RuntimeError: cudaHostRegister failed: the frobnicator said no", "resources"),
    ("slurmstepd: error: *** JOB 4 ON gpu-node-02 CANCELLED AT 2026-12-03 DUE TO TIME LIMIT ***",
     "resources"),
    # the logger's file in vLLM's prefix names who logged, not what failed
    ("(Worker pid=1) ERROR 12-03 12:47:21 [mooncake_connector.py:1899] AssertionError: Local "
     "tensor parallel size 4 is not divisible by remote tensor parallel size 3.", "partitioning"),
    ("AssertionError: Micro batch size per gpu: 0 has to be greater than 0", "partitioning"),
    ("terminate called after throwing an instance of 'c10::DistBackendError'", "communication"),
    ("RuntimeError: duplicate mac found! both 'eth1' and 'ib0' have mac", "network"),
])
def test_an_unknown_failure_is_placed_by_the_words_of_its_failing_lines(
        failing_line: str, layer: str) -> None:
    log = "INFO starting\nTraceback (most recent call last):\n  File \"x.py\", line 3\n" \
          f"{failing_line}\n"
    result = diagnose_text(log)
    assert (result.status, result.root_cause, result.layer) == (Status.UNKNOWN, "unknown", layer)
    assert result.note == f"No signature explains this failure; its failing lines read as {layer}."


def test_crlf_and_ansi_colours_are_cleaned() -> None:
    log = ("\x1b[36m(VllmWorker rank=2 pid=9)\x1b[0m INFO ok\r\n"
           "\x1b[36m(VllmWorker rank=2 pid=9)\x1b[0m \x1b[1;31mERROR\x1b[0m 01-01 10:00:00 "
           "ValueError: Total number of attention heads (40) must be divisible by tensor "
           "parallel size (3).\r\n")
    result = diagnose_text(log)
    assert result.root_cause == "tp_heads_indivisible"
    evidence = result.candidates[0].evidence[0]
    assert evidence.line == 2
    assert "\x1b" not in evidence.text and not evidence.text.endswith("\r")
    assert evidence.source == "VllmWorker rank=2 pid=9"
    assert "40 attention heads" in result.candidates[0].explanation


def test_empty_input_is_unusable_not_a_crash() -> None:
    result = diagnose_text(b"")
    assert result.status is Status.UNUSABLE
    assert result.exit_code == 2
    assert result.note == "the input is empty"


def test_binary_garbage_is_unusable_not_a_crash() -> None:
    garbage = bytes(range(256)) * 4096
    result = diagnose_text(garbage)
    assert result.status is Status.UNUSABLE
    assert result.note is not None and "binary" in result.note


def test_invalid_utf8_inside_a_text_log_is_tolerated() -> None:
    log = b"INFO \xff\xfe weird bytes\nRuntimeError: CUDA error: invalid device ordinal\n"
    result = diagnose_text(log)
    assert result.root_cause == "cuda_visible_devices_invalid"


def test_stream_and_text_agree() -> None:
    data = INTERLEAVED.encode()
    assert diagnose_stream(io.BytesIO(data), name="x") == diagnose_text(data, name="x")


def test_missing_file_is_one_clear_operational_error(tmp_path: Path) -> None:
    with pytest.raises(VfixError, match=r"no-such\.log"):
        diagnose_paths([tmp_path / "no-such.log"])
    with pytest.raises(VfixError, match="is a directory"):
        diagnose_paths([tmp_path])


def test_results_are_frozen() -> None:
    result = diagnose_text(INTERLEAVED)
    with pytest.raises(AttributeError):
        result.root_cause = "x"  # type: ignore[misc]


def test_a_line_repeated_thousands_of_times_counts_every_copy() -> None:
    failure = "RuntimeError: CUDA error: invalid device ordinal\n"
    text = ("INFO 01-01 10:00:00 [worker.py:1] step\n" + failure) * 3000
    result = diagnose_text(text)
    top = result.candidates[0]
    assert top.root_cause == "cuda_visible_devices_invalid"
    assert top.matches == 3000
    assert [e.line for e in top.evidence] == [2, 4, 6, 8, 10]
    assert result.lines == 6000


def dense_log() -> bytes:
    """The dev failure logs, repeated, with CRLF and colour variants: the slow case."""
    logs = [path.read_bytes() for path in sorted((LOGS / "dev").glob("*.log"))]
    corpus = b"".join(logs)
    return (corpus + corpus.replace(b"\n", b"\r\n")
            + corpus.replace(b"ERROR", b"\x1b[31mERROR\x1b[0m")) * 4


def test_results_do_not_depend_on_chunks_or_the_line_cache(
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = dense_log()
    expected = diagnose_stream(io.BytesIO(data)).to_dict()
    monkeypatch.setattr(scanner, "CHUNK_BYTES", 4096)  # many spans: tails cross them
    monkeypatch.setattr(tally.Verdicts, "MAX_BYTES", 20_000)  # the cache starts over often
    assert diagnose_stream(io.BytesIO(data)).to_dict() == expected
    assert expected["suspicious"] and expected["candidates"][0]["matches"] > 5


def test_lines_distinct_only_by_their_times_share_a_verdict_but_keep_their_text() -> None:
    lines = [b"2026-12-05 16:%02d:%02d.%06d worker exited with exit code %d\n"
             % (n // 60, n % 60, n, n % 2) for n in range(12)]
    result = diagnose_stream(io.BytesIO(b"".join(lines)))
    # each line judged as if alone: the exit code (not a time) still tells them apart, and
    # each failing line is shown as it was written
    assert [e.text for e in result.suspicious] == [
        line.decode().strip() for line in lines if line.endswith(b"code 1\n")]
    later = b"".join(line.replace(b"16:", b"17:") for line in lines)
    assert list(diagnose_stream(io.BytesIO(later)).to_dict()["suspicious"]) == [
        {**e, "text": e["text"].replace("16:", "17:")} for e in result.to_dict()["suspicious"]]


@pytest.mark.parametrize("cache_bytes", [tally.Verdicts.MAX_BYTES, 20_000])
def test_a_line_distinct_only_by_its_time_counts_every_copy_and_cites_its_own(
        cache_bytes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tally.Verdicts, "MAX_BYTES", cache_bytes)
    lines = [b"2026-12-05 16:%02d:%02d.%06d RuntimeError: CUDA error: invalid device ordinal\n"
             % (n // 60 % 60, n % 60, n) for n in range(3000)]
    result = diagnose_stream(io.BytesIO(b"".join(lines)))
    top = result.candidates[0]
    assert top.root_cause == "cuda_visible_devices_invalid"
    assert top.matches == 3000
    assert [e.text for e in top.evidence] == [line.decode().strip() for line in lines[:5]]


def test_signature_keywords_match_whatever_the_letter_case() -> None:
    # nvidia-container-cli quotes NVML's "Driver/library version mismatch" in lower case
    log = "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch"
    assert diagnose_text(log).root_cause == "driver_mismatch_reboot_required"
    assert diagnose_text(log.upper()).root_cause == "driver_mismatch_reboot_required"


def test_failure_markers_and_acronyms_keep_their_case() -> None:
    # "error" and "killed" in lower case are everywhere in healthy logs; "mig" is in "might"
    log = ("INFO 01-01 00:00:00 [x.py:1] 0 errors: the error handler killed no request\n"
           "INFO 01-01 00:00:00 [x.py:1] this might be unsupported on old GPUs\n")
    result = diagnose_text(log)
    assert result.status is Status.NO_FAILURE
    assert all(c.root_cause != "mig_unsupported" for c in result.candidates)


def test_a_command_echoed_after_a_shell_prompt_is_not_a_failure() -> None:
    command = "# node 1: $ grep -c 'Duplicate GPU detected' /var/log/train/rank*.log\n"
    assert diagnose_text(command + "INFO 01-01 00:00:01 [api_server.py:1] Starting vLLM API "
                         "server on http://0.0.0.0:8000\n").status is Status.NO_FAILURE


def test_lines_with_a_host_prefix_keep_their_log_level() -> None:
    # pdsh, clush and capture scripts put "host: " before each line; an INFO line that names
    # TORCH_NCCL_RETHROW_CUDA_ERRORS, or an echoed command, is still no failure
    log = ("gpu-node-1: $ NCCL_DEBUG=WARN torchrun --nnodes 2 train.py --on-error abort\n"
           "gpu-node-1: [I1204 14:31:55.505295611 ProcessGroupNCCL.cpp:2058] [PG ID 0 PG GUID 0 "
           "Rank 1] PGNCCL Watchdog environments: TORCH_NCCL_RETHROW_CUDA_ERRORS: 1\n"
           "gpu-node-1: INFO:root:step 10 loss 2.31\n")
    assert diagnose_text(log).status is Status.NO_FAILURE
    failing = "gpu-node-1: [E1204 14:31:55.505295611 socket.cpp:1] [c10d] connect() failed: ERROR\n"
    assert diagnose_text(failing).status is not Status.NO_FAILURE


def test_grep_line_numbers_keep_the_log_level() -> None:
    # `grep -n` output pasted into a ticket: "19:" before each line
    log = ("19:[W1204 14:31:55.505295611 ProcessGroupNCCL.cpp:2058] [PG ID 0 PG GUID 0 Rank 1] "
           "PGNCCL Watchdog environments: TORCH_NCCL_RETHROW_CUDA_ERRORS: 1\n")
    assert diagnose_text(log).status is Status.NO_FAILURE
    assert diagnose_text(log.replace("19:[W1204", "19:[E1204")).status is not Status.NO_FAILURE


def test_an_echoed_grep_for_nccl_warnings_is_no_failure() -> None:
    log = ("[2026-12-14 14:05:49] step 61210 | loss 0.1176 | 1.90 s/step\n"
           "$ grep -cE \"NCCL WARN\" /shared/logs/run-1213/rank*.log\n"
           "/shared/logs/run-1213/rank0.log:0\n")
    assert diagnose_text(log).status is Status.NO_FAILURE


def test_a_gid_table_change_the_run_trained_past_is_no_failure() -> None:
    warn = ("bm-5510:70211:70420 [0] transport/net_ib/common.cc:153 NCCL WARN NET/IB : mlx5_2:1 "
            "GID table changed\n")
    steps = "".join(f"[2026-12-14 14:0{i}:49] step 6121{i} | loss 0.1176 | 1.90 s/step\n"
                    for i in range(3))
    assert diagnose_text(steps + warn + steps).status is Status.NO_FAILURE
    assert diagnose_text(steps + warn).root_cause == "ib_hca_unusable"  # the run stopped there
    # Hugging Face Trainer's steps name the loss first
    trainer = "".join(f"{{'loss': 1.{i}, 'grad_norm': 1.5, 'epoch': 0.0{i}, 'step': {i}00}}\n"
                      for i in range(1, 4))
    assert diagnose_text(trainer + warn + trainer).status is Status.NO_FAILURE


def test_an_ib_device_nccl_recovered_is_no_failure_unless_it_gave_up() -> None:
    failed = ("rl-h100-032:814411:815020 [0] NCCL WARN NET/IB: Device 1 marked as failed. "
              "Initiating recovery? Yes (send comm=0x7f11c4000d20, outstandingRecovery=0)\n")
    gave_up = ("rl-h100-032:814411:815098 [0] NCCL INFO NET/IB: ncclIbPortRecoveryContextProgress:"
               " Marking device 1 as permanently failed (send comm=0x7f11c4000d20)\n")
    steps = "".join(f"Step 73{i}/2000 | loss 0.0174 | reward 0.702 | refit 21.1s\n"
                    for i in range(3))
    assert diagnose_text(steps + failed + steps).status is Status.NO_FAILURE
    assert diagnose_text(steps + failed + gave_up + steps).root_cause == "ib_hca_unusable"


_RETRY = ("[client] GET http://127.0.0.1:8611/health -> URLError: <urlopen error [Errno 111] "
          "Connection refused>; server not ready, retrying in 2s\n")


@pytest.mark.parametrize("log", [
    # torch's C++ log writes March 8 as "W308": still a warning
    "[rank0]:[W308 06:00:19.118204773 PeerToPeerAccess.cpp:203] Warning: "
    "nvmlDeviceGetGpuFabricInfoV failed. This function is only supported on sm90+\n",
    # a port event NCCL itself calls non-fatal (a new subnet manager)
    "gpu-c-220:90412:90811 [3] transport/net_ib/common.cc:88 NCCL WARN NET/IB : mlx5_5:1 "
    "Got non-fatal async event: client reregistration(17)\n",
    "gpu-c-07:1212:1290 [2] transport/net_ib/common.cc:91 NCCL WARN NET/IB : mlx5_2:1 Got async "
    "error event: SM change\n",
    # nccl-tests repeating NCCL's clamped setting in its footer
    "# error: NET/Socket : the total number of sockets is greater than the maximum allowed, "
    "setting NCCL_NSOCKS_PERTHREAD to 8\n",
    # an exception Python reports and ignores (raised in __del__), then the run goes on
    "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f2b>\n"
    "Traceback (most recent call last):\n"
    '  File "torch/utils/data/dataloader.py", line 1654, in __del__\n'
    "AssertionError: can only join a child process\n"
    "{'loss': 1.0873, 'epoch': 1.0}\n",
    # a client retrying until its server is up
    _RETRY * 3 + 'INFO:     127.0.0.1:56590 - "POST /v1/completions HTTP/1.1" 200 OK\n',
    # a deprecation notice, whatever it asks to install
    "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:63: FutureWarning: The "
    "pynvml package is deprecated. Please install nvidia-ml-py instead.\n",
    # the same in Rust's tracing fields (Dynamo waiting for etcd)
    "2026-12-04T08:00:03.114502Z  WARN dynamo_runtime::transports::etcd: etcd not reachable yet; "
    "retrying startup connection error=Unable to connect to etcd server at http://etcd:2379. "
    "Check etcd server status retry_in=1s remaining=119.990s\n"
    "2026-12-04T08:00:04.622871Z  INFO dynamo_runtime::distributed: Initializing KV store "
    "discovery backend: etcd\n",
    # an optional import replaced by another (SGLang)
    "[2026-12-30 14:00:40 TP0] Failed to import mooncake allocator for NVLINK: No module named "
    "'mooncake.allocator'. Falling back to the default allocator.\n",
    # Gloo's connect that it will try again
    "[/pytorch/third_party/gloo/gloo/transport/tcp/debug_logger.cc:9] ERROR failed to connect, "
    "willRetry=1, retry=1, retryLimit=3, rank=8, size=16, local=[10.95.1.12]:41021, "
    "remote=[10.95.1.11]:36551, error=SO_ERROR: Connection refused\n",
])
def test_lines_that_only_report_are_no_failure(log: str) -> None:
    assert diagnose_text(log).status is Status.NO_FAILURE


@pytest.mark.parametrize("log", [
    "[rank4]:[E521 16:32:41.617302518 ProcessGroupGloo.cpp:143] Gloo handshake: ERROR\n",
    "[/pytorch/third_party/gloo/gloo/transport/tcp/debug_logger.cc:9] ERROR failed to connect, "
    "willRetry=0, retry=3, retryLimit=3, rank=8, size=16, local=[10.95.1.12]:41021, "
    "remote=[10.95.1.11]:36551, error=SO_ERROR: Connection refused\n",
    _RETRY * 3 + "[client] GET http://127.0.0.1:8611/health -> URLError: refused; giving up\n",
    "Exception ignored in: <function Pool.__del__ at 0x7f2b>\nAssertionError: x\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n",
])
def test_the_failures_beside_them_still_show(log: str) -> None:
    assert diagnose_text(log).status is not Status.NO_FAILURE


def test_a_client_that_gave_up_on_a_server_shows_a_failure() -> None:
    log = "Max retries exceeded with url: /get_model_info (Caused by NewConnectionError)\n"
    assert diagnose_text(log).status is Status.UNKNOWN


def test_an_nccl_error_reported_by_its_caller_shows_a_failure() -> None:
    result = diagnose_text('NCCL error: "Socket operation on non-socket"\n')
    assert (result.status, result.layer) == (Status.UNKNOWN, "communication")


def test_a_daemon_s_error_line_shows_a_failure() -> None:
    log = ("error: _check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 0-7 "
           "on node node0 doesn't match socket boundaries. (Socket 0 is cores 0-1)\n")
    assert diagnose_text(log).status is Status.UNKNOWN
    assert diagnose_text("INFO 01-01 00:00:00 [x.py:1] retried after error: none\n").status \
        is Status.NO_FAILURE



def test_a_check_a_tool_marks_failed_shows_a_failure() -> None:
    assert diagnose_text("✔ kernel modules loaded\n✘ power supply 2 redundancy lost\n").status \
        is Status.UNKNOWN
    assert diagnose_text("✔ kernel modules loaded\n").status is Status.NO_FAILURE


def test_a_dataloader_workers_exception_is_the_failing_line_whatever_its_class() -> None:
    log = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
           "pyarrow.lib.ArrowInvalid: Caught ArrowInvalid in DataLoader worker process 5.\n")
    result = diagnose_text(log)
    assert result.first_failure is not None and result.first_failure.line == 3


@pytest.mark.parametrize("line", [
    "Failed to provision in fleet 'aws-main': tried 5 of 12 offers, all failed.",  # dstack
    "2018-11-29 02:43:39.844 [5/start/21975 (pid 83812)] Task failed.",  # Metaflow
])
def test_a_tool_saying_it_failed_shows_a_failure(line: str) -> None:
    assert diagnose_text(line + "\n").status is Status.UNKNOWN


@pytest.mark.parametrize("line", [
    # glog/klog at ERROR and FATAL, the message naming no failure word of its own
    'E1204 23:27:11.882590       1 chat_completions.go:112] "SSRF protection: prefill target '
    'not in allowlist" logger="proxy server"',
    "gpu-node-1: F0312 10:15:01.104512 41 main.go:83] invalid MPS configuration: 64 > 48",
    # Ray's C++ core at ERROR and at FATAL (C)
    "[2026-12-04 23:27:11,882 E 4127 4127] core_worker.cc:212: Lost the object store",
    "(raylet) [2026-12-04 23:27:11,882 C 4127 4127] node_manager.cc:9: Check failed: ok",
    "panic: unsupported capabilities found in 'compute,gpu,utility'",  # Go
    "docker: Error response from daemon: container 4f2e is not running.",
    "2026-12-04 23:25:10 [error    ] Connection error loading LoRA adapter 'sql-lora-v2'",
])
def test_a_line_logged_at_error_level_shows_a_failure(line: str) -> None:
    assert diagnose_text(line + "\n").status is Status.UNKNOWN


@pytest.mark.parametrize("line", [
    " .. gpu-c07 pid 120344: Test failure common.cu:1454",  # nccl-tests
    "| pcie                      | Fail                                           |",  # dcgmi diag
    "  Normal  Unschedulable  2s (x88 over 7m)  volcano  resource in cluster is overused",
    "  Normal  EvictedDueToPodsReadyTimeout  1s  kueue-workload-controller  Exceeded the PodsReady "
    "timeout team-llm/vllm-0",
    "  Normal  Preempted  6s  kueue-admission  Preempted to accommodate a workload (UID: 5a0f)",
    "Dec 05 00:47:31 gpu-05 systemd[1]: nvidia-persistenced.service: Failed with result 'signal'",
    "     Active: failed (Result: exit-code) since Sat 2026-12-05 00:41:08 UTC; 12s ago",
    "\t **Fail** The settings returned by ibstatus indicate a problem.",  # Azure's health checks
    "[2026-11-18 12:41:18] Child process unexpectedly failed with exitcode=256. pid=8",  # SGLang
    " Couldn't create IB resources",  # a C tool's line that begins with its failure (perftest)
    "gpu-node-1:  Unable to init the socket connection",
    "2026-12-04T22:07:18Z [fabric-check] ib_write_bw exited with status 1",  # a non-zero exit
    "Exit code:    3",
])
def test_a_tool_s_own_failure_form_shows_a_failure(line: str) -> None:
    assert diagnose_text(line + "\n").status is Status.UNKNOWN


@pytest.mark.parametrize("line", [
    "I1204 23:27:11.882590       1 main.go:416] No devices found. Waiting indefinitely.",
    "[2026-12-04 23:27:11,882 I 4127 4127] core_worker.cc:212: E1 cache warmed, F1 score 0.9",
    "step 10: F1 0.91, E2E latency 1.3 s, 3 E 4 pairs",
    "Unschedulable:      false",  # kubectl describe node
    "tests: Pass: 12 Fail: 0",
    "worker 3 exited with code 0",  # a clean exit
])
def test_level_letters_elsewhere_in_a_line_are_no_failure(line: str) -> None:
    assert diagnose_text(line + "\n").status is Status.NO_FAILURE


def test_a_tool_s_failure_words_quoted_in_a_line_s_middle_are_no_failure() -> None:
    # a client printing the server's 400 answer to a bad request, in a healthy run
    log = '[client] POST /v1/completions -> 400: {"error":{"message":"Unable to get tokenizer"}}\n'
    assert diagnose_text(log).status is Status.NO_FAILURE
    # and a tool that only warns before it goes on
    assert diagnose_text("WARNING: Unable to find libnuma, using no NUMA binding\n").status \
        is Status.NO_FAILURE


def test_a_python_warning_is_not_a_failure() -> None:
    log = ("/tmp/site/vllm/v1/executor/uniproc_executor.py:73: UserWarning: Failed to get the IP "
           "address, using 0.0.0.0 by default.\n")
    assert diagnose_text(log).status is Status.NO_FAILURE


@pytest.mark.parametrize("line", [
    "NVRM: Xid (PCI:0000:01:00): 137, pid=4242, name=python3",  # an Xid no signature names
    "drivers/net/ethernet/mellanox/mlx5/core/en_accel/ipsec.c:1325:35: error:",
])
def test_driver_events_and_compiler_errors_show_a_failure(line: str) -> None:
    assert diagnose_text(line + "\n").status is Status.UNKNOWN


def test_torch_and_deepspeed_warning_formats_are_notes() -> None:
    for line in ("W1202 20:13:43.225000 1351 torch/distributed/run.py:1] Address already in use",
                 "[2024-01-01 00:00:00,000] [WARNING] [runner.py:1] Address already in use"):
        result = diagnose_text(line + "\n")
        assert result.status is Status.NO_FAILURE, line
        assert result.candidates[0].kind == "hint"


@pytest.mark.parametrize(("log", "cause"), [
    ("host:1:1 [1] NCCL INFO NCCL version 2.25.1+cuda12.2\n"
     "host:1:1 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\n",
     "nccl_version_bug"),
    ("host:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
     "host:1:2 [0] NCCL INFO NET/Socket : Using [0]ib0:10.0.0.1<0>\n", "rdma_device_missing"),
])
def test_fatal_messages_logged_at_info_are_the_failure(log: str, cause: str) -> None:
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, cause)


def test_other_info_lines_stay_notes() -> None:
    log = "host:1:1 [0] NCCL INFO Failed to open libibverbs.so[.1]\nINFO all done\n"
    assert diagnose_text(log).status is Status.NO_FAILURE


def test_an_unknown_exception_before_the_consequences_is_the_unknown_cause() -> None:
    log = ("[rank0]: ValueError: frobnication_level is invalid, set it in (0.0, 1.0)\n"
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n")
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")
    assert result.first_failure is not None and result.first_failure.line == 1
    assert result.candidates[0].kind == "consequence"  # still listed, not the answer


def test_a_terminate_line_is_explained_by_the_what_line_under_it() -> None:
    log = ("terminate called after throwing an instance of 'c10::AcceleratorError'\n"
           "  what():  CUDA error: an illegal memory access was encountered\n"
           "Fatal Python error: Aborted\n")
    assert diagnose_text(log).root_cause == "cuda_kernel_fault"
    unexplained = log.replace("  what():  CUDA error: an illegal memory access was encountered",
                              "  what():  frobnicator refused the batch")
    assert diagnose_text(unexplained).status is Status.UNKNOWN


def test_a_ray_actor_that_died_with_no_reason_shown_is_unknown() -> None:
    log = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing.\n"
           "The actor is dead because its worker process has died. Worker exit type: "
           "SYSTEM_ERROR\n")
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")
    killed = log + "[12.3] Out of memory: Killed process 88412 (ray::RolloutWorker)\n"
    assert diagnose_text(killed).root_cause == "host_oom_killed"


def test_a_driver_line_that_reports_a_failure_is_one_and_its_other_lines_are_not() -> None:
    loaded = "[6.1] NVRM: loading NVIDIA UNIX Open Kernel Module for aarch64  580.95.05\n"
    assert diagnose_text(loaded).status is Status.NO_FAILURE
    failed = loaded + "[18.2] NVRM: GPU memory zone movable auto onlining failed!\n"
    result = diagnose_text(failed)
    assert result.status is Status.UNKNOWN and result.suspicious[0].line == 2


def test_a_placement_group_left_pending_by_a_node_that_never_reached_the_gcs_is_the_gcs() -> None:
    log = ("2026-06-11 02:41:07,318\tERROR utils.py:1359 -- Failed to connect to GCS at address "
           "head-svc.inference.svc.cluster.local:6379 within 5 seconds.\n"
           + "INFO: waiting for the worker group\n" * 10
           + "{'GPU': 1.0} * 16 (PACK): 1+ pending placement groups\n")
    assert diagnose_text(log).root_cause == "rendezvous_unreachable"
    assert diagnose_text(log.split("\n", 1)[1]).root_cause == "ray_cluster_incomplete"


def test_a_slurm_command_s_fatal_refusal_is_a_failure() -> None:
    log = "sbatch: fatal: --gpus-per-node and --gres=gpu are mutually exclusive.\n"
    assert diagnose_text(log).status is Status.UNKNOWN


def test_a_kernel_panic_is_a_failure() -> None:
    log = "[51903.1] Kernel panic - not syncing: Hard LOCKUP\n"
    assert diagnose_text(log).status is Status.UNKNOWN


def test_an_nccl_setting_it_ignores_or_replaces_is_no_failure() -> None:
    for warned in ("NCCL_WORK_FIFO_BYTES=3000000 is being ignored because it is not a power of 2.",
                   "NCCL_NET_MERGE_POLICY: unknown value 'rails', defaulting to ALL",
                   "Ignoring SHM locality, must be 1 (sender side) or 2 (receiver side, default)",
                   "NET/IB: Resiliency is enabled on a send communicator (comm=0x7f1e5c01ad40) "
                   "with a single device. This does not make sense since there is no other device",
                   "NET/OFI Failed to find shared library info. Not configuring NCCL_TUNER_PLUGIN",
                   "NET/OFI Unable to configure tuner: No such file or directory"):
        log = f"h200-c021:50148:50148 [0] init.cc:621 NCCL WARN {warned}\n"
        assert diagnose_text(log).status is Status.NO_FAILURE
    no_verbs = "host:2129:2129 [0] misc/ibvwrap.cc:173 NCCL WARN lib wrapper not initialized.\n"
    assert diagnose_text(no_verbs).status is Status.NO_FAILURE


def test_an_optional_communicator_turned_off_is_no_failure() -> None:
    log = ("[2026-12-04 11:38:32 TP0] TorchSymmMemCommunicator: Device capability 8 not supported, "
           "communicator is not available.\n")
    assert diagnose_text(log).status is Status.NO_FAILURE


def test_a_cli_warning_that_retries_is_no_failure() -> None:
    log = ("Collecting torch==2.14.0\n"
           "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None)) "
           "after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='pypi.org', "
           "port=443): Read timed out.\")': /simple/torch/\n"
           "Successfully installed torch-2.14.0\n")
    assert diagnose_text(log).status is Status.NO_FAILURE
    assert diagnose_text(log.replace("WARNING: ", "")).status is Status.UNKNOWN


def test_an_insufficient_driver_after_a_missing_libcuda_is_the_missing_driver() -> None:
    insufficient = ("host: Test CUDA failure util.cu:553 'CUDA driver version is insufficient for "
                    "CUDA runtime version'\n")
    assert diagnose_text(insufficient).root_cause == "cuda_driver_too_old"
    missing = ("The library attempted to open the following supporting CUDA libraries,\n"
               "libcuda.so.1: cannot open shared object file: No such file or directory\n"
               + "# nccl-tests version 2.17.6\n" * 6 + insufficient)
    assert diagnose_text(missing).root_cause == "nvidia_driver_missing"


def test_a_kernel_segfault_report_and_a_c_assert_are_failures() -> None:
    segfault = ("[182.0] nvidia-containe[5657]: segfault at 0 ip 000070190de67398 "
                "sp 00007ffc29492650 error 4 in libnvidia-container.so.1.17.7[a398,70190de61000]\n")
    asserted = "python3: Allocation.cpp:47: getCvtOrder: Assertion `!(srcMma && dstMma)' failed.\n"
    for log in (segfault, asserted):
        assert diagnose_text(log).status is Status.UNKNOWN


def test_consequences_alone_still_answer() -> None:
    log = ("[rank1]:[E ProcessGroupNCCL.cpp:1] [Rank 1] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600123 milliseconds before "
           "timing out.\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n")
    assert diagnose_text(log).root_cause == "nccl_timeout_rank_died"


_CHILD_CRASHED = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                  "Root Cause (first observed failure):\n[0]:\n  exitcode  : -8 (pid: 667)\n"
                  "  traceback : Signal 8 (SIGFPE) received by PID 667\n")


def test_a_rank_that_crashed_in_native_code_with_no_other_cause_is_unknown() -> None:
    result = diagnose_text(_CHILD_CRASHED)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")
    assert result.candidates[0].signature == "process-crashed"  # still listed, not the answer


def test_a_ray_worker_that_never_registered_is_a_failure_of_unknown_cause() -> None:
    log = ("(raylet) [2025-10-31 17:10:05,847 E 24507 24507] (raylet) worker_pool.cc:586: Some "
           "workers of the worker process(27991) have not registered within the timeout. The "
           "process is dead, probably it crashed during start.\n")
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")


def test_a_crash_after_a_known_cause_follows_from_it() -> None:
    log = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    assert diagnose_text(log + _CHILD_CRASHED).root_cause == "gpu_oom"


_RELAYED = ("(EngineCore_DP0 pid=9) ERROR 01-01 00:00:09 [core.py:1] RuntimeError: Worker failed "
            "with error '{error}', please check the stack trace above for the root cause\n")


def test_a_relayed_worker_error_nothing_explains_is_unknown() -> None:
    log = _RELAYED.format(error="mat1 and mat2 shapes cannot be multiplied (1024x2048 and 64x64)")
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")


def test_a_relayed_worker_error_a_signature_explains_is_that_cause() -> None:
    log = _RELAYED.format(error="CUDA error: an illegal memory access was encountered")
    assert diagnose_text(log).root_cause == "cuda_kernel_fault"


def test_a_launcher_still_waiting_for_its_members_at_the_end_is_stuck_there() -> None:
    log = "".join(f"[NeMo I 01-01 00:00:0{n}] Initializing distributed: GLOBAL_RANK: 0, "
                  "MEMBER: 1/4\n" for n in range(3))
    assert diagnose_text(log).root_cause == "rendezvous_unreachable"


def test_a_launcher_that_went_on_past_its_wait_names_no_rendezvous() -> None:
    log = ("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
           "All distributed processes registered. Starting with 4 processes\n"
           + "".join(f"[NeMo I 01-01 00:00:0{n}] building the model, step {n}\n" for n in range(6))
           + "ValueError: Expected world_size (4) to be greater than/equal to pipeline size (8)\n")
    result = diagnose_text(log)
    assert result.root_cause == "gpu_count_insufficient"
    assert "rendezvous-waiting" not in {c.signature for c in result.candidates}


_PG_WAIT = ("INFO 01-01 00:00:{s:02d} [ray_utils.py:1] Waiting for creating a placement group of "
            "specs for {s} seconds. specs=[{{'GPU': 1.0}}, {{'GPU': 1.0}}]. Check `ray status` "
            "to see if you have enough resources.\n")


def test_a_log_that_ends_waiting_for_ray_is_stuck_there() -> None:
    log = "INFO vLLM API server version 0.6.1\n" + _PG_WAIT.format(s=10) + _PG_WAIT.format(s=30)
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "ray_cluster_incomplete")


def test_a_wait_for_ray_that_ended_is_a_note() -> None:
    log = (_PG_WAIT.format(s=10)
           + "".join(f"INFO 01-01 00:01:{n:02d} [loader.py:1] Loading weights shard {n}\n"
                     for n in range(6)))
    result = diagnose_text(log)
    assert result.status is Status.NO_FAILURE
    assert result.candidates[0].kind == "hint"


def test_sends_that_failed_while_an_ib_port_flapped_are_part_of_the_flap() -> None:
    """NCCL's retries ran out on a send while the port was down; the port came back and NCCL
    went on: no broken HCA."""
    warn = "gpu-e21:7710:8422 [3] NCCL WARN NET/IB"
    flap = (f"{warn} : mlx5_3:1 Got non-fatal async event: port error(9)\n"
            f"{warn}: Got completion from peer 10.50.7.22<40116> with status=transport retry "
            "counter exceeded(12) opcode=SEND(0) vendor_err=129\n"
            f"{warn}: Device 1 marked as failed. Initiating recovery? Yes\n")
    back = ("gpu-e21:7710:8422 [3] NCCL INFO NET/IB : mlx5_3:1 Got non-fatal async event: "
            "port active(8)\n")
    assert diagnose_text(flap + back).status is Status.NO_FAILURE
    assert diagnose_text(flap).root_cause == "ib_hca_unusable"


def test_a_heading_a_person_wrote_above_the_pastes_is_not_a_failing_line() -> None:
    """An IB port that flapped and came back, then the run trained on; the ticket's note about
    the cable is prose, not the last failure."""
    flap = ("gpu-k31:88712:89450 [6] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_6:1 "
            "Got non-fatal async event: port error(10)\n"
            "gpu-k31:88712:89450 [6] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_6:1 "
            "Got non-fatal async event: port active(9)\n")
    note = "## DC log: a technician reseated HCA-7's cable; the job ran on, no NCCL error\n"
    assert diagnose_text(flap + note).status is Status.NO_FAILURE
    # one "#" starts nccl-tests' own lines: its footer repeats the error
    assert diagnose_text(flap + "# error: unhandled system error\n").status is not (
        Status.NO_FAILURE)


def test_a_wait_for_ray_ended_by_serving_requests_is_a_note() -> None:
    """The placement group waited for a late node, then the server answered requests: the
    wait was over, however near the end of a short log it stood."""
    served = ("(APIServer pid=1) INFO:     10.0.0.9:40130 - \"POST /v1/completions HTTP/1.1\" "
              "200 OK\n"
              "(APIServer pid=1) INFO 01-01 00:02:00 [loggers.py:1] Engine 000: Avg prompt "
              "throughput: 980.3 tokens/s, Avg generation throughput: 212.6 tokens/s\n")
    log = _PG_WAIT.format(s=10) + _PG_WAIT.format(s=30) + served
    assert diagnose_text(log).status is Status.NO_FAILURE
    # one answered request is not yet a server that went on
    assert diagnose_text(log.rsplit("\n", 2)[0] + "\n").status is Status.CAUSE_FOUND


def test_an_engine_killed_by_sigbus_had_too_small_a_dev_shm() -> None:
    killed = ("(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause "
              "above. Failed core proc(s): {{'EngineCore_DP0': {code}}}\n")
    assert diagnose_text(killed.format(code=-7)).root_cause == "shm_too_small"
    assert diagnose_text(killed.format(code=-9)).root_cause == "host_oom_killed"


_STOPPED = ("(EngineCore pid=2) INFO 01-01 00:00:10 [core.py:1] [shutdown] EngineCore: trigger "
            "received signal=SIGTERM\n"
            "(APIServer pid=1) ERROR 01-01 00:00:10 [async_llm.py:1] vllm.v1.engine.exceptions."
            "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the "
            "root cause.\n")


def test_errors_of_a_server_asked_to_stop_are_teardown() -> None:
    log = "(APIServer pid=1) INFO 01-01 00:00:01 [api_server.py:1] Starting vLLM API server\n"
    result = diagnose_text(log + _STOPPED)
    assert (result.status, result.root_cause) == (Status.NO_FAILURE, "none")


def test_a_sigterm_from_a_teardown_already_under_way_is_not_a_stop_request() -> None:
    # the API server failed to build its app, tore down, and signalled its engine itself
    teardown = ("(APIServer pid=1) INFO 01-01 00:00:09 [core_client.py:1] [shutdown] MPClient: "
                "start timeout=0s\n")
    failed = "(APIServer pid=1) ModuleNotFoundError: No module named 'acme_gateway'\n"
    result = diagnose_text(teardown + _STOPPED.splitlines(keepends=True)[0] + failed)
    assert result.root_cause == "python_dependency_missing"


def test_an_api_server_told_to_stop_is_a_stop_request() -> None:
    stopped = ("(APIServer pid=1) INFO 01-01 00:00:10 [launcher.py:100] [shutdown] API server: "
               "shutdown triggered\n" + _STOPPED)
    assert diagnose_text(_READY + stopped).status is Status.NO_FAILURE


def test_a_failure_before_the_stop_request_still_counts() -> None:
    log = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    result = diagnose_text(log + _STOPPED)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "gpu_oom")


def test_clients_timing_out_before_the_stop_make_its_errors_count() -> None:
    # the server hung while serving (clients timed out); its own error shows only as it stops
    log = ("[client t=140s] POST /v1/completions failed: TimeoutError('timed out')\n" + _STOPPED
           + "(APIServer pid=1) OSError: [Errno 24] Too many open files\n")
    assert diagnose_text(log).root_cause == "fd_limit_too_low"
    assert diagnose_text(_STOPPED + log.splitlines(keepends=True)[-1]).root_cause == "none"


_ENGINE_FAILED = ("(APIServer pid=1) RuntimeError: Engine core initialization failed. See root "
                  "cause above. Failed core proc(s): {}\n")


def test_an_engine_core_that_died_without_an_error_was_killed() -> None:
    log = "(EngineCore pid=2) INFO 01-01 00:00:01 [core.py:1] init engine took 2.65 s\n"
    result = diagnose_text(log + _ENGINE_FAILED)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "host_oom_killed")


def test_an_engine_core_that_died_without_an_error_while_serving_was_killed() -> None:
    log = ("(APIServer pid=1) INFO:     127.0.0.1:1 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
           "(APIServer pid=1) WARNING 01-01 00:00:09 [core_client.py:702] [shutdown] MPClient: "
           "engine core exited unexpectedly; starting cleanup\n"
           "(APIServer pid=1) ERROR 01-01 00:00:09 [async_llm.py:704] vllm.v1.engine.exceptions."
           "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root "
           "cause.\n")
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "host_oom_killed")
    crashed = ("(EngineCore pid=2) RuntimeError: CUDA error: an illegal memory access was "
               "encountered\n")
    assert diagnose_text(crashed + log).root_cause == "cuda_kernel_fault"


def test_an_engine_core_error_above_the_report_is_not_a_silent_death() -> None:
    log = "(EngineCore pid=2) ValueError: frobnication_level is invalid\n"
    assert diagnose_text(log + _ENGINE_FAILED).root_cause == "unknown"


def test_a_worker_killed_while_starting_died_silently() -> None:
    log = ("(EngineCore pid=2) ERROR 12-04 18:58:20 [core.py:1] Exception: WorkerProc "
           "initialization failed due to an exception in a background process. See stack trace "
           "for root cause.\n")
    assert diagnose_text(log).root_cause == "host_oom_killed"


def test_an_error_below_a_long_logged_traceback_is_not_a_silent_death() -> None:
    # vLLM logs a worker's traceback at ERROR, frame by frame: its exception comes after more
    # failing lines than the first few kept
    prefix = "(Worker pid=4783) ERROR 12-04 19:18:35 [multiproc_executor.py:901] "
    frames = "".join(f"{prefix}  File \"/tmp/site/vllm/x.py\", line {n}, in f\n" for n in range(40))
    log = (frames + prefix + "RuntimeError: the frobnicator is in progress\n"
           + "(EngineCore pid=4560) ERROR 12-04 19:18:38 [core.py:1330] Exception: WorkerProc "
           "initialization failed due to an exception in a background process.\n")
    result = diagnose_text(log)
    assert result.root_cause == "unknown"
    assert result.first_failure is not None and result.first_failure.line == 41


def test_an_exception_of_a_class_not_named_error_is_not_a_silent_death() -> None:
    # torch._dynamo's exception class ends in neither Error nor Exception; its module path says
    # it is one: the engine died of it, not silently (which would read as a host OOM kill).
    log = ("(EngineCore pid=2) ERROR 01-01 00:00:01 [core.py:1] torch._dynamo.exc.Unsupported: "
           "torch.* op returned non-Tensor int call_function aten.sym_size\n")
    result = diagnose_text(log + _ENGINE_FAILED)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")
    assert result.first_failure is not None and result.first_failure.line == 1


_REFUSED = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:93, "
            "remote process exited or there was a network error\n[rank1]: Last error:\n"
            "[rank1]: socketPollConnect: connect to 10.0.0.1<46055> returned Connection refused, "
            "exceeded error retry count after 35 attempts\n")


def test_a_refused_connection_alone_is_a_peer_not_listening() -> None:
    assert diagnose_text(_REFUSED).root_cause == "rendezvous_unreachable"


def test_a_refused_connection_to_a_loopback_peer_is_a_host_only_interface() -> None:
    assert diagnose_text(_REFUSED.replace("10.0.0.1", "127.0.0.1")).root_cause == (
        "socket_ifname_wrong")


def test_a_refused_connection_after_a_peer_failed_follows_from_that_failure() -> None:
    peer_failed = ("[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                   "249.97 GiB.\n" + "[rank0]: (training goes on restarting)\n" * 8)
    result = diagnose_text(peer_failed + _REFUSED)
    assert result.root_cause == "gpu_oom"
    refused = next(c for c in result.candidates if c.root_cause == "rendezvous_unreachable")
    assert refused.kind == "consequence"


# A node's firewall rejecting NCCL's ephemeral port (round111, made on the H200 with iptables
# REJECT in a network namespace): the peer is on the rendezvous subnet, so the NIC is right.
_NO_ROUTE_TO_PEER = (
    "# node 0: $ NCCL_SOCKET_IFNAME=eth1 python3 -m torch.distributed.run --nnodes 2 "
    "--master-addr 10.73.1.1 --master-port 29500 --node-rank 0 ddp.py\n"
    "[2026-12-04 17:18:20] trn-node-0:1149:1149 [0] misc/socket.cc:583 NCCL WARN "
    "socketPollConnect: connect to 10.73.1.2<49913> returned No route to host, exceeded error "
    "retry count after 35 attempts\n"
    "[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1985, "
    "unhandled system error\n")


def test_no_route_to_a_peer_on_the_rendezvous_subnet_is_a_firewall_not_the_interface() -> None:
    result = diagnose_text(_NO_ROUTE_TO_PEER)
    assert (result.layer, result.root_cause) == ("network", "rendezvous_unreachable")
    assert "10.73.1.2" in result.candidates[0].explanation
    assert result.candidates[0].evidence[0].line == 2


@pytest.mark.parametrize("log", [
    _NO_ROUTE_TO_PEER.replace("connect to 10.73.1.2", "connect to 10.20.0.5"),  # another network
    _NO_ROUTE_TO_PEER.replace("No route to host", "Network is unreachable"),  # no route at all
    _NO_ROUTE_TO_PEER.split("\n", 1)[1],  # no rendezvous address to compare with
])
def test_no_route_to_a_peer_off_the_rendezvous_subnet_is_still_the_interface(log: str) -> None:
    assert diagnose_text(log).root_cause == "socket_ifname_wrong"


def test_rendezvous_addresses_are_read_as_each_launcher_writes_them() -> None:
    for text in ("'master_addr': '10.70.3.1', 'nnodes': 2", "--master-addr 10.70.3.1",
                 'export MASTER_ADDR="10.70.3.1"', "distributed_init_method=tcp://10.70.3.1:29501"):
        assert firewall.rendezvous_address(text) == "10.70.3.1", text
    assert firewall.rendezvous_address("master_addr: node-0") is None


@pytest.mark.parametrize("log", ["[rank0]: RuntimeError: world_size (4) is not divisible by 8\n",
                                 "[rank0]: AssertionError: world_size (4) not divisible by "
                                 "tp_size (8)\n"])
def test_a_world_smaller_than_the_model_parallel_size_needs_more_gpus(log: str) -> None:
    result = diagnose_text(log)
    assert (result.layer, result.root_cause) == ("visibility", "gpu_count_insufficient")


def test_a_world_that_is_no_multiple_of_the_model_parallel_size_is_short_of_gpus() -> None:
    # 31 nodes of 8 after one was excluded, for a model-parallel size of 32
    result = diagnose_text("[rank0]: RuntimeError: world_size (248) is not divisible by 32\n")
    assert result.root_cause == "gpu_count_insufficient"
    assert "7 whole model replicas of 32 and 24 GPUs over" in result.candidates[0].explanation


def _startup_check(free: float, total: float, utilization: float) -> str:
    return (f"(EngineCore pid=2) ValueError: Free memory on device cuda:0 ({free}/{total} GiB) "
            "on startup is less than\ndesired GPU memory utilization "
            f"({utilization}, {utilization * total:.2f} GiB). Decrease GPU memory utilization "
            "or reduce GPU memory used by other processes.\n")


def test_a_nearly_empty_gpu_short_of_the_utilization_means_the_flag_asks_too_much() -> None:
    result = diagnose_text(_startup_check(173.8, 178.35, 0.98))
    assert result.root_cause == "gpu_memory_utilization_too_high"
    assert result.candidates[0].evidence[0].line == 1


def test_the_startup_check_without_a_device_name_is_read_too() -> None:
    # vLLM releases that print no device: "Free memory on device (21.71/22.49 GiB) on startup"
    log = _startup_check(21.71, 22.49, 0.98).replace("device cuda:0 (", "device (")
    assert diagnose_text(log).root_cause == "gpu_memory_utilization_too_high"


def test_a_gpu_with_much_memory_taken_at_startup_is_held_by_another_process() -> None:
    assert diagnose_text(_startup_check(18.77, 139.8, 0.92)).root_cause == "stale_gpu_process"


def _torch_oom(other_gib: float, own_gib: float) -> str:
    return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 GiB. GPU 0 has a "
            "total capacity of 139.80 GiB of which 4.49 GiB is free. Process 8308 has "
            f"{other_gib} GiB memory in use. Including non-PyTorch memory, this process has "
            f"{own_gib} GiB memory in use.\n")


def test_an_oom_with_another_process_holding_most_of_the_gpu_is_that_process() -> None:
    context = ("INFO [gpu_worker.py:479] Initial free memory 16.77 GiB, reserved 24.0 GiB memory "
               "for KV Cache as specified by kv_cache_memory_bytes config\n")
    result = diagnose_text(context + _torch_oom(122.51, 12.79))
    assert result.root_cause == "stale_gpu_process"
    assert "Process 8308 holds 122.5" in result.candidates[0].explanation


def test_an_oom_where_the_listed_process_is_this_one_is_not_another_process() -> None:
    # in a container torch lists this process by its PID too, with about its own share
    assert diagnose_text(_torch_oom(50.96, 50.96)).root_cause == "gpu_oom"
    assert diagnose_text(_torch_oom(30.0, 3.0)).root_cause == "gpu_oom"  # under a quarter


def test_an_oom_listing_no_process_leaves_to_others_what_is_neither_free_nor_its_own() -> None:
    def unlisted(own_gib: float) -> str:
        return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB. GPU 0 "
                "has a total capacity of 79.25 GiB of which 21.75 MiB is free. Including "
                f"non-PyTorch memory, this process has {own_gib} GiB memory in use.\n")
    result = diagnose_text(unlisted(6.02))
    assert result.root_cause == "stale_gpu_process"
    assert "held the other 73.2" in result.candidates[0].explanation
    assert diagnose_text(unlisted(78.9)).root_cause == "gpu_oom"  # it filled the GPU itself


def test_an_oom_names_this_process_by_what_pytorch_holds_in_older_torch() -> None:
    # no "this process has": PyTorch's allocated and reserved memory, short of the CUDA context
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a "
           "total capacity of 79.25 GiB of which 1.21 GiB is free. Process 2214 has 57.90 GiB "
           "memory in use. Process 7712 has 20.12 GiB memory in use. Of the allocated memory "
           "17.48 GiB is allocated by PyTorch, and 1.91 GiB is reserved by PyTorch but "
           "unallocated.\n")
    result = diagnose_text(oom)
    assert result.root_cause == "stale_gpu_process"
    assert "Process 2214 holds 57.9" in result.candidates[0].explanation
    # the one process listed is this one, with its CUDA graphs beyond what PyTorch holds
    alone = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has "
             "a total capacty of 44.35 GiB of which 53.38 MiB is free. Process 3663367 has "
             "44.28 GiB memory in use. Of the allocated memory 37.38 GiB is allocated by "
             "PyTorch, and 275.68 MiB is reserved by PyTorch but unallocated.\n")
    assert diagnose_text(alone).root_cause != "stale_gpu_process"


def test_an_exception_raised_without_a_message_is_a_failing_line() -> None:
    for newline in ("\n", "\r\n"):
        log = newline.join(["Traceback (most recent call last):", '  File "x.py", line 3',
                            "    raise TimeoutError", "TimeoutError", ""])
        result = diagnose_text(log)
        assert result.first_failure is not None and result.first_failure.line == 4


def test_threads_that_cannot_start_are_the_process_limit() -> None:
    log = ("OpenBLAS blas_thread_init: pthread_create failed for thread 6 of 16: "
           "Resource temporarily unavailable\n")
    result = diagnose_text(log)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "pids_limit_too_low")


def test_a_thread_that_fails_to_start_for_another_reason_is_still_a_resources_failure() -> None:
    log = ("OpenBLAS blas_thread_init: pthread_create failed for thread 6 of 16: "
           "Operation not permitted\n")
    result = diagnose_text(log)
    assert (result.status, result.layer) == (Status.UNKNOWN, "resources")


def test_a_rust_panic_is_a_failure() -> None:
    log = "thread 'main' panicked at src/backend/mod.rs:88:9:\nindex out of bounds\n"
    assert diagnose_text(log).status is Status.UNKNOWN


def test_a_pci_bar_the_kernel_could_not_assign_is_a_visibility_failure() -> None:
    log = ("[   23.869384] pci 0000:51:00.0: BAR 15: no space for [mem size 0x04000000]\n"
           "[   23.869386] pci 0000:51:00.0: BAR 15: failed to assign [mem size 0x04000000]\n")
    result = diagnose_text(log)
    assert (result.status, result.layer) == (Status.UNKNOWN, "visibility")


def test_slurm_error_lines_are_failures() -> None:
    log = ("srun: error: Unable to create step for job 48213: "
           "Socket timed out on send/recv operation\n")
    assert diagnose_text(log).status is Status.UNKNOWN


def test_a_ctrl_c_before_the_server_was_ready_is_not_a_clean_stop() -> None:
    log = "(APIServer pid=1) INFO 01-01 00:00:01 [api_server.py:1] Starting vLLM API server\n"
    result = diagnose_text(log + _STOPPED.replace("SIGTERM", "SIGINT"))
    assert result.status is Status.UNKNOWN


_READY = "(APIServer pid=1) INFO:     Application startup complete.\n"


def test_a_ctrl_c_after_the_server_was_ready_is_a_clean_stop() -> None:
    log = "(APIServer pid=1) INFO 01-01 00:00:01 [api_server.py:1] Starting vLLM API server\n"
    result = diagnose_text(log + _READY + _STOPPED.replace("SIGTERM", "SIGINT"))
    assert (result.status, result.root_cause) == (Status.NO_FAILURE, "none")


def _real(name: str) -> str:
    return next(LOGS.glob(f"*/{name}")).read_text()


def test_a_service_restarted_after_a_clean_stop_is_judged_by_its_new_run() -> None:
    """A journal of a vLLM service: a healthy run stopped with SIGTERM, then a restart that
    failed. The earlier stop must not make the new run's failure read as teardown."""
    restarted = _real("h200-vllm026-serve-ok.log") + _real("h200-vllm026-pp2-on-1gpu.log")
    result = diagnose_text(restarted)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "gpu_count_insufficient")
    assert result.note is not None and "from line 120" in result.note


def test_teardown_errors_of_a_run_stopped_before_a_restart_stay_teardown() -> None:
    healthy = _real("h200-vllm026-serve-ok.log")
    launch = ("(APIServer pid=7) INFO 01-01 00:01:00 [utils.py:1] non-default args: "
              "{'model_tag': '/tmp/tiny'}\n")
    result = diagnose_text(_READY + _STOPPED + launch + healthy)
    assert (result.status, result.root_cause) == (Status.NO_FAILURE, "none")


def test_a_launch_after_a_failed_run_does_not_hide_that_failure() -> None:
    """Only a run stopped healthy is left behind: one that failed, then was restarted (a
    crash loop), still shows its failure."""
    crashed = _real("h200-vllm026-pp2-on-1gpu.log")
    result = diagnose_text(crashed + _real("h200-vllm026-serve-ok.log"))
    assert (result.root_cause, result.note) == ("gpu_count_insufficient", None)


_RETRYING = ("[W1203 14:40:46.328611839 TCPStore.cpp:340] [c10d] TCP client failed to "
             "connect/validate to host 127.0.0.1:29662 - retrying (try=0, timeout=600000ms, "
             "delay=42557ms): Interrupted system call\n")


def test_a_hang_ended_with_ctrl_c_is_explained_by_what_came_before_the_interrupt() -> None:
    interrupted = ("(EngineCore pid=2) Traceback (most recent call last):\n"
                   "(EngineCore pid=2) KeyboardInterrupt\n")
    result = diagnose_text(_RETRYING + interrupted + _ENGINE_FAILED)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "rendezvous_unreachable")
    assert result.candidates[0].evidence[0].line == 1


def test_no_ib_device_does_not_explain_a_hang_once_nccl_chose_sockets() -> None:
    setup = ("node-0:877:877 [0] NCCL INFO NET/IB : No device found.\n"
             "node-0:877:877 [0] NCCL INFO NET/Socket : Using [0]eth1:10.77.51.1<0>\n"
             "node-0:877:877 [0] NCCL INFO Using network Socket\n"
             "node-0:877:877 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 "
             "cudaDev 0 nvmlDev 0 busId 60 commId 0xedfe - Init START\n")
    interrupted = ("W1204 10:49:44.007000 615 torch/distributed/elastic/agent/server/api.py:739] "
                   "Received 2 death signal, shutting down workers\n")
    assert diagnose_text(setup + interrupted).root_cause != "ib_unavailable"
    without_fallback = setup.replace("Using network Socket", "Using network IB")
    assert diagnose_text(without_fallback + interrupted).root_cause == "ib_unavailable"


# The C++ backtrace torch prints under a c10d warning: its header, then one line per frame.
_BACKTRACE = ("Exception raised from delay at /pytorch/torch/csrc/distributed/c10d/socket.cpp:113 "
              "(most recent call first):\n")
_FRAME = ("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d (0x7f88 in "
          "libc10.so)\n")
_TEARDOWN = ("WARNING 12-03 20:30:14 [multiproc_executor.py:441] [shutdown] Executor: workers "
             "still running after grace period; sending SIGTERM count=1\n")


def test_a_run_still_retrying_the_rendezvous_when_torn_down_waited_for_it() -> None:
    """A headless vLLM node whose head never came up: its only clue is the retry it was
    still in when it was shut down (the warning's backtrace and teardown follow it)."""
    shutdown = ("INFO 12-03 20:30:09 [multiproc_executor.py:429] [shutdown] Executor: waiting "
                "for worker exit count=1\n")
    result = diagnose_text(shutdown + _RETRYING + _BACKTRACE + _FRAME * 30 + _TEARDOWN)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "rendezvous_unreachable")
    assert result.candidates[0].kind == "cause"


def test_a_rendezvous_retry_the_run_got_past_is_only_a_hint() -> None:
    later_work = "INFO 12-03 20:30:09 [gpu_model_runner.py:1] Loading model weights\n" * 5
    result = diagnose_text(_RETRYING + later_work + _TEARDOWN)
    assert result.status is Status.NO_FAILURE
    assert [c.kind for c in result.candidates] == ["hint"]


def test_a_data_parallel_head_interrupted_while_waiting_for_remote_engines_is_stuck_there() -> None:
    waiting = ("DEBUG 12-03 22:50:12 [v1/engine/utils.py:1257] Waiting for 0 local, 1 remote core "
               "engine proc(s) to connect.\n")
    interrupted = ("DEBUG 12-03 22:50:16 [entrypoints/cli/serve.py:276] Received 2 signal.\n"
                   + "INFO 12-03 22:50:16 [v1/engine/coordinator.py:183] DP Coordinator process "
                   "exiting\n" * 4)
    result = diagnose_text(waiting * 3 + interrupted)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "rendezvous_unreachable")


def test_a_run_interrupted_after_waiting_for_a_placement_group_is_stuck_there() -> None:
    """The wait, not vLLM's earlier warning that TP exceeds the GPUs, explains the hang, even
    with the interrupt's long traceback between them."""
    warned = ("(EngineCore pid=2) WARNING 12-04 05:52:54 [ray_utils.py:559] Tensor parallel size "
              "(2) exceeds available GPUs (1). This may result in Ray placement group allocation "
              "failures.\n")
    waiting = ("(EngineCore pid=2) INFO 12-04 05:53:05 [ray_utils.py:467] Waiting for creating a "
               "placement group of specs for 10 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}].\n")
    interrupted = ("(EngineCore pid=2) Traceback (most recent call last):\n"
                   + "(EngineCore pid=2)   File \"/vllm/v1/executor/ray_utils.py\", line 1\n" * 30
                   + "(EngineCore pid=2) KeyboardInterrupt\n")
    result = diagnose_text(warned + waiting + interrupted + _ENGINE_FAILED)
    assert (result.root_cause, result.candidates[0].kind) == ("ray_cluster_incomplete", "cause")


def test_a_backtrace_printed_under_a_warning_is_not_a_failure() -> None:
    assert diagnose_text(_READY + _BACKTRACE + _FRAME).status is Status.NO_FAILURE


def test_a_pydantic_error_is_shown_by_its_message_not_its_header() -> None:
    log = ("(APIServer pid=7) Traceback (most recent call last):\n"
           "(APIServer pid=7)   File \"/vllm/engine/arg_utils.py\", line 1, in create\n"
           "(APIServer pid=7) pydantic_core._pydantic_core.ValidationError: 1 validation error for "
           "SchedulerConfig\n"
           "(APIServer pid=7)   Value error, frobnication (3) must not exceed widgets (2). "
           "[type=value_error, input_value=ArgsKwargs(()), input_type=ArgsKwargs]\n")
    result = diagnose_text(log)
    assert result.status is Status.UNKNOWN
    assert result.first_failure is not None and result.first_failure.line == 4


def test_an_ld_preload_entry_the_loader_ignored_is_not_a_failure() -> None:
    ignored = ("ERROR: ld.so: object '/opt/libfoo.so' from LD_PRELOAD cannot be preloaded "
               "(cannot open shared object file): ignored.\n")
    assert diagnose_text(ignored * 3 + "INFO ready\n").status is Status.NO_FAILURE
    result = diagnose_text(ignored + "Traceback (most recent call last):\nKeyError: 'x'\n")
    assert result.status is Status.UNKNOWN
    assert result.first_failure is not None and result.first_failure.line == 3


def test_an_environment_variable_named_after_errors_is_not_a_failure() -> None:
    command = "$ TORCH_NCCL_ASYNC_ERROR_HANDLING=1 NCCL_DEBUG=INFO torchrun --nnodes 2 train.py\n"
    assert diagnose_text(command + "step 8 loss 0.1\n").status is Status.NO_FAILURE
    failing = "ERROR: train.py exited with TORCH_NCCL_ASYNC_ERROR_HANDLING=1 set\n"
    assert diagnose_text(command + failing).status is Status.UNKNOWN


_KILLED = ("E1204 12:31:40.139000 706 torch/distributed/elastic/multiprocessing/api.py:986] "
           "failed (exitcode: -9) local_rank: 0 (pid: 982) of binary: /usr/bin/python\n")
_PEER_GONE = ("[2026-12-04 12:31:39] node1:981:1135 [0] misc/socket.cc:72 NCCL WARN "
              "socketProgress: Connection closed by remote peer node0<47880>\n")
_TIMEOUT = ("[rank1]:[E1204 12:31:40.02 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, "
            "Timeout(ms)=30000) ran for 30012 milliseconds before timing out.\n")


def test_a_rank_killed_before_its_peers_timed_out_explains_the_timeouts() -> None:
    # The peers' dead-peer report may come before the launcher's; the kill still came
    # before the timeouts, which are then its consequence.
    result = diagnose_text(_PEER_GONE + _KILLED + _TIMEOUT)
    assert result.root_cause == "host_oom_killed"
    assert result.status is Status.CAUSE_FOUND


def test_a_hung_job_killed_after_its_timeouts_stays_a_timeout() -> None:
    harness = "./run.sh: line 99:   497 Killed                  timeout -s INT 300 torchrun\n"
    assert diagnose_text(_TIMEOUT + harness).root_cause == "nccl_timeout_rank_died"


def test_lines_of_a_merged_signature_are_cited_not_unexplained() -> None:
    # the dead-peer WARN is process-died's, merged into the watchdog's candidate: the failure
    # is explained by the timeouts, not an unknown exception before them
    result = diagnose_text(_PEER_GONE + _TIMEOUT)
    assert result.root_cause == "nccl_timeout_rank_died"
    assert [e.line for e in result.candidates[0].evidence] == [2, 1]


_UNHANDLED_CUDA = ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:2204, "
                   "unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n"
                   "ncclUnhandledCudaError: Call to CUDA function failed.\n")


def test_nccl_s_unhandled_cuda_error_defers_to_the_cuda_error_it_wraps() -> None:
    assert diagnose_text(_UNHANDLED_CUDA).root_cause == "nccl_internal_error"  # nothing else said
    fault = "host:1:2 [0] proxy.cc:1044 NCCL WARN Cuda failure 'unspecified launch failure'\n"
    assert diagnose_text(fault + _UNHANDLED_CUDA).root_cause == "cuda_kernel_fault"


def test_a_network_plugin_s_warn_before_a_dead_worker_is_the_unknown_cause() -> None:
    # a NET plugin's own error no signature knows, then the worker that aborted on it
    warn = ("node-0:1733:1733 [0] tcpdirect_plugin/common.cc:90 NCCL WARN NET/FasTrak: frobnicator "
            "refused the handshake\n")
    died = ("ERROR 12-04 20:41:13 [worker_base.py:620] Error executing method 'init_device'.\n"
            "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing.\n")
    result = diagnose_text(warn + died)
    assert (result.status, result.root_cause) == (Status.UNKNOWN, "unknown")
    assert result.layer == "communication" and "NCCL WARN" in result.suspicious[0].text
    assert result.first_failure is not None and result.first_failure.line == 1  # not the death
    # the dead actor alone proves a failure it cannot explain
    assert diagnose_text(died).status is Status.UNKNOWN


_RAY_NOT_UP = ("[2026-09-18 11:02:15,002] Failed to initialize Ray: Could not find any running "
               "Ray instance. Please specify the one to connect to by setting `--address` flag "
               "or `RAY_ADDRESS` environment variable.\n")


def test_a_wait_for_a_peer_that_ends_when_the_server_becomes_ready_is_no_failure() -> None:
    assert diagnose_text(_RAY_NOT_UP).status is Status.CAUSE_FOUND
    result = diagnose_text(_RAY_NOT_UP + "Ray not ready yet. Retrying in 2 seconds...\n" + _READY)
    assert (result.status, result.root_cause) == (Status.NO_FAILURE, "none")


def test_a_validator_waiting_for_the_driver_container_is_over_once_the_server_is_ready() -> None:
    waiting = ("running command chroot with args [/run/nvidia/driver nvidia-smi]\n"
               "chroot: failed to run command 'nvidia-smi': No such file or directory\n"
               "command failed, retrying after 5 seconds\n")
    assert diagnose_text(waiting).root_cause == "nvidia_driver_missing"
    assert diagnose_text(waiting + _READY).status is Status.NO_FAILURE


def test_a_broken_library_stays_the_cause_although_the_server_became_ready() -> None:
    log = ("(Worker pid=1895) ERROR 12-03 15:21:23 [pynccl_wrapper.py:339] Failed to load NCCL "
           "library from /usr/local/nccl/lib/libnccl.so.2. It is expected if you are not running "
           "on NVIDIA/AMD GPUs.\n")
    result = diagnose_text(log + _READY)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "nccl_library_load_failed")


def test_an_exception_before_the_server_became_ready_is_still_a_failure() -> None:
    log = _RAY_NOT_UP + "Traceback (most recent call last):\nRuntimeError: worker died\n"
    assert diagnose_text(log + _READY).status is not Status.NO_FAILURE


_PENDING = ("  Warning  FailedScheduling  17m  default-scheduler  0/9 nodes are available: "
            "6 Insufficient nvidia.com/gpu. preemption: 0/9 nodes are available.\n")


def test_a_pod_pending_for_gpus_is_the_cause_only_while_it_waits() -> None:
    assert diagnose_text(_PENDING).root_cause == "gpu_count_insufficient"
    scheduled = ("  Normal   Scheduled  3m  default-scheduler  Successfully assigned "
                 "eval/mmlu-0 to ip-10-20-141-37\n")
    assert diagnose_text(_PENDING + scheduled).status is Status.NO_FAILURE


def test_a_pod_pending_for_gpus_yields_to_another_cause_after_it() -> None:
    failure = ("[rank29]:RuntimeError: unable to open shared memory object </torch_1_2093> in "
               "read-write mode: Too many open files (24)\n")
    result = diagnose_text(_PENDING + failure)
    assert result.root_cause == "fd_limit_too_low"
    refused = ("  Normal   NotTriggerScaleUp  14m  cluster-autoscaler  pod didn't trigger "
               "scale-up: 1 Insufficient nvidia.com/gpu\n")
    assert diagnose_text(_PENDING + refused + _RAY_NOT_UP).root_cause == "gpu_count_insufficient"


_EXIT_BARRIER = ("E1205 16:19:15.856000 612 torch/distributed/elastic/agent/server/api.py:992] "
                 "Error waiting on exit barrier. Elapsed: {} seconds\n"
                 "E1205 16:19:15.856000 612 torch/distributed/elastic/agent/server/api.py:992] "
                 "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was "
                 "likely closed. Did the remote server shutdown or crash?\n")


def test_torchrun_losing_its_store_at_the_exit_barrier_right_away_is_no_failure() -> None:
    assert diagnose_text(_EXIT_BARRIER.format("0.0269625186920166")).status is Status.NO_FAILURE
    # after the barrier's whole timeout: a peer agent never finished
    assert diagnose_text(_EXIT_BARRIER.format("300.7731730937958")).status is not Status.NO_FAILURE


@pytest.mark.parametrize("line", [
    # huggingface_hub resuming a download (it raises when its tries run out)
    "(Worker_TP0 pid=401) Error while downloading from https://huggingface.co/Qwen/Qwen3-32B/"
    "resolve/main/model-00009-of-00017.safetensors: [Errno 104] Connection reset by peer",
    # SGLang's model registry skipping a model class it cannot import
    "[2026-08-03 11:02:03 TP0] Ignore import error when loading sglang.srt.models.glm4v_moe: "
    "No module named 'transformers.models.glm4v_moe'",
    # slurmstepd's cgroup v1 failcnt (page cache counts): an OOM kill is worded otherwise
    "slurmstepd: error: Exceeded step memory limit at some point.",
    # NCCL ignoring a setting it cannot parse
    "dgx-b14:118402:118466 [0] p2p_plugin.c:141 NCCL WARN Invalid value ucx-rma for "
    "NCCL_PLUGIN_P2P, using default",
    # NCCL's proxy closing connections its peers closed first, as communicators are destroyed
    "gpu-c04:38802:39110 [3] NCCL WARN [Service thread] Error encountered progressing "
    "operation=Close, res=3, closing connection",
    "gpu-c04:38802:39110 [3] NCCL WARN [Proxy Service 11] Failed to execute operation Close "
    "from rank 11, retcode 3",
    # SGLang rounding a setting to what a kernel needs
    "[2026-12-06 09:14:05] Breakable prefill CUDA graph with DeepEP requires bucket sizes "
    "divisible by 8; aligning [1, 2, 4, 12] -> [8, 16]",
    # Composer's auto microbatching, halving the microbatch after an out-of-memory it caught
    "/opt/conda/lib/python3.11/site-packages/composer/trainer/trainer.py:366: RuntimeWarning: "
    "CUDA out of memory or excessive memory allocation retries detected. Train microbatch size "
    "will be decreased from 8 -> 4.",
    # a Lustre client's request it resends once the connection is restored
    "[Sat Dec 12 11:04:02 2026] Lustre: 2441:0:(client.c:2350:ptlrpc_expire_one_request()) @@@ "
    "Request sent has failed due to network error: [sent 1797073442/real 1797073442]",
    # cuFile without GPUDirect Storage's module, in compatible mode
    "09-12-2026 01:14:02:131 [pid=901224 tid=901224] ERROR  cufio-drv:716 nvidia-fs.ko driver "
    "not loaded",
    # XLA's GPU timer, before it measures autotuning candidates
    "E1209 22:00:09.311402  501122 cuda_timer.cc:87] Delay kernel timed out: measured time has "
    "sub-optimal accuracy. There may be a missing warmup execution, please investigate in "
    "Nsight Systems.",
])
def test_errors_the_run_goes_on_after_are_no_failure(line: str) -> None:
    assert diagnose_text(line + "\n").status is Status.NO_FAILURE


def test_a_parallel_plan_an_admission_webhook_refuses_is_a_partitioning_failure() -> None:
    log = ('for: "llmisvc.yaml": error when patching "llmisvc.yaml": admission webhook '
           '"llminferenceservice.kserve-webhook-server.v1alpha2.validator" denied the request: '
           'spec.parallelism: Invalid value: {"tensor":8,"pipeline":2,"data":4}: cannot set both '
           'pipeline parallelism and data parallelism\n')
    result = diagnose_text(log)
    assert (result.status, result.layer) == (Status.UNKNOWN, "partitioning")


_WATCHDOG = ("[rank3]:[E311 02:14:41.022133 241 ProcessGroupNCCL.cpp:2027] [PG ID 0 PG GUID 0"
             "(default_pg) Rank 3] Process group watchdog thread terminated with exception: "
             "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, "
             "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600042 "
             "milliseconds before timing out.\n")
_STEPS = "".join(f"step {n} | loss 1.40{n % 10} | 4.08 s/step\n" for n in range(18201, 18204))


def test_a_run_that_trained_on_after_its_peers_timed_out_recovered() -> None:
    assert diagnose_text(_WATCHDOG).status is not Status.NO_FAILURE
    assert diagnose_text(_WATCHDOG + _STEPS).status is Status.NO_FAILURE
    # one step may be one that finished while the peer was failing
    assert diagnose_text(_WATCHDOG + _STEPS.splitlines(keepends=True)[0]).status \
        is not Status.NO_FAILURE


def test_a_cause_stays_one_however_long_the_run_trained_on() -> None:
    # a GPU slowed for heat: the run trains on, slower (what NCCL only notes, a GID table
    # change, is another matter: test_a_gid_table_change_the_run_trained_past_is_no_failure)
    slowdown = "        HW Slowdown                       : Active\n"
    result = diagnose_text(slowdown + _STEPS)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND, "gpu_throttled")


def test_training_steps_and_served_requests_are_read_off_the_end_of_the_input() -> None:
    tail = (b"cut first line\nstep 3 | loss 1.2\nnothing\n"
            b"Epoch 12:  52%| 2601/5004 [1:18:46, loss=2.064]\n"
            b'INFO:     10.0.0.7:5122 - "POST /v1/completions HTTP/1.1" 200 OK\n'
            b"Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s\n"
            b"Avg prompt throughput: 12.1 tokens/s, Avg generation throughput: 88.4 tokens/s\n")
    assert recovery.progress_lines(tail, 107) == recovery.Progress([102, 104], [105, 107])


def test_verl_s_step_metrics_are_training_steps_without_a_loss() -> None:
    tail = (b"cut first line\n"
            b"(TaskRunner pid=219870) step:40 - critic/score/mean:0.402 - timing_s/step:117.92\n"
            b"step:2 - done\n")  # a step with no metric is no training step
    assert recovery.progress_lines(tail, 3).steps == [2]


def test_openrlhf_s_episodes_are_training_steps_once_one_is_done() -> None:
    tail = (b"cut first line\n"
            b"Episode [1/1]:   0%|          | 0/120 [00:00<?, ?it/s]\n"
            b"Episode [1/1]:  10%|#         | 12/120 [1:11:40<10:44:22, 358.06s/it]\n")
    assert recovery.progress_lines(tail, 3).steps == [3]


_SERVED_LINE = ('INFO:     10.0.0.7:5122 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n')
_BAD_REQUEST = ("ERROR 12-05 19:02:08 [serving_chat.py:210] Error in preprocessing prompt\n"
                "Traceback (most recent call last):\n"
                '  File "/app/server.py", line 88, in create_chat_completion\n'
                "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 2 column 1\n")


def test_a_bad_request_s_traceback_is_no_failure_when_the_server_served_on() -> None:
    result = diagnose_text(_SERVED_LINE * 3 + _BAD_REQUEST + _SERVED_LINE * 3)
    assert result.status is Status.NO_FAILURE


def test_a_bad_request_after_the_server_became_ready_is_no_failure_when_it_served_on() -> None:
    probe = ("3h12m  Warning  Unhealthy  pod/vlm-5b8d6f9c7-t7x4m  Startup probe failed: Get "
             '"http://10.244.27.51:8000/health": dial tcp 10.244.27.51:8000: connect: refused\n')
    ready = "(APIServer pid=1) INFO:     Application startup complete.\n"
    result = diagnose_text(probe + ready + _BAD_REQUEST + _SERVED_LINE * 3)
    assert result.status is Status.NO_FAILURE


def test_an_error_line_no_signature_knows_is_no_failure_when_the_server_served_on() -> None:
    lost = ("[2026-12-08 15:59:41 DP3 TP3 EP3] Decode transfer failed for request rank=3 "
            "decode_req.req.rid='b71e0c3a' with exception KVTransferError(bootstrap_room=66): "
            "Failed to get kvcache from prefill instance, it might be dead\n")
    assert diagnose_text(_SERVED_LINE * 3 + lost + _SERVED_LINE * 3).status is Status.NO_FAILURE
    assert diagnose_text(_SERVED_LINE * 3 + lost).status is not Status.NO_FAILURE


def test_a_bad_request_after_vllm_started_its_api_server_is_no_failure() -> None:
    started = ("(APIServer pid=8811) INFO 12-10 20:56:40 [api_server.py:1957] Starting vLLM API "
               "server 0 on http://0.0.0.0:8000\n")
    throughput = ("INFO 12-10 21:04:10 [loggers.py:127] Engine 000: Avg prompt throughput: 1588.2 "
                  "tokens/s, Avg generation throughput: 301.6 tokens/s\n")
    assert diagnose_text(started + _BAD_REQUEST + throughput * 2).status is Status.NO_FAILURE
    assert diagnose_text(_BAD_REQUEST + started + throughput * 2).status is not Status.NO_FAILURE


@pytest.mark.parametrize("log", [
    _BAD_REQUEST + _SERVED_LINE * 3,  # it never served before: the failure may be its start-up
    _SERVED_LINE * 3 + _BAD_REQUEST + _SERVED_LINE,  # one answer after it proves little
    _SERVED_LINE * 3 + _BAD_REQUEST + "RuntimeError: CUDA error: an illegal memory access was "
    "encountered\n" + _SERVED_LINE * 3,  # a cause stays one
])
def test_a_failure_while_serving_stays_one_without_the_proof(log: str) -> None:
    assert diagnose_text(log).status is not Status.NO_FAILURE


_RAY_PG_WAIT = ("(EngineCore pid=790) WARNING 11-26 09:18:01 [ray_utils.py:356] The number of "
                "required GPUs exceeds the total number of available GPUs in the placement group.\n"
                "(EngineCore pid=790) INFO 11-26 09:18:11 [ray_utils.py:228] Waiting for creating "
                "a placement group of specs for 10 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. "
                "Check `ray status` and `ray list nodes` to see if you have enough resources, and "
                "make sure the IP addresses used by ray cluster are the same as VLLM_HOST_IP "
                "environment variable specified in each node if you are running on a multi-node.\n")


def test_a_ray_cluster_short_of_the_pod_that_waits_for_gpus_is_the_cause() -> None:
    # the wait is not where the log ends: the engine gave up after it
    result = diagnose_text(_PENDING + _RAY_PG_WAIT + "(APIServer pid=611) RuntimeError: Engine "
                           "core initialization failed. See root cause above.\n" * 6)
    assert result.root_cause == "ray_cluster_incomplete"


def test_a_kernel_fault_before_its_peers_timed_out_goes_above_their_timeouts() -> None:
    log = ("(EngineCore_DP11 pid=61491) ERROR 12-05 14:52:17 [core.py:2806] "
           "torch.AcceleratorError: CUDA error: misaligned address\n"
           "Warning: DeepEP timeout for combine receive, rank 9, local_expert_idx 3, "
           "src_rank 11\n")
    assert diagnose_text(log).root_cause == "cuda_kernel_fault"


_PROBE = ("  Warning  Unhealthy  2m21s (x178 over 33m)  kubelet  Startup probe failed: Get "
          "\"http://10.244.12.7:8000/health\": dial tcp 10.244.12.7:8000: connect: connection "
          "refused\n")


def test_startup_probes_pasted_after_a_ready_server_were_its_start() -> None:
    assert diagnose_text(_RAY_NOT_UP + _READY + _PROBE).status is Status.NO_FAILURE
    # a pod merely placed may still fail its startup probe for good
    placed = ("  Normal   Scheduled  33m  default-scheduler  Successfully assigned "
              "llm/vllm-0 to gpu-h200-c02\n")
    assert diagnose_text(_PENDING + placed + _PROBE).status is not Status.NO_FAILURE


def test_dynamo_s_worker_turning_ready_ends_its_startup_probes() -> None:
    ready = ("2026-12-13T07:33:55.020Z  INFO dynamo_runtime::system_status_server: health status "
             "changed: notready -> ready\n")
    assert diagnose_text(_PROBE + ready).status is Status.NO_FAILURE


_PULL_FAILED = ("  Warning  Failed  17m  kubelet  Failed to pull image \"lmsysorg/sglang:v0.5.6\": "
                "429 Too Many Requests\n  Warning  Failed  17m  kubelet  Error: ErrImagePull\n")


def test_image_pulls_that_failed_before_a_ready_server_were_retried() -> None:
    assert diagnose_text(_PULL_FAILED + _READY).status is Status.NO_FAILURE
    assert diagnose_text(_PULL_FAILED).status is not Status.NO_FAILURE


_PREPARE_LATE = ("  Warning  FailedPrepareDynamicResources  3m7s  kubelet  Failed to prepare "
                 "dynamic resources: prepare dynamic resources: NodePrepareResources failed: "
                 "rpc error: code = DeadlineExceeded desc = context deadline exceeded\n")
_STARTED = "  Normal   Started  1m57s  kubelet  Started container: mpi-worker\n"


def test_a_pod_set_up_late_whose_container_started_is_no_failure() -> None:
    assert diagnose_text(_PREPARE_LATE).status is not Status.NO_FAILURE
    assert diagnose_text(_PREPARE_LATE + _STARTED).status is Status.NO_FAILURE
    assert diagnose_text(_PULL_FAILED + _STARTED).status is Status.NO_FAILURE
    # a container that started is no excuse for what else failed (a probe, a crash)
    assert diagnose_text(_PREPARE_LATE + _PROBE + _STARTED).status is not Status.NO_FAILURE
    assert diagnose_text(_STARTED + _PREPARE_LATE).status is not Status.NO_FAILURE


def test_a_job_whose_restarted_workers_all_succeeded_recovered() -> None:
    failed = ("[rank6]: huggingface_hub.errors.HfHubHTTPError: 504 Server Error: Gateway "
              "Time-out for url: https://huggingface.co/api/datasets/x\n"
              "E0711 04:31:47.208000 88 torch/distributed/elastic/multiprocessing/api.py:874] "
              "failed (exitcode: 1) local_rank: 6 (pid: 412) of binary: /usr/bin/python3\n")
    finished = ("I0711 13:02:44.911000 88 torch/distributed/elastic/agent/server/api.py:892] "
                "[default] worker group successfully finished. Waiting 300 seconds for other "
                "agents to finish.\n")
    assert diagnose_text(failed).status is Status.UNKNOWN
    assert diagnose_text(failed + finished).status is Status.NO_FAILURE
    assert diagnose_text(finished + failed).status is Status.UNKNOWN
    deepspeed = ("gpu-b08: [2026-02-24 12:32:47,512] [INFO] [launch.py:351:main] Process 58117 "
                 "exits successfully.\n")
    assert diagnose_text(failed + deepspeed).status is Status.NO_FAILURE


def test_a_preempted_gromacs_run_that_resumed_and_wrote_its_final_coordinates_recovered() -> None:
    preempted = ("slurmstepd: error: *** JOB 9947310 ON gpu-md02 CANCELLED AT "
                 "2026-12-11T04:40:03 DUE TO PREEMPTION ***\n")
    final = "starting mdrun 'hERG'\n\nWriting final coordinates.\n"
    assert diagnose_text(preempted).status is not Status.NO_FAILURE
    assert diagnose_text(preempted + final).status is Status.NO_FAILURE
    assert diagnose_text(final + preempted).status is not Status.NO_FAILURE


def test_a_ray_job_that_succeeded_after_its_workers_were_killed_recovered() -> None:
    killed = ("(raylet, ip=10.244.14.3) [2026-03-31 02:16:07,540 E 398 433] (raylet) "
              "node_manager.cc:3041: 1 Workers (tasks / actors) killed due to memory pressure "
              "(OOM), 0 Workers crashed due to other reasons at node (ID: a81d6c3e0f29)\n")
    succeeded = "-----------\nJob 'raysubmit_Xb7kq2LmWn4Pz9Rt' succeeded\n"
    assert diagnose_text(killed).root_cause == "host_oom_killed"
    assert diagnose_text(killed + succeeded).status is Status.NO_FAILURE
    logged = "2026-12-07 05:39:20,662 SUCC cli.py:66 -- Job 'raysubmit_Pw3nR8' succeeded\n"
    assert diagnose_text(killed + logged).status is Status.NO_FAILURE
    assert diagnose_text(succeeded + killed).root_cause == "host_oom_killed"


_IB_EVENT = "gpu-d07:1882305:1884471 [4] NCCL WARN NET/IB : mlx5_6:1 Got non-fatal async event: "
_PORT_ERROR, _PORT_ACTIVE = _IB_EVENT + "port error(10)\n", _IB_EVENT + "port active(9)\n"
_LID_CHANGE = _IB_EVENT + "LID change(11)\n"


def test_an_ib_port_that_came_back_up_is_no_failure() -> None:
    assert diagnose_text(_PORT_ERROR + _PORT_ACTIVE + _LID_CHANGE).status is Status.NO_FAILURE
    older = ("NCCL WARN NET/IB : mlx5_3:1 Got async event : port error\n"
             "NCCL INFO NET/IB : mlx5_3:1 Got async event : port active\n")
    assert diagnose_text(older).status is Status.NO_FAILURE
    recovered = ("gpu-h07:2281451:2281590 [0] NCCL WARN NET/IB: Device 1 marked as failed. "
                 "Initiating recovery? Yes\n"
                 "gpu-h07:2281451:2281617 [0] NCCL INFO NET/IB: ncclIbPortRecoveryContextProgress: "
                 "Port recovery succeeded for devIndex=1 (send comm=0x7f2a4c01e8a0)\n")
    assert diagnose_text(recovered).status is Status.NO_FAILURE
    marked = recovered.replace("Port recovery succeeded for devIndex=1",
                               "Marking device 1 as recovered")  # its receiving side
    assert diagnose_text(marked).status is Status.NO_FAILURE


@pytest.mark.parametrize("log", [_PORT_ERROR, _PORT_ERROR + _PORT_ACTIVE + _PORT_ERROR])
def test_an_ib_port_still_down_at_the_end_is_the_hca(log: str) -> None:
    assert diagnose_text(log).root_cause == "ib_hca_unusable"


def test_an_mlperf_run_that_stopped_with_success_after_a_failing_line_recovered() -> None:
    flap = ("37: sut-h200-05:189203:189911 [5] NCCL WARN NET/IB : mlx5_9:1 Got async event : "
            "port error\n")
    stop = (':::MLLOG {"namespace": "", "time_ms": 1765246827016, "event_type": "INTERVAL_END", '
            '"key": "run_stop", "value": null, "metadata": {"status": "success"}}\n')
    assert diagnose_text(flap + stop).status is Status.NO_FAILURE
    assert diagnose_text(flap + stop.replace("success", "aborted")).status is Status.CAUSE_FOUND


def test_a_ticket_s_parenthesised_remark_quoting_a_failure_is_no_failure() -> None:
    remark = ("(left over from the previous sortie: the stack was killed with SIGKILL at the "
              "battery swap, lock files not cleaned)\n")
    assert diagnose_text(remark).status is Status.NO_FAILURE
    ray = "(raylet, ip=10.0.0.7) Worker exited: killed with SIGKILL (exit code -9)\n"
    assert diagnose_text(ray).status is not Status.NO_FAILURE


@pytest.mark.parametrize("heading", [
    '### MT-OPS-5537  marian-server won\'t restart; "CUDA out of memory" on a 40GB A100??',
    'Ticket CG-7740 - tenant t-60318: "saw out of memory in the log, is the GPU faulty?"',
    '[INC-26-4487] job dies in MPI_Bcast: "Fatal error in PMPI_Bcast: Message truncated"',
    'EA-CHANGE 1187 verification: the second instance logs an "Address already in use"',
    'ticket SEQ-2284 (auto-opened by log alert on "WARNING|ERROR"): please confirm service is OK',
])
def test_a_ticket_s_heading_quoting_a_failure_is_no_failure(heading: str) -> None:
    assert diagnose_text(heading + "\n").status is Status.NO_FAILURE
    hostname = "ISTD-2100000569:1422836:1422836 [0] init.cc:943 NCCL WARN Duplicate GPU detected"
    assert diagnose_text(hostname + "\n").status is not Status.NO_FAILURE


_SACCT = "JobID           State   Restarts        NodeList ExitCode\n"


def test_a_job_sacct_lists_as_completed_after_its_errors_is_no_failure() -> None:
    preempted = ("slurmstepd: error: *** JOB 4426011 ON nid008201 CANCELLED AT 2026-12-10T02:07:44 "
                 "DUE TO PREEMPTION ***\n")
    completed = _SACCT + ("4426011       PREEMPTED        0 nid008[201-204]      0:0\n"
                          "4426011       COMPLETED        2 nid008[211-214]      0:0\n")
    assert diagnose_text(preempted + completed).status is Status.NO_FAILURE
    failed = completed + "4426012          FAILED        0 nid008[211-214]      1:0\n"
    assert diagnose_text(preempted + failed).status is not Status.NO_FAILURE
    assert diagnose_text(completed + preempted).status is not Status.NO_FAILURE


_GID_CHANGED = ("roce-c14:301776:302410 [2] transport/net_ib/common.cc:153 NCCL WARN NET/IB : "
                "mlx5_2:1 GID table changed\n")
_RETRIES_EXCEEDED = ("roce-c14:301776:302402 [2] transport/net_ib/p2p.cc:688 NCCL WARN NET/IB: Got "
                     "completion from peer 10.40.1.13<40117> with status=IBV_WC_RETRY_EXC_ERR(12) "
                     "opcode=IBV_WC_RDMA_WRITE(1)\n")


def test_a_gid_table_change_a_server_started_serving_after_is_no_failure() -> None:
    ready = "(APIServer pid=412) INFO:     Application startup complete.\n"
    assert diagnose_text(_GID_CHANGED + ready).status is Status.NO_FAILURE
    failed_after = diagnose_text(_GID_CHANGED + ready + _RETRIES_EXCEEDED)
    assert (failed_after.status, failed_after.root_cause) == (Status.CAUSE_FOUND,
                                                              "ib_hca_unusable")
    assert diagnose_text(ready + _GID_CHANGED).root_cause == "ib_hca_unusable"


_WORLD_TOO_LARGE = ("ValueError: World size (4) is larger than the number of available GPUs (2) "
                    "in this node.\n")


def test_a_visible_devices_list_longer_than_the_gpus_seen_names_a_missing_gpu() -> None:
    result = diagnose_text("Environment=CUDA_VISIBLE_DEVICES=2,3,4,5\nTraceback (most recent "
                           "call last):\n" + _WORLD_TOO_LARGE)
    assert (result.layer, result.root_cause) == ("visibility", "cuda_visible_devices_invalid")
    assert "names 4 devices but the process saw 2" in result.candidates[0].explanation


def test_a_visible_devices_uuid_of_a_gpu_this_node_does_not_have_is_named() -> None:
    unit = 'Environment="CUDA_VISIBLE_DEVICES=GPU-5e1c0a44-93b7-1d2f-6a08-c1f2b7e4d913"\n'
    listed = ("GPU 0: NVIDIA RTX 4500 Ada Generation (UUID: "
              "GPU-b81f07d2-4e6a-5c39-0f1d-7a92e3c5b046)\n")
    result = diagnose_text(unit + listed)
    assert (result.layer, result.root_cause) == ("visibility", "cuda_visible_devices_invalid")
    assert "GPU-5e1c0a44" in result.candidates[0].explanation
    prefix = 'Environment="CUDA_VISIBLE_DEVICES=GPU-b81f07d2"\n'  # CUDA accepts a unique prefix
    assert diagnose_text(prefix + listed).status is Status.NO_FAILURE
    assert diagnose_text(unit).status is Status.NO_FAILURE  # no GPU listed: nothing to compare


def test_a_visible_devices_uuid_this_node_lacks_explains_a_failure_no_signature_knows() -> None:
    prolog = "[prolog] CUDA_VISIBLE_DEVICES=GPU-7a0c55e2-1b3d-94f1-2c6e-5d8a0f19b7c4\n"
    failed = ("[2026-12-10 13:02:44.409] [error] device string set to cuda:all but no CUDA "
              "devices available.\n")
    listed = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-e41b9d07-6c2a-4f3e-8b51-90d7a3c2e118)\n"
    assert diagnose_text(prolog + failed).status is Status.UNKNOWN  # no GPU listed
    result = diagnose_text(prolog + failed + listed)
    assert (result.status, result.root_cause) == (Status.CAUSE_FOUND,
                                                  "cuda_visible_devices_invalid")
    assert "GPU-7a0c55e2" in result.candidates[0].explanation


def test_a_visible_devices_list_longer_than_the_gpus_nvidia_smi_lists_names_a_missing_gpu() -> None:
    script = ("export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n"
              "torchrun --standalone --nproc_per_node=8 train.py\n"
              "[rank4]: torch.AcceleratorError: CUDA error: invalid device ordinal\n")
    listed = "".join(f"GPU {n}: NVIDIA H100 80GB HBM3 (UUID: GPU-3c2f1a90-6d7e-4e1b-9a1f-"
                     f"0f6b8c2d4e1{n})\n" for n in range(4))
    assert diagnose_text(script).root_cause == "gpu_count_insufficient"
    result = diagnose_text(script + listed)
    assert result.root_cause == "cuda_visible_devices_invalid"
    assert "nvidia-smi lists 4 GPUs" in result.candidates[0].explanation
    # DeepSpeed's launcher derived the list from the hostfile's slots: too many slots
    derived = script.replace("export CUDA_VISIBLE_DEVICES=", "[launch.py:168:main] Setting "
                             "CUDA_VISIBLE_DEVICES=")
    assert diagnose_text(derived + listed).root_cause == "gpu_count_insufficient"


@pytest.mark.parametrize("listed", ["CUDA_VISIBLE_DEVICES=0,1", "CUDA_VISIBLE_DEVICES= ", ""])
def test_a_list_no_longer_than_the_gpus_seen_leaves_a_gpu_count(listed: str) -> None:
    result = diagnose_text(f"{listed}\nTraceback (most recent call last):\n{_WORLD_TOO_LARGE}")
    assert result.root_cause == "gpu_count_insufficient"


_DEPMOD_FULL = ("depmod: ERROR: could not open directory /lib/modules/6.8.0-90-generic: "
                "No space left on device\n")
_NO_MODULE = "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-90-generic\n"


def test_a_full_disk_before_a_missing_driver_left_the_driver_unwritten() -> None:
    assert diagnose_text(_DEPMOD_FULL + _NO_MODULE).root_cause == "disk_full"


def test_a_full_disk_after_a_missing_driver_does_not_explain_it() -> None:
    assert diagnose_text(_NO_MODULE + "\n" * 3 + _DEPMOD_FULL).root_cause == (
        "nvidia_driver_missing")


_NANNY_CLOSE = ("2026-12-12 01:53:03,144 - distributed.nanny - INFO - Closing Nanny at "
                "'tcp://127.0.0.1:40811'. Reason: nanny-close\n")
_COMM_CLOSED = ("Traceback (most recent call last):\n"
                "  File \"/opt/conda/lib/python3.12/site-packages/distributed/comm/tcp.py\", "
                "line 263, in write\n    raise CommClosedError()\n"
                "distributed.comm.core.CommClosedError\n")


def test_what_dask_raises_after_the_client_closed_its_cluster_is_the_teardown() -> None:
    assert diagnose_text(_NANNY_CLOSE + _COMM_CLOSED).status is Status.NO_FAILURE
    oom = "RuntimeError: CUDA error: out of memory\n"
    assert diagnose_text(oom + _NANNY_CLOSE + _COMM_CLOSED).root_cause == "gpu_oom"


def test_a_launcher_whose_ssh_failed_did_not_finish_the_job_whatever_its_process_says() -> None:
    log = ("train-h100-02: Bad owner or permissions on /home/mlsvc/.ssh/config\n"
           "pdsh@train-h100-01: train-h100-02: ssh exited with exit code 255\n"
           "[2026-12-09 06:30:05,402] [INFO] [launch.py:351:main] Process 0 exits successfully.\n")
    assert diagnose_text(log).root_cause == "launcher_ssh_failed"


def test_a_tensorflow_build_without_kernels_for_the_gpu_explains_a_job_that_timed_out() -> None:
    log = ("2025-12-12 13:10:03.518844: W tensorflow/stream_executor/platform/default/"
           "dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7'; dlerror: "
           "libnvinfer.so.7: cannot open shared object file: No such file or directory\n"
           "2025-12-12 13:10:12.694466: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1583] "
           "TensorFlow was not built with CUDA kernel binaries compatible with compute "
           "capability 9.0. CUDA kernels will be jit-compiled from PTX, which could take 30 "
           "minutes or longer.\n")
    assert diagnose_text(log).status is Status.NO_FAILURE  # a warning, and TF-TRT is optional
    timed_out = ("slurmstepd: error: *** JOB 5512 ON gpu-h100-02 CANCELLED AT "
                 "2025-12-12T14:10:03 DUE TO TIME LIMIT ***\n")
    assert diagnose_text(log + timed_out).root_cause == "cuda_arch_unsupported"


@pytest.mark.parametrize("log", [
    # pip retrying after a CI runner's timestamp
    "2026-12-12T19:01:35.662Z WARNING: Retrying (Retry(total=4, connect=None, read=None, "
    "redirect=None, status=None)) after connection broken by 'ReadTimeoutError(\"Read timed "
    "out.\")': /simple/expecttest/\n",
    # a test pytest skipped: its reason quotes what the test needs
    "2026-12-12T19:05:21.672Z SKIPPED [1] test/inductor/smoke/test_fp8.py:22: requires SM90 "
    "(got 8.9)\n",
    # Inductor's autotuning dropping a config that does not fit
    "E1210 03:12:48.552000 41276 torch/_inductor/select_algorithm.py:2335] [0/0] Runtime error "
    "during autotuning: \n"
    "E1210 03:12:48.552000 41276 torch/_inductor/select_algorithm.py:2335] [0/0] No valid triton "
    "configs. OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: "
    "101376. Reducing block sizes or `num_stages` may help.. \n"
    "E1210 03:12:48.552000 41276 torch/_inductor/select_algorithm.py:2335] [0/0] Ignoring this "
    "choice.\n",
])
def test_notes_a_run_goes_on_from_are_no_failure(log: str) -> None:
    assert diagnose_text(log).status is Status.NO_FAILURE


def test_inductor_raising_when_no_config_fits_is_a_kernel_for_another_gpu() -> None:
    log = ("torch._inductor.exc.InductorError: NoTritonConfigsError: No valid triton configs. "
           "OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: "
           "101376.\n")
    assert diagnose_text(log).root_cause == "cuda_arch_unsupported"
