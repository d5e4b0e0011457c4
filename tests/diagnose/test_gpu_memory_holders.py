"""An out-of-memory error beside nvidia-smi's list of the GPU's processes: another process
holding much of the GPU took the memory; the failing process and its job's other ranks do not
count."""

from __future__ import annotations

import pytest

from vfix.diagnose import diagnose_text, gpu_memory_holders

_ORT_OOM = ("Dec 10 06:02:12 s06-neuro-ai neuro-seg[2291]: 2026-12-10 06:02:12.384211043 "
            "[E:onnxruntime:Default, cuda_call.cc:123 CudaCall] CUDA failure 2: out of memory ; "
            "GPU=0 ; hostname=s06-neuro-ai ; expr=cudaMalloc((void**)&p, size);\n")
_USAGE = ("| 30%   41C    P2             62W /  230W |   23891MiB /  24564MiB |      0%      "
          "Default |\n")


def _row(gpu: int, pid: int, name: str, mib: int) -> str:
    return f"|    {gpu}   N/A  N/A     {pid:>6}      C   {name:<40} {mib:>6}MiB |\n"


def test_the_table_s_rows_and_the_gpu_s_total_are_read() -> None:
    row = gpu_memory_holders.Row
    assert gpu_memory_holders.read(_row(0, 88410, "/opt/monailabel/venv/bin/python", 22590)) == (
        row(0, "0", 88410, "/opt/monailabel/venv/bin/python", 22590))
    assert gpu_memory_holders.read(_USAGE) == 24564
    assert gpu_memory_holders.read("2214731, /opt/blender/blender, 45770 MiB") == (
        row(None, None, 2214731, "/opt/blender/blender", 45770))
    assert gpu_memory_holders.read("00000000:41:00.0, 21877, python3, 80912 MiB") == (
        row(None, "00000000:41:00.0", 21877, "python3", 80912))
    assert gpu_memory_holders.read("881201, 00000000:01:00.0, 11290 MiB") == (
        row(None, "00000000:01:00.0", 881201, "", 11290))  # no name asked for
    assert gpu_memory_holders.read("1, 81134 MiB, 81559 MiB") == 81559
    for not_a_process in ("0, 45187 MiB, 100 %", "pid, process_name, used_memory [MiB]",
                          "Model loading took 41.8 GiB and 418 s, 30155 MiB",
                          "881201, 11290 MiB"):  # neither a name nor a GPU
        assert gpu_memory_holders.read(not_a_process) is None


def test_a_gpu_with_next_to_nothing_in_use_is_read_as_idle() -> None:
    idle = gpu_memory_holders.IdleGpu
    assert gpu_memory_holders.read("1, 0 %, 1 MiB, 210 MHz, 33") == idle(None)
    assert gpu_memory_holders.read("2, 00000000:47:00.0, 0 %, 4 MiB") == idle(None)
    assert gpu_memory_holders.read("3, 4 MiB, 81559 MiB") == idle(81559)
    assert gpu_memory_holders.read(
        "| N/A   33C    P0             71W /  700W |       1MiB /  81559MiB |      0%      "
        "Default |") == idle(81559)


def test_another_process_holding_most_of_the_failing_gpu_took_its_memory() -> None:
    table = _USAGE + _row(0, 2291, "/opt/neuro-seg/venv/bin/python", 1212) + _row(
        0, 88410, "/opt/monailabel/venv/bin/python", 22590)
    result = diagnose_text(_ORT_OOM + table)
    assert result.root_cause == "stale_gpu_process"
    assert "Process 88410 (/opt/monailabel/venv/bin/python) held 22.1 GiB" in (
        result.candidates[0].explanation)


