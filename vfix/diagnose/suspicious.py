"""Lines that show *a* failure, whether or not a signature explains it.

They decide `unknown` versus `no_failure`, give the first failing rank when no signature
matched, and are shown to the operator when the cause is unknown.
"""

from __future__ import annotations

import re
from collections import deque

from vfix.diagnose.model import Evidence
from vfix.diagnose.sources import line_source

# keyword -> how strongly it signals a failure (3: an exception or crash line itself).
# They are searched as written, in SIMD-prefiltered groups (scanner.Locator): a keyword that
# begins with common lower-case prose ("link status ...", "table full ...") slows every scan
# (six of the kernel's network lines cost this search 40% on a serving log), so prefer ones that
# begin with a capital, a symbol or a rare word.
KEYWORDS: dict[str, int] = {
    "Traceback (most recent call last)": 1,
    "Error: ": 3,
    "Exception: ": 3,
    "Value error, ": 3,  # pydantic's wording of a ValueError (vLLM's config checks)
    # torch re-raising what a DataLoader worker raised, whatever its class ("pyarrow.lib.
    # ArrowInvalid: Caught ArrowInvalid in DataLoader worker process 5.")
    "in DataLoader worker process": 3,
    "Assertion failed, ": 3,  # and of an AssertionError, on the line after ValidationError
    "Error(": 2,
    "ERROR": 2,
    "level=error": 2,  # logfmt (Go services: ollama, the k8s device plugin, containerd)
    "level=ERROR": 2,
    "level=fatal": 2,
    '"level":"error"': 2,  # the same in JSON logs (Go's zap and slog, Python's json loggers)
    ' err="': 2,  # klog/logr structured logging: the error a Go component (a k8s controller) hit
    '] "failed': 2,  # and its quoted message ('E1204 ... x.go:142] "failed to select target pod"')
    "CRITICAL": 2,
    "FATAL": 2,  # glog/TurboMind/TensorRT "[FATAL]", Go "FATAL:"
    "NCCL WARN": 2,
    "Segmentation fault": 3,
    "segfault at ": 3,  # the kernel's report of a crash ("nvidia-containe[5657]: segfault at 0 ip")
    "Assertion `": 3,  # C assert() (glibc: "prog: file.c:47: func: Assertion `x' failed.")
    "Kernel panic - not syncing": 3,  # the kernel stopped (a machine check, a hard lockup)
    "BUG: soft lockup": 3,  # the kernel's watchdogs: a CPU stuck in the kernel, a task stuck in I/O
    "blocked for more than": 2,  # "INFO: task python3:3120 blocked for more than 122 seconds."
    "CrashLoopBackOff": 2,  # a container Kubernetes keeps restarting because it keeps failing
    "*** Process received signal ***": 3,  # OpenMPI / glibc backtrace handler: a crash
    "core dumped": 3,
    "terminate called": 3,
    "panicked at": 3,  # a Rust panic ("thread 'main' panicked at src/...:34:34:")
    "panic: ": 3,  # a Go panic ("panic: unsupported capabilities found in ...", then goroutines)
    "Error response from daemon": 3,  # the Docker daemon refused ("docker: Error response ...")
    "[ERR]": 2,  # Serilog's and .NET loggers' short levels ("2026-12-09 07:01:51.084 [ERR] ...")
    "[FTL]": 2,
    "[E:onnxruntime:": 2,  # ONNX Runtime's logger at ERROR ("[E:onnxruntime:, sequential_...")
    "[error ": 2,  # structlog's console level ("2026-12-04 23:25:10 [error    ] Connection ...")
    "[error]": 2,  # and nginx's, Apache's (and their levels above it)
    "[crit]": 2,
    "[alert]": 2,
    "[emerg]": 2,
    '"Critical"': 2,  # Redfish/BMC JSON: "Severity": "Critical", "Health": "Critical"
    "\tCritical\t": 2,  # and as redfishtool and iDRAC print their logs' columns
    "CMake Error": 2,  # a source build's configure step ("CMake Error at CMakeLists.txt:1 (...)")
    "-E- ": 2,  # NVIDIA's NIC tools (mstflint, mlxconfig, flint): "-E- PSID mismatch. ..."
    "upstream connect error or disconnect/reset before headers": 2,  # Envoy's reply body
    "upstream_reset_before_response_started": 2,  # and its access log's response details
    "] [E] ": 2,  # TensorRT(-LLM)'s logger at ERROR and FATAL ("[TRT-LLM] [RANK 2] [E] Hang ...")
    "] [F] ": 2,
    "MPI_ABORT was invoked": 2,  # Open MPI's help box for a rank that called MPI_Abort
    # Open MPI, PRRTE and MPICH's Hydra refusing or failing a launch (their help boxes carry no
    # level): "It looks like opal_init failed for some reason; your parallel process is ..."
    "failed for some reason; your parallel process is": 2,
    "has detected an attempt to run as root": 2,
    "was unable to find the specified executable": 2,
    "was unable to launch the specified application": 2,
    "FORCE-TERMINATE AT": 2,
    "execvp error on file": 3,
    "): unrecognized argument": 2,
    "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES": 2,
    "Aborted": 2,
    "FAILED": 2,
    "Fatal": 2,
    "fatal error": 2,
    "died unexpectedly": 2,
    "unexpectedly failed with exitcode": 2,  # SGLang: "Child process unexpectedly failed with ..."
    "couldn't bind ": 2,  # llama.cpp's server: "main: couldn't bind HTTP server socket, ..."
    "exiting due to model loading error": 2,  # and its model load failing
    "crashed during start": 2,  # Ray's raylet: a worker "not registered ... crashed during start"
    "have not registered within the timeout": 2,  # the raylet: a worker hangs in its start
    "Killed": 1,
    "undefined symbol": 3,
    "Exec format error": 3,  # a binary for another CPU architecture ("/bin/sh: Exec format error")
    "exec format error": 3,  # and Go's wording ("exec /usr/bin/python3: exec format error")
    "cannot open shared object file": 3,
    # Slurm's own failure lines: "srun: error: Unable to allocate resources: ..."
    "=>> PBS: job killed:": 3,  # OpenPBS's MoM ended it ("walltime 14437 exceeded limit 14400")
    "job.exception": 2,  # Flux's exception events ("type=timeout ... resource allocation expired")
    "lost communication with": 2,  # PBS's MoM lost a sister node of the job
    "shepherd died from signal": 2,  # HPE PALS: a node's process shepherd was killed
    "srun: error:": 3,
    "slurmstepd: error:": 3,
    "sbatch: error:": 3,
    "salloc: error:": 3,
    ": fatal: ": 2,  # Slurm's own refusals ("sbatch: fatal: --gpus-per-node and --gres=gpu ...")
    "Warning  ": 2,  # a Kubernetes event of type Warning, as kubectl describe prints it
    "Error from server (": 3,  # the Kubernetes API refused a request (kubectl, "(Forbidden)")
    # and an admission webhook refused an object ('for: "x.yaml": admission webhook
    # "vdynamographdeployment.kb.io" denied the request: spec...: Invalid value: ...')
    "denied the request: ": 3,
    "pthread_create failed": 2,  # no thread could start: a pids/threads limit (OpenBLAS, OpenMP)
    "can't start new thread": 2,  # Python's RuntimeError for the same
    "Max retries exceeded with url": 2,  # urllib3/requests gave up on a server (not up, refused)
    "Failed to ": 1,  # a tool saying it failed ("Failed to provision in fleet ..."): weak alone
    # and C tools' wording of it at the start of a line (perftest's " Couldn't create IB
    # resources", " Unable to init the socket connection"); in a line's middle it is often a
    # message quoted by a healthy run (a client's 400): `_TOOL_FAILURE` decides, in `_judge`
    "Couldn't ": 0,
    "Unable to ": 0,
    # a process that ended with a status other than 0 ("exit status 1", "exited with code 137",
    # "Exit code:    1"): `_NONZERO_EXIT` decides
    "exit status": 0,
    "exit code": 0,
    "exited with": 0,
    "Exit status": 0,
    "Exit code": 0,
    "Exited with": 0,
    " failed.": 1,  # and its last word ("Task failed.", "Workflow failed.")
    "error: ": 1,  # a CLI or daemon's own error line (Slurm's slurmd, curl, git): weak alone
    ": error:": 2,  # a compiler's diagnostic ("ipsec.c:1325:35: error:"), a driver module build
    # nccl-tests: "h100-node3: Test CUDA failure common.cu:1111 'out of memory'", then
    # " .. h100-node3 pid 201187: Test failure common.cu:1454" for each caller
    "Test CUDA failure": 3,
    "Result = FAIL": 2,  # the CUDA samples' verdict (deviceQuery, p2pBandwidthLatencyTest)
    # a check a tool marks failed ("✘ library \"libcuda.so\" does not exist" in gpud's scan,
    # docker compose's "✘ Container llm-vllm-1  Error", NeMo RL's "❌ Error: ...")
    "✘ ": 2,
    "❌ ": 2,
    "Test NCCL failure": 3,
    "Test failure": 2,
    "| Fail": 2,  # a dcgmi diag result row ("| pcie   | Fail   |", "|   | GPU1: Fail  |")
    "**Fail**": 2,  # Azure's HPC health checks ("**Fail** The settings returned by ibstatus ...")
    "Fail: Error": 2,  # and their summary ("Fail: Error when detecting GPUs, NVMEs, and NICs.")
    # a systemd unit that failed ("Active: failed (Result: exit-code)", "code=exited,
    # status=1/FAILURE", "nvidia-persistenced.service: Failed with result 'exit-code'.")
    "Active: failed": 2,
    "/FAILURE": 2,
    "Failed with result": 2,
    # a scheduler that cannot place a pod or gang (Volcano's event, Normal by type; not a node's
    # "Unschedulable:  false")
    "Normal  Unschedulable": 2,
    # Kueue stopping a workload it had admitted: "EvictedDueToPodsReadyTimeout",
    # "EvictedDueToNodeFailures", "Preempted to accommodate a workload ..." (Normal events)
    "EvictedDueTo": 2,
    "Preempted to accommodate": 2,
    "NVRM: Xid": 2,  # any Xid is an error event the driver reports, known to a signature or not
    ": failed to assign [mem": 2,  # the kernel could not map a PCI device's BAR (a GPU it loses)
    "]: can't assign; no space": 2,  # and newer kernels' ("BAR 1 [mem size ...]: can't assign")
    "NCCL error": 2,  # an NCCL result its caller reports ("NCCL error in: ...", "NCCL error: ...")
    # NVSHMEM's error returns ("transport.cpp:420: non-zero status: 7 connect EPS failed") and
    # mpirun's ranks that "exited with non-zero status"
    "non-zero status": 2,
    # an exception raised without a message ("AssertionError", "TimeoutError"), its class alone
    # at the end of its line: the newline is part of the keyword
    "Error\n": 1,
    "Exception\n": 1,
    "Error\r\n": 1,
    "Exception\r\n": 1,
}
# Lines whose only sign of failure is their level letter: glog/klog ("E1204 23:27:11.882590  1
# main.go:83] ...", F for fatal) and Ray's C++ core ("[2026-12-04 23:27:11,882 E 4127 4127]
# core_worker.cc:..."; C for fatal). Their keywords only find candidates (a letter and a digit
# are in many healthy lines): `_SEVERITY_PREFIX` decides, in `_judge`. c10 (torch's C++ log)
# writes the month unpadded and always bracketed: "[E311 10:02:11.882590 ...]" is March 11.
PREFIX_KEYWORDS = ("E0", "E1", "F0", "F1", *(f"[{level}{month}" for level in "EF"
                                             for month in range(2, 10)),
                   *(f"{digit} {level} " for digit in range(10) for level in "EC"))
