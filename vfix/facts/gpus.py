"""The GPU list from whichever source the probe used: pynvml, `-q -x` XML, or query CSV."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from vfix.facts.gpus_nvml import gpu_from_nvml, ok, processes_from_nvml
from vfix.facts.model import Gpu, NvLink, Source
from vfix.facts.nvsmi_csv import apps_from_query_rows, gpus_from_query_rows, parse_query_csv
from vfix.facts.nvsmi_xml import parse_smi_xml
from vfix.facts.values import clean, to_float

NVLINK_GPU = re.compile(r"^GPU (\d+):")
NVLINK_LINK = re.compile(r"^\s*Link (\d+):\s*(.+)$")


@dataclass
class GpuFacts:
    gpus: list[Gpu] = field(default_factory=list)
    summary: dict[str, str | None] = field(default_factory=dict)  # driver/cuda versions, origin
    process_memory: list[dict[str, object]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


def parse_nvlink_status(text: str) -> dict[int, list[NvLink]]:
    """`nvidia-smi nvlink -s`: per GPU index, each link with its speed (inactive: no speed)."""
    result: dict[int, list[NvLink]] = {}
    current: int | None = None
    for line in (text or "").splitlines():
        gpu = NVLINK_GPU.match(line)
        if gpu:
            current = int(gpu.group(1))
            result.setdefault(current, [])
            continue
        link = NVLINK_LINK.match(line)
        if link and current is not None:
            state = link.group(2).strip()
            active = "inactive" not in state.lower()
            result[current].append(NvLink(link=int(link.group(1)), active=active,
                                          speed_gbps=to_float(state) if active else None))
    return result


def normalize_bus_id(bus_id: str | None) -> str | None:
    """"00000000:00:06.0" (NVML) and "0000:00:06.0" (sysfs) to one lower-case form."""
    if not bus_id:
        return None
    parts = bus_id.strip().lower().split(":")
    if len(parts) == 3:
        parts[0] = parts[0][-4:].rjust(4, "0")
    return ":".join(parts)


def _cuda_from_int(value: Any) -> str | None:
    value = ok(value)
    if isinstance(value, int) and value > 0:
        return f"{value // 1000}.{value % 1000 // 10}"
    return None


def build_gpus(probe: dict[str, Any]) -> GpuFacts:
    section = probe.get("gpus") or {}
    facts = GpuFacts()
    nvml = section.get("pynvml")
    if isinstance(nvml, dict):
        facts.summary = {"origin": "pynvml", "nvml_driver": clean(ok(nvml.get("driver_version"))),
                         "cuda_driver": _cuda_from_int(nvml.get("cuda_driver_version")),
                         "nvml_version": clean(ok(nvml.get("nvml_version")))}
        for raw in nvml.get("gpus") or []:
            if isinstance(raw, dict):
                try:
                    gpu = gpu_from_nvml(raw)
                except (ValueError, TypeError) as error:
                    facts.errors.append(("gpus", f"pynvml GPU {raw.get('index')}: {error}"))
                    continue
                facts.gpus.append(gpu)
                facts.process_memory.extend(processes_from_nvml(raw, gpu.uuid))
    elif "smi_xml" in section or "query_gpu" in section:
        _from_nvidia_smi(section, facts)
    else:
        why = section.get("pynvml_unavailable")
        smi = (section.get("nvidia_smi") or {}).get("error")
        if section:
            facts.errors.append(("gpus", "no GPU data: " + "; ".join(
                str(reason) for reason in (smi, why) if reason)))
    _add_numa(probe, facts)
    return facts


def _from_nvidia_smi(section: dict[str, Any], facts: GpuFacts) -> None:
    xml = section.get("smi_xml") or {}
    if "text" in xml and xml.get("rc") == 0:
        parsed = parse_smi_xml(xml["text"])
        facts.gpus = parsed.gpus
        facts.process_memory = parsed.processes
        facts.summary = {"origin": "nvidia-smi -q -x", "nvml_driver": parsed.driver_version,
                         "cuda_driver": parsed.cuda_version}
        facts.errors.extend(("gpus", error) for error in parsed.errors)
    elif xml:
        facts.errors.append(("gpus", f"nvidia-smi -q -x: {_failure(xml)}"))
    query = section.get("query_gpu") or {}
    if facts.gpus and "text" in query and query.get("rc") == 0:
        _add_compute_capability(facts, parse_query_csv(query["text"])[0])
    elif not facts.gpus and "text" in query and query.get("rc") == 0:
        rows, errors = parse_query_csv(query["text"])
        facts.gpus = gpus_from_query_rows(rows, "nvidia-smi --query-gpu")
        facts.errors.extend(("gpus", error) for error in errors)
        driver = next((row.get("driver_version") for row in rows if row.get("driver_version")),
                      None)
        if rows:
            facts.summary = {"origin": "nvidia-smi --query-gpu",
                             "nvml_driver": clean(driver) or facts.summary.get("nvml_driver"),
                             "cuda_driver": facts.summary.get("cuda_driver")}
    elif query and not facts.gpus:
        facts.errors.append(("gpus", f"nvidia-smi --query-gpu: {_failure(query)}"))
    apps = section.get("query_apps") or {}
    if not facts.process_memory and "text" in apps and apps.get("rc") == 0:
        rows, errors = parse_query_csv(apps["text"])
        facts.process_memory = apps_from_query_rows(rows)
    links = parse_nvlink_status(str((section.get("nvlink_status") or {}).get("text") or ""))
    if links:
        facts.gpus = [gpu.model_copy(update={
            "nvlinks": links.get(gpu.index) or None,
            "sources": {**gpu.sources, "nvlinks": Source(
                origin="nvidia-smi nvlink -s", raw=f"{len(links.get(gpu.index, []))} links")},
        }) if gpu.index in links else gpu for gpu in facts.gpus]


def _add_compute_capability(facts: GpuFacts, rows: list[dict[str, str]]) -> None:
    """`-q -x` has no compute capability; the query CSV row of the same UUID has it."""
    by_uuid = {row.get("uuid"): clean(row.get("compute_cap")) for row in rows}
    facts.gpus = [gpu.model_copy(update={
        "compute_capability": by_uuid[gpu.uuid],
        "sources": {**gpu.sources, "compute_capability": Source(
            origin="nvidia-smi --query-gpu", raw=f"compute_cap: {by_uuid[gpu.uuid]}")},
    }) if gpu.compute_capability is None and by_uuid.get(gpu.uuid) else gpu
        for gpu in facts.gpus]


def _failure(run: dict[str, Any]) -> str:
    if "error" in run:
        return str(run["error"])
    stderr = str(run.get("stderr") or "").strip()
    text = str(run.get("text") or "").strip()
    detail = (stderr or text).splitlines()[-1] if (stderr or text) else "no output"
    return f"exit {run.get('rc')}: {detail}"


def _add_numa(probe: dict[str, Any], facts: GpuFacts) -> None:
    numa: dict[str, int] = {}
    for device in (probe.get("system") or {}).get("pci_nvidia") or []:
        if not isinstance(device, dict):
            continue
        node = device.get("numa_node")
        address = normalize_bus_id(device.get("address"))
        if address and isinstance(node, str) and node.lstrip("-").isdigit() and int(node) >= 0:
            numa[address] = int(node)
    if numa:
        facts.gpus = [gpu.model_copy(update={"numa_node": numa.get(
            normalize_bus_id(gpu.pci_bus_id) or "")}) for gpu in facts.gpus]