@pytest.mark.parametrize("table", [
    # a small process beside it
    _USAGE + _row(0, 2291, "/opt/neuro-seg/venv/bin/python", 22590) + _row(0, 1877, "Xorg", 410),
    # the large one is on another GPU
    _USAGE + _row(0, 2291, "/opt/neuro-seg/venv/bin/python", 1212) + _row(1, 88410, "python",
                                                                          22590),
])
def test_no_other_process_on_the_failing_gpu_leaves_an_out_of_memory(table: str) -> None:
    assert diagnose_text(_ORT_OOM + table).root_cause == "gpu_oom"


def test_the_job_s_other_ranks_or_an_unknown_failing_process_are_not_blamed() -> None:
    nccl_oom = "ax-r33n02:402118:403377 [3] NCCL WARN Cuda failure 2 'out of memory'\n"
    ranks = "402115, python3, 79080 MiB\n402118, python3, 80922 MiB\n402121, python3, 79848 MiB\n"
    assert diagnose_text(nccl_oom + ranks).root_cause == "gpu_oom"
    no_pid = "RuntimeError: CUDA error: out of memory\n"
    assert diagnose_text(no_pid + "1802233, python3, 32290 MiB\n").root_cause == "gpu_oom"


_MARIAN_OOM = ("[2026-12-08 16:12:10] Error: CUDA error 2 'out of memory' - "
               "/opt/marian/src/tensors/gpu/device.cu:32: cudaMalloc(&data_, size)\n")


def test_a_ps_row_with_init_as_parent_is_read_as_an_orphan() -> None:
    orphan = gpu_memory_holders.Orphan
    assert gpu_memory_holders.read(
        "1640552       1  2-03:41:18 Sl   /opt/marian/bin/marian-server --port 8085") == orphan(
        1640552)
    assert gpu_memory_holders.read(
        "1850337       1 Dl   Sun Dec  7 22:40:03 2026 /scratch/bin/rtm3d.x") == orphan(1850337)
    assert gpu_memory_holders.read(
        "gitlab-+ 2214871       1  0 Dec08 ?        00:12:01 /opt/tritonserver/bin/tritonserver"
    ) == orphan(2214871)
    assert gpu_memory_holders.read(
        "1877302       1 svc-dia  1-02:17:44 Sl  /opt/survey/env/bin/python3 -m diffim") == orphan(
        1877302)
    for not_an_orphan in ("1640552  918244  2-03:41:18 Sl   /opt/marian/bin/marian-server",
                          "           8             2     float     sum      -1    1 ",
                          "    PID    PPID     ELAPSED STAT COMMAND"):
        assert not isinstance(gpu_memory_holders.read(not_an_orphan), gpu_memory_holders.Orphan)


def test_an_orphan_holding_the_gpu_took_its_memory_though_the_failing_pid_is_unknown() -> None:
    table = _row(0, 1640552, "/opt/marian/bin/marian-server", 40218) + _row(
        1, 1702219, "python3", 24400)
    ps = "1640552       1  2-03:41:18 Sl   /opt/marian/bin/marian-server --port 8085\n"
    assert diagnose_text(_MARIAN_OOM + table).root_cause == "gpu_oom"  # whose is it?
    result = diagnose_text(_MARIAN_OOM + table + ps)
    assert result.root_cause == "stale_gpu_process"
    assert "Process 1640552" in result.candidates[0].explanation


def test_an_orphan_took_the_memory_of_a_failing_process_nvidia_smi_does_not_list() -> None:
    oom = ('tritonserver[418811]: E1211 11:59:44.551920 418811 logging.cc:40] '
           '"IRuntime::deserializeCudaEngine: Error Code 1: Cuda Runtime (out of memory)"\n')
    listed = "412301, /opt/tritonserver/backends/python/triton_python_backend_stub, 44182 MiB\n"
    ps = " 412301       1 Sl     9-02:14:07 /opt/tritonserver/backends/python/stub\n"
    assert diagnose_text(oom + listed).root_cause == "gpu_oom"  # another process, or a sibling?
    assert diagnose_text(oom + listed + ps).root_cause == "stale_gpu_process"


