"""The probe's pynvml collection against a pynvml double, parsed back into facts."""

from __future__ import annotations

from tests.probe import fake_pynvml
from vfix.facts.gpus_nvml import gpu_from_nvml, processes_from_nvml
from vfix.probe import vfix_probe


def test_collects_every_field_and_errors_become_data() -> None:
    data = vfix_probe._collect_pynvml(fake_pynvml)
    assert data["cuda_driver_version"] == 13000
    raw = data["gpus"][0]
    assert raw["retired_pages_pending"] == {"error": "NVMLError_NotSupported: Not Supported"}
    assert raw["nvlink"] == [{"link": 0, "state": {"error": "NVMLError_NotSupported: "
                                                            "Not Supported"}}]
    assert raw["architecture"] is None  # this double has no nvmlDeviceGetArchitecture
    gpu = gpu_from_nvml(raw)
    assert (gpu.name, gpu.pci_bus_id, gpu.compute_capability) == ("NVIDIA H200",
                                                                  "00000000:00:06.0", "9.0")
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (143771, 0)  # v2: reserved apart
    assert gpu.persistence_mode is True and gpu.mig_mode_current == "Disabled"
    assert gpu.ecc_mode_current == "Enabled" and gpu.retired_pages_pending is None
    assert gpu.remapped_rows_pending is False
    assert (gpu.power_draw_w, gpu.power_limit_w) == (79.53, 700.0)
    assert gpu.throttle_reasons == ["gpu_idle"] and gpu.nvlinks is None
    assert processes_from_nvml(raw, gpu.uuid) == [{"pid": 4242, "gpu_uuid": gpu.uuid,
                                                   "used_mib": 70123}]