KEYWORDS.update(dict.fromkeys(PREFIX_KEYWORDS, 0))
KEYWORDS["NVRM: "] = 0  # the NVIDIA driver's kernel lines: `_DRIVER_FAILURE` decides, in `_judge`
# Python reporting an exception it then ignores (one raised in __del__ or a callback): the
# traceback and exception line that follow are a report, and the program goes on.
_IGNORED_EXCEPTION = "Exception ignored in"
_IGNORED_REPORT_LINES = 40  # the most lines such a report spans before its exception line
KEYWORDS[_IGNORED_EXCEPTION] = 0
# What the keywords that end on the newline leave in a cleaned line ("Error", "Exception").
_ENDS_ON_NEWLINE = tuple(dict.fromkeys(k.rstrip("\r\n") for k in KEYWORDS if k.endswith("\n")))
# An exception line: "...Error: ", "...Exception: ", or a class of a module named in full
# ("triton.runtime.errors.OutOfResources: "), as a traceback's last line prints it; or an
# exception raised without a message (a bare "assert"), its class alone at the end of the line.
_EXCEPTION_LINE = re.compile(r"(?:^|[\s:\]\)])(?:(?:[\w]+\.)*\w*(?:Error|Exception|Exit)\b"
                             r"|(?:[a-z_]\w*\.)+[A-Z]\w+): "
                             # raised without a message: "AssertionError" alone after the prefix
                             r"|(?:^|[\s\]])(?<!raise )(?:[\w]+\.)*[A-Z]\w*(?:Error|Exception)\s*$")