def test_an_orphan_on_another_gpu_than_the_failing_one_is_not_blamed() -> None:
    oom = "RuntimeError: CUDA out of memory on device 0\n"
    table = _row(1, 1640552, "python3", 40218)
    ps = "1640552       1  2-03:41:18 Sl   python3 serve.py\n"
    assert diagnose_text(oom + table + ps).root_cause == "gpu_oom"


def test_any_process_but_dcgm_s_own_took_the_memory_its_diagnostic_could_not_allocate() -> None:
    dcgm = ("| Warning: GPU0             | Couldn't allocate at least 75.0% of GPU memory on GPU 0 "
            "Please check for other processes or workloads running on the GPU. |\n")
    assert diagnose_text(dcgm + "318842, /usr/libexec/datacenter-gpu-manager-4/plugins/nvvs, "
                         "61000 MiB\n").root_cause == "gpu_oom"
    result = diagnose_text(dcgm + "318842, /opt/gpu-burn/gpu_burn, 73188 MiB\n")
    assert result.root_cause == "stale_gpu_process"


_CUPY_OOM = ("cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 2,147,483,648 bytes "
             "(allocated so far: 9,663,676,416 bytes).\n")
_FOUR_ON_ONE_GPU = "".join(f"{pid}, 00000000:01:00.0, 11290 MiB\n" for pid in range(881201, 881205))


def test_a_job_s_processes_on_one_gpu_beside_an_idle_one_are_one_gpu_for_all() -> None:
    idle = "index, memory.used [MiB]\n0, 45187 MiB\n1, 1 MiB\n"
    result = diagnose_text(_CUPY_OOM + idle + _FOUR_ON_ONE_GPU)
    assert result.root_cause == "duplicate_gpu_assignment"
    assert "4 processes of one program on the same GPU (00000000:01:00.0) while 1 other" in (
        result.candidates[0].explanation)


def test_three_ranks_on_the_only_gpu_listed_crowd_it_when_it_ran_out_of_memory() -> None:
    assert diagnose_text(_CUPY_OOM + _FOUR_ON_ONE_GPU).root_cause == "duplicate_gpu_assignment"


def test_a_slow_run_whose_ranks_share_one_gpu_while_others_idle() -> None:
    slow = ("Performance:       11.204        2.142\n"
            "00000000:07:00.0, 1630412, lmp, 2211 MiB\n00000000:07:00.0, 1630413, lmp, 2206 MiB\n"
            "0, 00000000:07:00.0, 100 %, 9342 MiB\n1, 00000000:0F:00.0, 0 %, 4 MiB\n")
    result = diagnose_text(slow)
    assert (result.status.value, result.root_cause) == ("cause_found", "duplicate_gpu_assignment")


@pytest.mark.parametrize("rows", [
    # two processes on the only GPU listed: not enough to call it crowded
    "".join(f"{pid}, 00000000:01:00.0, 11290 MiB\n" for pid in (881201, 881202)),
    # one process per GPU
    "".join(f"{pid}, 00000000:0{gpu}:00.0, 11290 MiB\n"
            for gpu, pid in enumerate(range(881201, 881205))),
    # different programs sharing a GPU
    "881201, 00000000:01:00.0, python, 11290 MiB\n881202, 00000000:01:00.0, Xorg, 200 MiB\n"
    "881203, 00000000:01:00.0, blender, 9000 MiB\n",
])
def test_no_crowd_leaves_the_out_of_memory(rows: str) -> None:
    assert diagnose_text(_CUPY_OOM + rows).root_cause == "gpu_oom"


def test_a_crowded_gpu_without_an_idle_one_is_no_slowdown() -> None:
    rows = "".join(f"{pid}, 00000000:01:00.0, lmp, 2211 MiB\n" for pid in (1630412, 1630413))
    assert diagnose_text("Performance:       11.204        2.142\n" + rows).status.value == (
        "no_failure")
