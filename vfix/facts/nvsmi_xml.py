"""`nvidia-smi -q -x` into `Gpu` facts. Truncated or garbled XML keeps every GPU element that
was complete before the damage; the damage is reported, never raised."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, cast

from vfix.facts.model import Gpu, MigDevice, Source
from vfix.facts.values import clean, to_bool, to_float, to_int

ORIGIN = "nvidia-smi -q -x"


@dataclass
class SmiXml:
    driver_version: str | None = None
    cuda_version: str | None = None
    gpus: list[Gpu] = field(default_factory=list)
    processes: list[dict[str, object]] = field(default_factory=list)  # pid, gpu uuid, MiB
    errors: list[str] = field(default_factory=list)


def _text(element: ET.Element, path: str) -> str | None:
    found = element.find(path)
    if found is None or found.text is None:
        return None
    return found.text.strip()


class _Reader:
    """Reads paths under one <gpu> element and remembers the raw text as a Source."""

    def __init__(self, gpu: ET.Element) -> None:
        self.gpu = gpu
        self.sources: dict[str, Source] = {}

    def get(self, fieldname: str, path: str) -> str | None:
        value = _text(self.gpu, path)
        if value is not None and fieldname not in self.sources:
            self.sources[fieldname] = Source(origin=ORIGIN, raw=f"{path}: {value}")
        return value

    def first(self, fieldname: str, *paths: str) -> str | None:
        for path in paths:
            value = clean(_text(self.gpu, path))
            if value is not None:
                return self.get(fieldname, path)
        return None


def _uncorrected(gpu: ET.Element, scope: str) -> int | None:
    """Uncorrected ECC errors: old layout volatile/double_bit/total, new layout the sum of
    every *uncorrectable* counter (dram_uncorrectable, sram_uncorrectable_*)."""
    block = gpu.find(f"ecc_errors/{scope}")
    if block is None:
        return None
    total = to_int(_text(block, "double_bit/total"))
    if total is not None:
        return total
    counts = [to_int(child.text) for child in block if "uncorrectable" in child.tag]
    known = [count for count in counts if count is not None]
    return sum(known) if known else None


def _throttle_reasons(gpu: ET.Element) -> list[str]:
    for block_name, prefix in (("clocks_event_reasons", "clocks_event_reason_"),
                               ("clocks_throttle_reasons", "clocks_throttle_reason_")):
        block = gpu.find(block_name)
        if block is not None:
            return [child.tag.removeprefix(prefix) for child in block
                    if (child.text or "").strip() == "Active"]
    return []


def _mig_devices(gpu: ET.Element) -> list[MigDevice]:
    devices = []
    for mig in gpu.findall("mig_devices/mig_device"):
        devices.append(MigDevice(
            index=to_int(_text(mig, "index")),
            gpu_instance_id=to_int(_text(mig, "gpu_instance_id")),
            compute_instance_id=to_int(_text(mig, "compute_instance_id")),
            memory_total_mib=to_int(_text(mig, "fb_memory_usage/total")),
            sm_count=to_int(_text(mig, "device_attributes/shared/multiprocessor_count")),
        ))
    return devices


def gpu_from_element(index: int, gpu: ET.Element) -> Gpu:
    r = _Reader(gpu)
    locked = None
    app_clock = to_int(_text(gpu, "applications_clocks/graphics_clock"))
    default_clock = to_int(_text(gpu, "default_applications_clocks/graphics_clock"))
    if app_clock is not None and default_clock is not None and app_clock != default_clock:
        locked = app_clock
        r.get("clocks_locked_sm_mhz", "applications_clocks/graphics_clock")
    retired = r.first("retired_pages_pending", "retired_pages/pending_retirement",
                      "retired_pages/pending_blacklist")
    mig_devices = _mig_devices(gpu)
    return Gpu(
        index=index,
        name=clean(r.get("name", "product_name")),
        uuid=clean(r.get("uuid", "uuid")),
        pci_bus_id=clean(r.get("pci_bus_id", "pci/pci_bus_id")) or clean(gpu.get("id")),
        compute_capability=clean(r.first("compute_capability", "compute_capability",
                                         "cuda_compute_capability")),
        memory_total_mib=to_int(r.get("memory_total_mib", "fb_memory_usage/total")),
        memory_used_mib=to_int(r.get("memory_used_mib", "fb_memory_usage/used")),
        persistence_mode=to_bool(r.get("persistence_mode", "persistence_mode")),
        mig_mode_current=clean(r.get("mig_mode_current", "mig_mode/current_mig")),
        mig_mode_pending=clean(r.get("mig_mode_pending", "mig_mode/pending_mig")),
        mig_devices=mig_devices,
        compute_mode=clean(r.get("compute_mode", "compute_mode")),
        ecc_mode_current=clean(r.get("ecc_mode_current", "ecc_mode/current_ecc")),
        ecc_uncorrected_volatile=_uncorrected(gpu, "volatile"),
        ecc_uncorrected_aggregate=_uncorrected(gpu, "aggregate"),
        retired_pages_pending=to_bool(retired),
        remapped_rows_pending=to_bool(r.get("remapped_rows_pending",
                                            "remapped_rows/remapped_row_pending")),
        remapped_rows_failure=to_bool(r.get("remapped_rows_failure",
                                            "remapped_rows/remapped_row_failure")),
        pcie_gen_current=to_int(r.get("pcie_gen_current",
                                      "pci/pci_gpu_link_info/pcie_gen/current_link_gen")),
        pcie_gen_max=to_int(r.first("pcie_gen_max",
                                    "pci/pci_gpu_link_info/pcie_gen/max_device_link_gen",
                                    "pci/pci_gpu_link_info/pcie_gen/max_link_gen")),
        pcie_width_current=to_int(r.get("pcie_width_current",
                                        "pci/pci_gpu_link_info/link_widths/current_link_width")),
        pcie_width_max=to_int(r.get("pcie_width_max",
                                    "pci/pci_gpu_link_info/link_widths/max_link_width")),
        clocks_sm_mhz=to_int(r.get("clocks_sm_mhz", "clocks/sm_clock")),
        clocks_sm_max_mhz=to_int(r.get("clocks_sm_max_mhz", "max_clocks/sm_clock")),
        clocks_mem_mhz=to_int(r.get("clocks_mem_mhz", "clocks/mem_clock")),
        clocks_mem_max_mhz=to_int(r.get("clocks_mem_max_mhz", "max_clocks/mem_clock")),
        clocks_locked_sm_mhz=locked,
        throttle_reasons=_throttle_reasons(gpu),
        power_draw_w=to_float(r.first("power_draw_w", "gpu_power_readings/instant_power_draw",
                                      "gpu_power_readings/power_draw",
                                      "power_readings/power_draw",
                                      "gpu_power_readings/average_power_draw")),
        power_limit_w=to_float(r.first("power_limit_w", "gpu_power_readings/current_power_limit",
                                       "gpu_power_readings/enforced_power_limit",
                                       "power_readings/enforced_power_limit",
                                       "power_readings/power_limit")),
        temperature_c=to_int(r.get("temperature_c", "temperature/gpu_temp")),
        vbios=clean(r.get("vbios", "vbios_version")),
        architecture=clean(r.get("architecture", "product_architecture")),
        sources=r.sources,
    )


def _processes(gpu: ET.Element, uuid: str | None) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for proc in gpu.findall("processes/process_info"):
        pid = to_int(_text(proc, "pid"))
        if pid is not None:
            found.append({"pid": pid, "gpu_uuid": uuid,
                          "used_mib": to_int(_text(proc, "used_memory")),
                          "name": _text(proc, "process_name")})
    return found


def parse_smi_xml(text: str) -> SmiXml:
    result = SmiXml()
    if not (text or "").strip():
        result.errors.append("empty nvidia-smi -q -x output")
        return result
    parser: ET.XMLPullParser = ET.XMLPullParser(events=("start", "end"))
    try:
        parser.feed(text)
        parser.close()
    except ET.ParseError as error:
        result.errors.append(f"nvidia-smi -q -x: XML broken ({error}); parsed what came before")
    depth = 0
    events = []
    stream = parser.read_events()
    while True:  # the parse error is queued after the last good event: keep those before it
        try:
            events.append(next(stream))
        except StopIteration:
            break
        except ET.ParseError:
            if not result.errors:
                result.errors.append("nvidia-smi -q -x: XML broken; parsed what came before")
            break
    for item in events:
        event, element = cast("tuple[str, Any]", item)
        if not isinstance(element, ET.Element):
            continue
        if event == "start":
            depth += 1
            continue
        depth -= 1
        if depth == 1 and element.tag == "driver_version":
            result.driver_version = clean(element.text)
        elif depth == 1 and element.tag == "cuda_version":
            result.cuda_version = clean(element.text)
        elif depth == 1 and element.tag == "gpu":
            gpu = gpu_from_element(len(result.gpus), element)
            result.gpus.append(gpu)
            result.processes.extend(_processes(element, gpu.uuid))
    return result