# The host name pdsh, clush or a capture script puts before each line ("gpu-node-1: "), or the
# line number of `grep -n` ("19:[W1212 22:01:16.712003318 TCPStore.cpp:340] ...").
_HOST_PREFIX = r"(?:[\w.-]+: |\d+:(?=\S))?"


def _level(names: str, initials: str) -> str:
    """A regex for a line logged at one of these levels by vLLM (with or without the date),
    glog/c10 (bracketed or not, as torch elastic writes it; c10's month unpadded) or Python
    logging."""
    return (rf"\b(?:{names}) (?:\d\d-\d\d \d\d:\d\d:\d\d|\[[\w./-]+\.py:\d+\])"
            # NeMo's: "[NeMo W 2026-12-09 02:03:12 nemo_logging:405] ..."; not a Python warning
            # it relays ("... nemo_logging:405] .../torch/cuda/__init__.py:1038: UserWarning:
            # CUDA initialization: ..."), which may be the failure (_PYTHON_WARNING)
            rf"|\[NeMo [{initials}] \d{{4}}-(?!.*\.py:\d+: \w*Warning: )"
            rf"|(?:^{_HOST_PREFIX}|\]:)\[?[{initials}]\d{{3,4}} \d\d:\d\d:\d\d"
            rf"|^{_HOST_PREFIX}(?:{names}):[\w.]+:|\[(?:{names})\] "
            # Megatron-Core's: "[WARNING  | megatron.core.dist_checkpointing...]: ..."
            rf"|^\[(?:{names}) +\| [\w.]+\]: "
            # the level as a field after the time: Python's "%(asctime)s - %(name)s -
            # %(levelname)s - " (with or without the name), loguru's "| WARNING  |", and
            # "%(name)s %(levelname)s: "
            rf"|\d:\d\d(?:[.,]\d{{1,9}})?(?: (?:- [\w.]+ )?- (?:{names}) - | \| (?:{names}) +\| "
            rf"| [\w.]+ (?:{names}): )")


