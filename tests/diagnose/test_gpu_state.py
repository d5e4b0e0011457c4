"""A GPU held below its clocks, read from pasted tables: a power limit under the default
(nvidia-smi -q, CSV queries, nvidia-smi -pl) or a slowdown in the clocks event reasons (CSV
columns, bit masks, DCGM exporter metrics). A busy GPU at its default limit is not throttled."""

from __future__ import annotations

import pytest

from vfix.diagnose import diagnose_text

SLOW_STEPS = (
    "[rank0]: iteration 200/10000 | elapsed time per iteration (ms): 2741.3\n"
    "[rank0]: iteration 210/10000 | elapsed time per iteration (ms): 2755.9\n"
)

# nvidia-smi -q -d POWER of driver 570 (the lines of one GPU's block)
QUERY_POWER = """\
    GPU Power Readings
        Average Power Draw                : 348.71 W
        Current Power Limit               : {limit} W
        Requested Power Limit             : {limit} W
        Default Power Limit               : 700.00 W
        Min Power Limit                   : 200.00 W
        Max Power Limit                   : 700.00 W
"""


@pytest.mark.parametrize(("table", "expected"), [
    (QUERY_POWER.format(limit="350.00"), "gpu_throttled"),
    (QUERY_POWER.format(limit="700.00"), "none"),
    # a limit trimmed a little for the rack's budget is not a lowered one
    (QUERY_POWER.format(limit="650.00"), "none"),
    # an older driver: "Power Limit" before "Default Power Limit", "Enforced" after
    ("        Power Limit                 : 250.00 W\n"
     "        Default Power Limit         : 400.00 W\n"
     "        Enforced Power Limit        : 250.00 W\n", "gpu_throttled"),
    # nvidia-smi -pl's own report
    ("Power limit for GPU 00000000:53:00.0 was set to 500.00 W from 700.00 W.\nAll done.\n",
     "gpu_throttled"),
    ("Power limit for GPU 00000000:53:00.0 was set to 700.00 W from 500.00 W.\nAll done.\n",
     "none"),
])
def test_power_limit_against_its_default(table: str, expected: str) -> None:
    assert diagnose_text(SLOW_STEPS + table).root_cause == expected


def test_limit_and_default_of_distant_blocks_are_not_paired() -> None:
    # the limit of one GPU and, far below, another GPU's default: not one GPU's pair
    text = ("        Current Power Limit               : 350.00 W\n"
            + "        noise\n" * 12
            + "        Default Power Limit               : 700.00 W\n")
    assert diagnose_text(SLOW_STEPS + text).root_cause == "none"


CSV_HEADER = ("$ nvidia-smi --query-gpu=index,power.draw,power.limit,power.default_limit,"
              "clocks.sm,clocks_event_reasons.sw_power_cap --format=csv\n"
              "index, power.draw [W], power.limit [W], power.default_limit [W], "
              "clocks.current.sm [MHz], clocks_event_reasons.sw_power_cap\n")


def test_csv_rows_read_with_their_header() -> None:
    rows = ("0, 698.20 W, 700.00 W, 700.00 W, 1980 MHz, Active\n"
            "1, 398.71 W, 400.00 W, 700.00 W, 1245 MHz, Active\n")
    result = diagnose_text(SLOW_STEPS + CSV_HEADER + rows)
    assert result.root_cause == "gpu_throttled"
    assert result.candidates[0].signature == "gpu-power-limit-lowered"
    assert "GPU 1's power limit is 400 W, its default 700 W" in result.candidates[0].explanation
    assert result.candidates[0].evidence[0].line == 6


def test_csv_rows_at_the_default_limit_are_healthy() -> None:
    # SW Power Cap active at the default limit: a busy GPU, not a throttled one
    rows = ("0, 698.20 W, 700.00 W, 700.00 W, 1980 MHz, Active\n"
            "1, 699.02 W, 700.00 W, 700.00 W, 1965 MHz, Active\n")
    assert diagnose_text(SLOW_STEPS + CSV_HEADER + rows).root_cause == "none"


def test_noheader_rows_take_their_columns_from_the_command() -> None:
    text = ("$ ssh n02 \"nvidia-smi --query-gpu=index,power.limit,power.default_limit,clocks.sm "
            "--format=csv,noheader\" | sed 's/^/n02 /'\n"
            "n02 0, 700.00 W, 700.00 W, 1980 MHz\n"
            "n02 1, 350.00 W, 700.00 W, 1410 MHz\n")
    result = diagnose_text(SLOW_STEPS + text)
    assert result.root_cause == "gpu_throttled"
    assert "GPU 1's power limit is 350 W" in result.candidates[0].explanation


