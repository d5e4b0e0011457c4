"""`nvidia-smi --query-gpu=... --format=csv` and `--query-compute-apps` output."""

from __future__ import annotations

import csv
import io
import re

from vfix.facts.gpus_nvml import decode_clock_events
from vfix.facts.model import Gpu, Source
from vfix.facts.values import clean, to_bool, to_float, to_int

UNIT = re.compile(r"\s*\[[^\]]*\]\s*$")


def parse_query_csv(text: str) -> tuple[list[dict[str, str]], list[str]]:
    """Rows as {field: raw value}, header units ("memory.total [MiB]") stripped from names."""
    errors: list[str] = []
    lines = [line for line in (text or "").replace("\x00", "").splitlines() if line.strip()]
    if not lines:
        return [], []
    reader = csv.reader(io.StringIO("\n".join(lines)), skipinitialspace=True)
    try:
        table = list(reader)
    except csv.Error as error:
        return [], [f"query CSV unreadable: {error}"]
    header = [UNIT.sub("", name).strip() for name in table[0]]
    rows = []
    for number, values in enumerate(table[1:], start=2):
        if len(values) != len(header):
            errors.append(f"query CSV line {number}: {len(values)} values for "
                          f"{len(header)} columns")
            if len(values) < 2:
                continue
        rows.append({name: value.strip() for name, value in zip(header, values, strict=False)})
    return rows, errors


def _g(row: dict[str, str], *names: str) -> str | None:
    for name in names:
        if name in row:
            return row[name]
    return None


def gpus_from_query_rows(rows: list[dict[str, str]], origin: str) -> list[Gpu]:
    gpus = []
    for position, row in enumerate(rows):
        index = to_int(row.get("index"))
        reasons = clean(_g(row, "clocks_event_reasons.active", "clocks_throttle_reasons.active"))
        gpus.append(Gpu(
            index=position if index is None else index,
            name=clean(row.get("name")),
            uuid=clean(row.get("uuid")),
            pci_bus_id=clean(row.get("pci.bus_id")),
            compute_capability=clean(row.get("compute_cap")),
            memory_total_mib=to_int(row.get("memory.total")),
            memory_used_mib=to_int(row.get("memory.used")),
            persistence_mode=to_bool(row.get("persistence_mode")),
            mig_mode_current=clean(row.get("mig.mode.current")),
            mig_mode_pending=clean(row.get("mig.mode.pending")),
            compute_mode=clean(row.get("compute_mode")),
            ecc_mode_current=clean(row.get("ecc.mode.current")),
            ecc_uncorrected_volatile=to_int(row.get("ecc.errors.uncorrected.volatile.total")),
            ecc_uncorrected_aggregate=to_int(row.get("ecc.errors.uncorrected.aggregate.total")),
            retired_pages_pending=to_bool(row.get("retired_pages.pending")),
            pcie_gen_current=to_int(row.get("pcie.link.gen.current")),
            pcie_gen_max=to_int(row.get("pcie.link.gen.max")),
            pcie_width_current=to_int(row.get("pcie.link.width.current")),
            pcie_width_max=to_int(row.get("pcie.link.width.max")),
            clocks_sm_mhz=to_int(_g(row, "clocks.sm", "clocks.current.sm")),
            clocks_sm_max_mhz=to_int(row.get("clocks.max.sm")),
            clocks_mem_mhz=to_int(_g(row, "clocks.mem", "clocks.current.memory")),
            clocks_mem_max_mhz=to_int(_g(row, "clocks.max.mem", "clocks.max.memory")),
            throttle_reasons=decode_clock_events(reasons or ""),
            power_draw_w=to_float(row.get("power.draw")),
            power_limit_w=to_float(row.get("power.limit")),
            temperature_c=to_int(row.get("temperature.gpu")),
            vbios=clean(row.get("vbios_version")),
            sources={"row": Source(origin=origin, raw=", ".join(row.values()))},
        ))
    return gpus


def apps_from_query_rows(rows: list[dict[str, str]]) -> list[dict[str, object]]:
    """--query-compute-apps rows: pid, used memory (MiB), GPU uuid."""
    apps: list[dict[str, object]] = []
    for row in rows:
        pid = to_int(row.get("pid"))
        if pid is None:
            continue
        apps.append({"pid": pid, "gpu_uuid": clean(row.get("gpu_uuid")),
                     "used_mib": to_int(_g(row, "used_gpu_memory", "used_memory"))})
    return apps