class _Level:
    """Whether a line is logged at one of these levels (`_level`, and `extra` alternatives
    that hold one of the names). The regex's alternatives leave `re` no literal to look for
    (~4 us a line); a substring test every match needs rules out most lines first (~1 us)."""

    def __init__(self, names: str, initials: str, extra: str = "",
                 markers: tuple[str, ...] = ()) -> None:
        """`markers`: substrings of `extra` alternatives that hold none of the names."""
        self._names = names.split("|") + list(markers) + ["[NeMo "]
        self._glog_start = re.compile(rf"{_HOST_PREFIX}\[?[{initials}]\d{{3,4}} ")
        self._regex = re.compile(_level(names, initials) + extra)

    def matches(self, text: str) -> bool:
        head = text[:300]
        if "]:" in head or any(name in head for name in self._names) \
                or self._glog_start.match(head):
            return self._regex.search(head) is not None
        return False


# A line logged at ERROR or FATAL level by glog/klog or Ray's C++ core (see PREFIX_KEYWORDS).
_SEVERITY_PREFIX = re.compile(rf"(?:^{_HOST_PREFIX}|\]:)\[?[EF]\d{{3,4}} \d\d:\d\d:\d\d"
                              r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [EC] \d+ \d+\]")

# A command-line tool's own failure line: it begins with its failure ("Couldn't register MR"),
# after a host name but not after a level that only warns ("WARNING: Unable to ...").
_TOOL_FAILURE = re.compile(rf"^\s*(?!(?i:warn|warning|info|debug|note)\b){_HOST_PREFIX}\s*"
                           r"(?:Couldn't|Unable to) ")

# The NVIDIA kernel driver reporting an operation that failed ("NVRM: GPU memory zone movable auto
# onlining failed!"); most of its lines only report what it loaded and found.
_DRIVER_FAILURE = re.compile(r"\bNVRM: .*\b(?:failed|failure|[Ee]rror)\b")

# A process that ended with a status other than 0.
_NONZERO_EXIT = re.compile(r"(?i)\bexit(?:ed)?(?: with)?(?: exit)? (?:code|status)"
                           r"\W{0,6}(?!0\b)\d+")

# TensorRT-LLM's Python logger names its level by an initial: "[TRT-LLM] [RANK 0] [W] ...".
_TRTLLM = "[TRT-LLM]"


def _trtllm_level(initials: str) -> str:
    return rf"|{re.escape(_TRTLLM)}(?: \[RANK \d+\])? \[[{initials}]\] "


# A line logged at INFO/WARNING/DEBUG level reports, it does not fail: vLLM logs handled
# tracebacks and predictions ("can cause ...") this way.
_BENIGN_LEVEL = _Level("INFO|WARNING|DEBUG", "IWD",
                       # and a CLI's level word at the line's start (pip's "WARNING: Retrying"),
                       # also after a CI runner's timestamp ("2026-12-12T19:01:35.662Z WARNING:")
                       rf"|\bNCCL INFO\b|^{_HOST_PREFIX}(?:\d{{4}}-\d\d-\d\dT[\d:.]+Z )?"
                       r"(?:INFO|WARNING|DEBUG): "
                       # Rust's tracing (TGI's launcher): "...T10:05:19.106227Z  WARN target: ";
                       # not its INFO, at which Dynamo relays its workers' stderr
                       r"|\d:\d\d(?:\.\d{1,9})?Z +(?:WARN|DEBUG|TRACE) [\w:]+: "
                       # Go's pingcap/log (Milvus): "[2026/12/10 03:06:01.114 +00:00] [WARN]
                       # [retry_interceptor.go:62] [...]"
                       r"|^\[[\d/]+ [\d:.]+ [+-]\d\d:\d\d\] \[WARN\] "
                       + _trtllm_level("IWDV"),
                       markers=(_TRTLLM, "Z  WARN ", "Z TRACE ", "] [WARN] "))
# WARNING level only: vLLM's warnings predict ("This can cause ...") rather than report.
_WARNING_LEVEL = _Level("WARNING", "W", _trtllm_level("W"), markers=(_TRTLLM,))

# c10's "frame #3: c10d::TCPStore::check(...) + 0x273 (... libtorch_cpu.so)": a warning prints
# these too ("Exception raised from ... (most recent call first):" under a [W] line).
_BACKTRACE_FRAME = re.compile(r"(?:\[rank\d+\]:)?\s*frame #\d+: ")

# Exception lines that only announce the error: pydantic's "ValidationError: 1 validation error
# for VllmConfig" (its message is on the next line, "  Value error, ..."), and PaddlePaddle's
# "OSError: In user code:" (the op's stack and its error follow). What follows is the exception
# to show.
_ANNOUNCING_HEADER = re.compile(r"ValidationError: \d+ validation errors? for "
                                r"|^\s*\w*Error: In user code:\s*$")

