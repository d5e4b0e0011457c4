"""`nvidia-smi -q -x` and query CSV parsing on the real H200 capture and public MIG outputs."""

from __future__ import annotations

from pathlib import Path

from vfix.facts.gpus import parse_nvlink_status
from vfix.facts.nvsmi_csv import apps_from_query_rows, gpus_from_query_rows, parse_query_csv
from vfix.facts.nvsmi_xml import parse_smi_xml

DATA = Path(__file__).resolve().parents[1] / "data"
H200_XML = (DATA / "h200-1gpu" / "nvidia-smi-q.xml").read_text()


def test_h200_xml_every_field() -> None:
    parsed = parse_smi_xml(H200_XML)
    assert parsed.errors == []
    assert (parsed.driver_version, parsed.cuda_version) == ("580.159.04", "13.0")
    gpu = parsed.gpus[0]
    assert gpu.index == 0 and gpu.name == "NVIDIA H200" and gpu.architecture == "Hopper"
    assert gpu.uuid == "GPU-5027c4df-2cb2-df68-ec7e-94814f2a5db7"
    assert gpu.pci_bus_id == "00000000:00:06.0"
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (143771, 0)
    assert gpu.persistence_mode is True
    assert (gpu.mig_mode_current, gpu.mig_mode_pending, gpu.mig_devices) == (
        "Disabled", "Disabled", [])
    assert gpu.compute_mode == "Default" and gpu.ecc_mode_current == "Enabled"
    assert (gpu.ecc_uncorrected_volatile, gpu.ecc_uncorrected_aggregate) == (0, 0)
    assert gpu.retired_pages_pending is None  # "N/A" on HBM3 parts: row remapping instead
    assert (gpu.remapped_rows_pending, gpu.remapped_rows_failure) == (False, False)
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max) == (5, 5)
    assert (gpu.pcie_width_current, gpu.pcie_width_max) == (16, 16)
    assert (gpu.clocks_sm_mhz, gpu.clocks_sm_max_mhz) == (345, 1980)
    assert (gpu.clocks_mem_mhz, gpu.clocks_mem_max_mhz) == (3201, 3201)
    assert gpu.clocks_locked_sm_mhz is None  # application clock == default
    assert gpu.throttle_reasons == ["gpu_idle"]
    assert (gpu.power_draw_w, gpu.power_limit_w) == (78.91, 700.0)
    assert gpu.temperature_c == 35 and gpu.vbios == "96.00.A5.00.1A"
    assert gpu.sources["memory_total_mib"].raw == "fb_memory_usage/total: 143771 MiB"
    assert parsed.processes == []


def test_mig_enabled_gpu_with_its_instances() -> None:
    parsed = parse_smi_xml((DATA / "nvidia-smi" / "mig-a100-80gb-gpustack.xml").read_text())
    gpu = parsed.gpus[0]
    assert (gpu.mig_mode_current, gpu.mig_mode_pending) == ("Enabled", "Enabled")
    assert gpu.memory_total_mib == 81920 and gpu.temperature_c == 38
    mig = gpu.mig_devices[0]
    assert (mig.index, mig.gpu_instance_id, mig.compute_instance_id) == (0, 1, 0)
    assert (mig.memory_total_mib, mig.sm_count) == (40448, 60)
    assert parsed.cuda_version == "12.9"


def test_mixed_mig_and_not_supported_gpus() -> None:
    parsed = parse_smi_xml((DATA / "nvidia-smi" / "mig-a100-2gpu-ceems.xml").read_text())
    assert [g.pci_bus_id for g in parsed.gpus] == ["00000000:10:00.0", "00000000:15:00.0"]
    assert [len(g.mig_devices) for g in parsed.gpus] == [3, 0]
    assert parsed.gpus[1].mig_mode_current is None  # N/A: MIG not supported


def test_truncated_xml_keeps_complete_gpus() -> None:
    two_gpus = H200_XML.replace("</nvidia_smi_log>", "") + H200_XML[
        H200_XML.index("\t<gpu "):]
    cut = two_gpus[: two_gpus.rindex("<fb_memory_usage>")]
    parsed = parse_smi_xml(cut)
    assert len(parsed.gpus) == 1 and parsed.gpus[0].name == "NVIDIA H200"
    assert parsed.driver_version == "580.159.04"
    assert parsed.errors and "XML broken" in parsed.errors[0]