def test_rows_of_other_columns_are_not_misread() -> None:
    # the header changed: the rows no longer have the columns of the first table
    text = (CSV_HEADER + "0, 698.20 W, 700.00 W, 700.00 W, 1980 MHz, Active\n"
            "index, name, memory.used [MiB]\n"
            "0, NVIDIA H100 80GB HBM3, 1 MiB\n")
    assert diagnose_text(SLOW_STEPS + text).root_cause == "none"


@pytest.mark.parametrize(("row", "expected"), [
    ("5, 1155 MHz, 0x0000000000000048", "gpu_throttled"),  # HW Slowdown + HW Thermal Slowdown
    ("5, 1980 MHz, 0x0000000000000004", "none"),  # only the power cap of a busy GPU
    ("5, 210 MHz, 0x0000000000000001", "none"),  # idle
])
def test_csv_reasons_mask(row: str, expected: str) -> None:
    text = ("index, clocks.current.sm [MHz], clocks_event_reasons.active\n" + row + "\n")
    assert diagnose_text(SLOW_STEPS + text).root_cause == expected


def test_csv_reason_columns() -> None:
    text = ("index, clocks.current.sm [MHz], clocks_event_reasons.hw_slowdown, "
            "clocks_event_reasons.hw_thermal_slowdown\n"
            "3, 1980 MHz, Not Active, Not Active\n"
            "4, 1095 MHz, Active, Active\n")
    result = diagnose_text(SLOW_STEPS + text)
    assert result.root_cause == "gpu_throttled"
    assert "GPU 4 reports hw_slowdown, hw_thermal_slowdown active" in (
        result.candidates[0].explanation)


@pytest.mark.parametrize(("metric", "expected"), [
    ('DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="1",device="nvidia1",pod="chat-70b-5"} 72',
     "gpu_throttled"),
    ('DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{Hostname="r2-07", gpu="5"} => 128', "gpu_throttled"),
    ('DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="0",device="nvidia0"} 4', "none"),
    ('DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu="0",device="nvidia0"} 0', "none"),
])
def test_dcgm_exporter_reasons(metric: str, expected: str) -> None:
    result = diagnose_text(SLOW_STEPS + metric + "\n")
    assert result.root_cause == expected
    if expected != "none":
        assert "GPU" in result.candidates[0].explanation


@pytest.mark.parametrize(("usec", "expected"), [("2913604188", "gpu_throttled"), ("0", "none")])
def test_dcgm_thermal_violation_time(usec: str, expected: str) -> None:
    metric = ('DCGM_FI_DEV_THERMAL_VIOLATION{gpu="5",device="nvidia5",Hostname="gpu-h100-a19"} '
              + usec + "\n")
    result = diagnose_text(SLOW_STEPS + metric)
    assert result.root_cause == expected
    if expected != "none":
        assert "GPU 5 slowed for heat for 2914 s" in result.candidates[0].explanation


def test_a_failure_of_its_own_still_wins() -> None:
    # the throttled GPU explains slowness, not an exception the run raised
    text = (QUERY_POWER.format(limit="350.00")
            + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
              "has a total capacity of 79.19 GiB of which 1.06 GiB is free.\n")
    assert diagnose_text(SLOW_STEPS + text).root_cause != "gpu_throttled"


def test_gpus_slowed_behind_failed_fans_are_the_answer() -> None:
    # the BMC says fans failed; the GPUs say they slowed for heat: they set the job's pace
    fans = "5a1 | 12/05/2026 | 22:14:07 | Fan #0x34 | Lower Critical going low  | Asserted\n"
    gpus = ("index, clocks.current.sm [MHz], clocks_event_reasons.active\n"
            "0, 1095 MHz, 0x0000000000000040\n")
    assert diagnose_text(SLOW_STEPS + gpus + fans).root_cause == "gpu_throttled"
    assert diagnose_text(SLOW_STEPS + fans).root_cause == "host_hardware_fault"


def test_dcgm_job_statistics_with_a_share_of_the_job_slowed_for_heat() -> None:
    stats = ("+-----  Slowdown Stats  -------------+-----------------------------------------+\n"
             "| Due to - Power (%)                 | 0.9                                     |\n"
             "|        - Thermal (%)               | {share}                                   |\n")
    assert diagnose_text(stats.format(share="61.37")).root_cause == "gpu_throttled"
    assert diagnose_text(stats.format(share="0")).root_cause == "none"