# Errors their writer says the run goes on without: glibc's loader skipping an LD_PRELOAD entry
# ("ERROR: ld.so: object 'x' from LD_PRELOAD cannot be preloaded (...): ignored."), a Ray worker
# without its metrics agent ("... E ...] Failed to establish connection to the metrics exporter
# agent. Metrics will not be exported."), NCCL clamping or ignoring a setting ("NCCL WARN
# NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed, setting to 16") or
# finding no libibverbs ("lib wrapper not initialized": it uses sockets): notes, not failures.
_RUN_GOES_ON = re.compile(r"ld\.so: object .+ cannot be preloaded .*: ignored"
                          r"|Metrics will not be exported|Export metrics to agent failed"
                          # (nccl-tests repeats NCCL's last warning in its footer: "# error: ...")
                          r"|(?:NCCL WARN|^# error:) .*(?:maximum allowed, setting|is being ignored"
                          r"|, defaulting to |lib wrapper not initialized|Ignoring "
                          # an old libgdrapi: NCCL runs on without GDRCopy, an optional path
                          r"|ncclOsDlsym failed on gdr_"
                          # the subnet manager's own events, which leave the link up (a new
                          # master SM asking ports to reregister)
                          r"|Got (?:non-fatal )?async (?:error )?event ?: "
                          r"(?:client reregist|SM change)"
                          # aws-ofi-nccl without its tuner's platform data: NCCL's own tuning
                          r"|Not configuring NCCL_TUNER_PLUGIN|Unable to configure tuner"
                          # NCCL 2.30's IB resiliency asked for on a rail of one HCA: a note
                          r"|Resiliency is enabled on a \w+ communicator .* single device)"
                          # huggingface_hub's http_backoff, before it retries the request, and
                          # its download resuming after a broken connection (it raises when the
                          # tries run out: "Error while downloading from URL: ...\nTrying to
                          # resume download...")
                          r"|' thrown while requesting (?:GET|HEAD|POST) "
                          r"|^(?:\(\w+ pid=\d+\) )?Error while downloading from https?://"
                          # SGLang's model registry skipping a model class it cannot import,
                          # and an optional import it replaces ("Failed to import mooncake
                          # allocator for NVLINK: No module named ... Falling back to ...")
                          r"|Ignore import error when loading "
                          r"|Failed to import .{1,200}\. Falling back to "
                          # an optional package it replaces: huggingface_hub without hf_xet
                          # ("... the 'hf_xet' package is not installed. Falling back to regular
                          # HTTP download."), Megatron without Apex ("Apex is not installed.
                          # Falling back to Torch Norm"); not the GPU itself ("a CUDA-enabled
                          # jaxlib is not installed. Falling back to cpu.")
                          r"|\bis not installed\. Falling back to (?!(?i:cpu)\b)"
                          # aws-ofi-nccl keeping the socket buffer it was given
                          r"|\bUnable to increase max receive buffer size; using current value"
                          # Inductor's autotuning dropping a config that failed ("Runtime error
                          # during autotuning: / No valid triton configs. OutOfResources: ... /
                          # Ignoring this choice.")
                          r"|select_algorithm\.py:\d+\] .*(?:Runtime error during autotuning"
                          r"|No valid triton configs\.|Ignoring this choice\.)"
                          # TensorFlow probing TensorRT for TF-TRT, which it goes on without
                          # ("Could not load dynamic library 'libnvinfer.so.7'", "TF-TRT
                          # Warning: Cannot dlopen some TensorRT libraries")
                          r"|dso_loader\.cc:\d+\] Could not load dynamic library 'libnvinfer"
                          r"|TF-TRT Warning: Cannot dlopen some TensorRT libraries"
                          # TensorRT's builder probing a tactic that does not fit in memory: it
                          # skips that tactic ("Skipping tactic 3 due to insufficient memory");
                          # a build that fails says so after ("Engine could not be created")
                          r"|\[virtualMemoryBuffer\.cpp::resizePhysical::\d+\] Error Code 2: "
                          # the kernel's AER counters (sysfs aer_dev_fatal) when they are zero
                          r"|\bTOTAL_ERR_(?:FATAL|NONFATAL|COR) 0\b"
                          # nvidia-mig-manager checking whether the MIG layout is applied before
                          # it applies it (mig-parted's assert, logged at error)
                          r"|Assertion failure: selected configuration not currently applied"
                          # a request its client cancelled (Triton's Python backend: "Failed to
                          # process the request(s) for model ..., message: TritonModelException:
                          # Request was cancelled"): the server goes on
                          r"|\bRequest was cancelled\b"
                          # Composer's auto microbatching, which catches an out-of-memory and
                          # halves the microbatch ("CUDA out of memory or excessive memory
                          # allocation retries detected. Train microbatch size will be decreased
                          # from 8 -> 4."), and its warning that it will
                          r"|\bmicrobatch size will be decreased from \d+ -> \d+"
                          r"|\bAuto microbatching attempts to catch CUDA Out of Memory errors"
                          # cuFile without GPUDirect Storage's kernel module: it reads and writes
                          # through POSIX instead ("running in compatible mode" after it)
                          r"|\bcufio-drv:\d+ nvidia-fs\.ko driver not loaded"
                          # XLA's GPU timer before autotuning measurements (logged at E level)
                          r"|\bDelay kernel timed out: measured time has sub-optimal accuracy"
                          # SGLang refusing one request (a 400 to its client): the server goes on
                          r"|\bis longer than the model's context length \(\d+ tokens\)"
                          # Open MPI skipping an optional component it cannot load (hcoll, ucc)
                          r"|mca_base_component_repository_open: unable to open "
                          # a Lustre client's request to a server that failed over or restarts
                          # ("LustreError: 11-0: fs-OST0012-osc-...: operation ost_write to node
                          # 10.40.0.31@o2ib failed: rc = -107"): it reconnects and resends; what
                          # it gives up on reaches the job as an I/O error, or an eviction
                          r"|LustreError: 11-0: .* operation \w+ to node \S+ failed: rc = -\d+"
                          # and its request that timed out or met a network error, which it
                          # resends once the connection is restored
                          r"|Lustre: .*ptlrpc_expire_one_request\(\)\) @@@ Request sent has "
                          r"(?:timed out|failed due to network error)"
                          # slurmstepd falling back to /tmp for a TMPDIR it could not create
                          r"|Unable to create TMPDIR \[|Setting TMPDIR to /tmp"
                          # NCCL and its plugins ignoring a setting they cannot parse ("Invalid
                          # value ucx-rma for NCCL_PLUGIN_P2P, using default")
                          r"|Invalid value .{1,80} for NCCL_\w+, using default"
                          # SGLang rounding a setting to what a kernel needs ("... requires bucket
                          # sizes divisible by 8; aligning [1, 2, 4, 12] -> [8, 16]")
                          r"|divisible by \d+; aligning "
                          # NCCL's proxy failing to close a connection a peer already closed while
                          # the communicators are destroyed
                          r"|progressing operation=Close, "
                          r"|Failed to execute operation Close from rank"
                          # slurmstepd's cgroup v1 failcnt, which page cache reclaimed under the
                          # limit also raises: an OOM kill says "Detected 1 oom-kill event(s)"
                          r"|Exceeded (?:step|job) memory limit at some point"
                          # a health check quoting an old Xid it does not count (Azure's aznhc)
                          r"|Skipping this XID error"
                          # AER: the link corrected it in hardware; a storm of them is a link to
                          # look at, one is not a failure
                          r"|PCIe Bus Error: severity=Correct(?:ed|able)"
                          # an optional fast path turned off for this GPU (SGLang logs it with no
                          # level: "TorchSymmMemCommunicator: ... communicator is not available")
                          r"|communicator is not available\b"
                          # torch asking NVML for the NVLink fabric on a GPU before Hopper
                          r"|nvmlDeviceGetGpuFabricInfoV? failed"
                          # a client announcing its next try ("server not ready, retrying in 2s",
                          # "retry in 5 seconds", Rust's "retry_in=1s"): what it waits for is
                          # known only when the tries run out
                          r"|\bretry(?:ing)?[ _]in[ =]\d+(?:\.\d+)? ?(?:s|ms|sec|secs|seconds)\b"
                          # and Gloo's connect that will be tried again ("ERROR failed to
                          # connect, willRetry=1, retry=1, retryLimit=3"; the last says 0), and
                          # torch's TCPStore client's ("TCP client failed to connect/validate to
                          # host h:29500 - retrying (try=0, timeout=1800000ms, delay=1441ms)")
                          r"|\bwillRetry=1\b|\bfailed to connect/validate to host \S+ - retrying "
                          # and a try counted against its limit, before the last ("feature store
                          # read timeout after 150ms (retry 1/3)")
                          r"|\((?:retry|attempt) (\d+)/(?!\1\))\d+\)"
                          # kubelet taking a pod out of its Service while it starts: a pod that
                          # never gets ready shows why elsewhere (its own errors, restarts)
                          r"|Readiness probe failed: "
                          # the autoscaler not getting a metric (metrics-server not answering
                          # yet), and a hook of a pod already being deleted: the workload goes on
                          r"|\bFailed(?:GetResourceMetric|GetPodsMetric|ComputeMetricsReplicas"
                          r"|PreStopHook)\b"
                          # what its writer calls non-fatal (NVRM: "Failed to load gsp_log_*.bin,
                          # no GSP-RM logs will be printed (non-fatal)")
                          r"|\(non-fatal\)")