def test_garbled_and_non_utf8_xml() -> None:
    raw = H200_XML.encode()
    damaged = (raw[:3000] + b"\xff\xfe\x00garbage" + raw[3000:]).decode("utf-8", "replace")
    parsed = parse_smi_xml(damaged)
    assert parsed.errors and parsed.driver_version == "580.159.04"
    assert parse_smi_xml("").errors == ["empty nvidia-smi -q -x output"]
    assert parse_smi_xml("NVIDIA-SMI has failed because it couldn't communicate").gpus == []


def test_old_style_ecc_and_throttle_layout() -> None:
    xml = ("<nvidia_smi_log><driver_version>470.82.01</driver_version><gpu id='0000:3B:00.0'>"
           "<product_name>Tesla V100-SXM2-32GB</product_name><ecc_errors><volatile>"
           "<double_bit><total>2</total></double_bit></volatile></ecc_errors>"
           "<clocks_throttle_reasons><clocks_throttle_reason_hw_slowdown>Active"
           "</clocks_throttle_reason_hw_slowdown><clocks_throttle_reason_gpu_idle>Not Active"
           "</clocks_throttle_reason_gpu_idle></clocks_throttle_reasons>"
           "<power_readings><power_draw>250.5 W</power_draw><power_limit>300.00 W</power_limit>"
           "</power_readings><retired_pages><pending_retirement>Yes</pending_retirement>"
           "</retired_pages></gpu></nvidia_smi_log>")
    gpu = parse_smi_xml(xml).gpus[0]
    assert gpu.ecc_uncorrected_volatile == 2
    assert gpu.throttle_reasons == ["hw_slowdown"]
    assert (gpu.power_draw_w, gpu.power_limit_w) == (250.5, 300.0)
    assert gpu.retired_pages_pending is True
    assert gpu.pci_bus_id == "0000:3B:00.0"


def test_query_gpu_csv_capture() -> None:
    rows, errors = parse_query_csv((DATA / "h200-1gpu" / "query-gpu.csv").read_text())
    assert errors == []
    gpu = gpus_from_query_rows(rows, "nvidia-smi --query-gpu")[0]
    assert (gpu.name, gpu.compute_capability, gpu.memory_total_mib) == ("NVIDIA H200", "9.0",
                                                                      143771)
    assert (gpu.clocks_sm_mhz, gpu.clocks_sm_max_mhz, gpu.power_draw_w) == (345, 1980, 93.6)
    assert gpu.persistence_mode is True and gpu.mig_mode_current == "Disabled"


def test_query_csv_ragged_and_bitmask_rows() -> None:
    text = ("index, name, clocks_event_reasons.active, memory.used [MiB]\n"
            "0, NVIDIA H100, 0x0000000000000044, 80000 MiB\n1, NVIDIA H100\n")
    rows, errors = parse_query_csv(text)
    assert errors == ["query CSV line 3: 2 values for 4 columns"]
    gpus = gpus_from_query_rows(rows, "x")
    assert gpus[0].throttle_reasons == ["sw_power_cap", "hw_thermal_slowdown"]
    assert gpus[1].memory_used_mib is None


def test_query_compute_apps() -> None:
    rows, _ = parse_query_csv((DATA / "h200-1gpu" / "query-apps.csv").read_text())
    assert apps_from_query_rows(rows) == []
    rows, _ = parse_query_csv("pid, used_gpu_memory [MiB], gpu_uuid\n"
                              "4242, 70123 MiB, GPU-5027c4df\n")
    assert apps_from_query_rows(rows) == [{"pid": 4242, "gpu_uuid": "GPU-5027c4df",
                                           "used_mib": 70123}]


def test_nvlink_status() -> None:
    text = ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n\t Link 0: 26.562 GB/s\n"
            "\t Link 1: <inactive>\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-b)\n"
            "\t Link 0: 26.562 GB/s\n")
    links = parse_nvlink_status(text)
    assert [(link.link, link.active, link.speed_gbps) for link in links[0]] == [
        (0, True, 26.562), (1, False, None)]
    assert len(links[1]) == 1
    assert parse_nvlink_status("") == {}