# A command echoed after a shell prompt ("$ NCCL_DEBUG=INFO torchrun ...", "# node 1: $ vllm
# serve ...", bash's "support@vsa-02:~$ dmesg ...", "[root@gpu-07 ~]# ..."): what was run, not
# what failed.
_COMMAND_ECHO = re.compile(rf"^\s*(?:{_HOST_PREFIX}(?:#[^$]{{0,40}})?\$ "
                           r"|\[?[\w.-]+@[\w.-]+(?::[^\s$#]*| [^\]]{1,60}\])[$#] )")

# An environment variable set on a command line or in an env dump names no failure, though
# its name may hold one ("TORCH_NCCL_ASYNC_ERROR_HANDLING=1 torchrun ...").
_ASSIGNED_NAME = re.compile(r"\b[A-Z][A-Z0-9_]*=")

# A Python warning ("uniproc_executor.py:73: UserWarning: Failed to get the IP address, using
# 0.0.0.0 by default"): the warnings module reports and the program goes on.
_PYTHON_WARNING = re.compile(r"\.py:\d+: \w*Warning: ")
# Of those, a deprecation ("FutureWarning: The pynvml package is deprecated. Please install
# nvidia-ml-py instead"): it tells of a later release, never of this run's failure (torch's CUDA
# initialisation failures come as a UserWarning).
_DEPRECATION = re.compile(r"\.py:\d+: (?:Future|Deprecation|PendingDeprecation)Warning: ")

_KEEP = 20
_TAIL_RAW = 200  # unjudged recent lines; judged (regexes) only at the end, to stay fast
_LOOK_FOR_EXCEPTION = 2000  # failing lines judged after the first _KEEP when none raised yet
_SHOW = 8


# A heading a person wrote in a ticket, above or between the pasted logs: prose about the
# failure, not a line the failing program printed ("## DC log: a technician reseated the cable",
# "### MT-OPS-5537 marian-server won't restart", "Ticket CG-7740 - tenant t-60318: \"saw out of
# memory\"", "[INC-26-4487] job dies in MPI_Bcast", "EA-CHANGE 1187 verification: ..."). One "#"
# starts nccl-tests' own lines, "# error: ..." among them.
_NOTE_HEADING = re.compile(r"#{2,} "
                           r"|(?:[Tt]icket|TICKET|Incident|INCIDENT|CHANGE|Change)\s+#?[A-Z]*-?\d+\b"
                           r"|\[?[A-Z]{2,}(?:-[A-Z0-9]+)*(?:-\d{3,}|-[A-Z]+ \d{3,})(?:\]|:? )")


# pytest's summary of a test it skipped, with the test's reason ("SKIPPED [1] test/test_fp8.py:22:
# requires SM90 (got 8.9)"), after a timestamp or not
_SKIPPED_TEST = re.compile(r"(?:^|\s)SKIPPED \[\d+\] \S+:\d+: ")


def is_annotation(text: str) -> bool:
    """Whether the line is a ticket's heading (`_NOTE_HEADING`) or one parenthesised remark
    ("(left over from the previous run: it was killed with SIGKILL)", "(pasted: sacct,
    dmesg)"): a person's note in a ticket about the log, not a line the log holds; or a test
    pytest skipped, whose reason quotes what the test needs. A line that only begins with a
    group ("(raylet, ip=...) text") is not one."""
    stripped = text.strip()
    if _NOTE_HEADING.match(stripped) or _SKIPPED_TEST.search(stripped[:80]):
        return True
    if len(stripped) < 3 or stripped[0] != "(" or stripped[-1] != ")":
        return False
    depth = 0
    for position, char in enumerate(stripped):
        depth += (char == "(") - (char == ")")
        if depth == 0 and position < len(stripped) - 1:
            return False
    return depth == 0


def is_warning_level(text: str) -> bool:
    return _WARNING_LEVEL.matches(text)


def is_python_warning(text: str) -> bool:
    """Whether the line is a warning Python's warnings module printed (`_PYTHON_WARNING`),
    other than torch's report that CUDA failed to initialise ("UserWarning: CUDA
    initialization: ..."), which is an error in a warning's clothes."""
    return _PYTHON_WARNING.search(text) is not None and "CUDA initialization:" not in text


def went_on(text: str) -> bool:
    """Whether the line reports an error the run goes on without (`_RUN_GOES_ON`)."""
    return _RUN_GOES_ON.search(text) is not None


def is_benign(text: str) -> bool:
    """Whether the line only reports: logged at INFO/WARNING/DEBUG, an error the run goes on
    without, or a command echoed after a shell prompt."""
    return (_BENIGN_LEVEL.matches(text)
            or went_on(text)
            or _DEPRECATION.search(text) is not None
            or _COMMAND_ECHO.match(text) is not None)


def _judge(line: int, text: str, score: int) -> tuple[int, int, str] | None:
    """(score, line, text) for a failing line; None for one logged at a benign level or a
    frame of a C++ backtrace (its header line, a warning or an error, decides)."""
    # an NCCL WARN is a failure at any level, but not in a command echoed after a prompt
    benign = _COMMAND_ECHO.match(text) is not None or (
        is_benign(text) and ("NCCL WARN" not in text or _RUN_GOES_ON.search(text) is not None))
    if (benign or _BACKTRACE_FRAME.match(text) or _PYTHON_WARNING.search(text)
            or is_annotation(text)):
        return None
    # Score 0: the keywords that found the line are not in its text (those that end on the
    # newline: "Error\n") or only find candidates (PREFIX_KEYWORDS, NVRM's, a tool's "Couldn't ").
    if score == 0 and not text.endswith(_ENDS_ON_NEWLINE):
        if _SEVERITY_PREFIX.search(text[:300]):
            score = 2
        elif (_TOOL_FAILURE.match(text) or _NONZERO_EXIT.search(text)
              or _DRIVER_FAILURE.search(text)):
            score = 1
        else:
            return None
    elif "=" in text and not _fails_outside_assigned_names(text):
        return None
    if _ANNOUNCING_HEADER.search(text):
        score = min(score, 2)
    elif _EXCEPTION_LINE.search(text):
        score = max(score, 3)
    return score, line, text


def _fails_outside_assigned_names(text: str) -> bool:
    return any(keyword in _ASSIGNED_NAME.sub("=", text) for keyword in KEYWORDS)


class SuspiciousLines:
    """Keeps the first few failing lines, the first exception (a worker's traceback logged at
    ERROR can fill the first few with its frames) and the last few (bounded memory)."""

    TAIL = _TAIL_RAW  # once `full`, only this many of the latest lines fed can matter

    def __init__(self) -> None:
        self._first: list[tuple[int, int, str]] = []
        self._tail: deque[tuple[int, int, str]] = deque(maxlen=_TAIL_RAW)
        self._judged: list[tuple[int, int, str]] | None = None
        self._raised_first = False  # an exception among the first few
        self._later_exception: tuple[int, int, str] | None = None
        self._looked = 0
        self._ignoring_until = -1  # the last line of a report of an ignored exception

    def feed(self, line: int, text: str, score: int) -> None:
        if _IGNORED_EXCEPTION in text:
            self._ignoring_until = line + _IGNORED_REPORT_LINES
            return
        if line <= self._ignoring_until:
            if _EXCEPTION_LINE.search(text):
                self._ignoring_until = -1  # the ignored exception itself: its report ends here
            return
        if len(self._first) < _KEEP:
            judged = _judge(line, text, score)
            if judged:
                self._first.append(judged)
                self._raised_first = self._raised_first or judged[0] >= 3
        else:
            self._tail.append((score, line, text))
            if self._looking():
                self._looked += 1
                judged = _judge(line, text, score)
                if judged and judged[0] >= 3:
                    self._later_exception = judged
        self._judged = None

    def _looking(self) -> bool:
        """Whether the first exception may still come after the first few failing lines."""
        return not (self._raised_first or self._later_exception
                    or self._looked >= _LOOK_FOR_EXCEPTION)

    @property
    def full(self) -> bool:
        """Whether the first failing lines and the first exception are kept: later lines only
        enter the tail."""
        return len(self._first) >= _KEEP and not self._looking()

    def _all(self) -> list[tuple[int, int, str]]:
        if self._judged is None:
            tail = [j for s, n, t in self._tail if (j := _judge(n, t, s))][-_KEEP:]
            later = self._later_exception
            self._judged = self._first + ([later] if later and later not in tail else []) + tail
        return self._judged

    @property
    def failed(self) -> bool:
        """Whether any line shows a failure (an exception, an ERROR, a crash, an NCCL WARN)."""
        return bool(self._all())

    @property
    def raised(self) -> bool:
        """Whether a failing line is an exception or a crash itself (not just an ERROR level)."""
        return self.raised_but(None)

    def raised_but(self, but: re.Pattern[str] | None) -> bool:
        """`raised`, not counting the lines `but` finds."""
        return any(item[0] >= 3 and (but is None or not but.search(item[2]))
                   for item in self._all())

    def first_failure(self) -> Evidence | None:
        """The earlier of the first exception/crash line and the first NCCL WARN (a plugin's own
        error before the worker that aborted on it), else the earliest suspicious line."""
        began = [e for e in (self.first_exception(), self.first_with("NCCL WARN")) if e]
        return min(began, key=lambda evidence: evidence.line) if began else self.earliest()

    def earliest(self, but: re.Pattern[str] | None = None) -> Evidence | None:
        """The earliest failing line, an exception or not (the lines are kept in order; `but`:
        not one this finds)."""
        items = [item for item in self._all() if but is None or not but.search(item[2])]
        return _evidence(items[0]) if items else None

    def latest(self, but: re.Pattern[str] | None = None) -> Evidence | None:
        """The latest failing line (`but`: not one this finds)."""
        items = [item for item in self._all() if but is None or not but.search(item[2])]
        return _evidence(max(items, key=lambda item: item[1])) if items else None

    def first_exception(self) -> Evidence | None:
        """The earliest exception/crash line."""
        strong = [item for item in self._all() if item[0] >= 3]
        return _evidence(strong[0]) if strong else None

    def first_with(self, marker: str) -> Evidence | None:
        """The earliest failing line holding `marker` ("NCCL WARN")."""
        return next((_evidence(item) for item in self._all() if marker in item[2]), None)

    def top(self) -> tuple[Evidence, ...]:
        ranked = sorted(self._all(), key=lambda item: (-item[0], item[1]))[:_SHOW]
        return tuple(_evidence(item) for item in sorted(ranked, key=lambda item: item[1]))


def _evidence(item: tuple[int, int, str]) -> Evidence:
    return Evidence(item[1], item[2], line_source(item[2]))
