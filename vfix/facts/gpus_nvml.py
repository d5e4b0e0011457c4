"""The probe's pynvml section (plain JSON values, errors as {"error": ...}) into `Gpu` facts."""

from __future__ import annotations

from typing import Any

from vfix.facts.model import Gpu, NvLink, Source
from vfix.facts.values import clean

ORIGIN = "pynvml"
# nvmlClocksEventReason* bits (nvml.h); the names follow nvidia-smi's XML tags.
CLOCK_EVENT_BITS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clocks_setting",
}


def decode_clock_events(mask: object) -> list[str]:
    """Bitmask (int or "0x..." text) to reason names; unknown bits as "bit_0x..."."""
    if isinstance(mask, str):
        try:
            mask = int(mask.strip(), 0)
        except ValueError:
            return []
    if not isinstance(mask, int) or isinstance(mask, bool) or mask < 0:
        return []
    names = [name for bit, name in CLOCK_EVENT_BITS.items() if mask & bit]
    unknown = mask & ~sum(CLOCK_EVENT_BITS)
    if unknown:
        names.append(f"bit_{unknown:#x}")
    return names


def ok(value: Any) -> Any:
    """The value, or None when the probe recorded an NVML error for it."""
    return None if isinstance(value, dict) and "error" in value else value


def _int(value: Any) -> int | None:
    value = ok(value)
    if isinstance(value, bool):
        return int(value)
    return value if isinstance(value, int) else None


def _mode_pair(value: Any) -> tuple[str | None, str | None]:
    value = ok(value)
    if isinstance(value, list) and len(value) == 2:
        return tuple("Enabled" if v == 1 else "Disabled" if v == 0 else None for v in value)  # type: ignore[return-value]
    return None, None


def _mib(value: Any) -> int | None:
    return value // 2**20 if isinstance(value, int) else None


COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}
ARCHITECTURES = {2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere",
                 8: "Ada Lovelace", 9: "Hopper", 10: "Blackwell", 13: "Rubin"}


def gpu_from_nvml(raw: dict[str, Any]) -> Gpu:
    sources: dict[str, Source] = {}

    def note(name: str, value: Any) -> Any:
        if ok(value) is not None:
            sources[name] = Source(origin=ORIGIN, raw=str(value)[:200])
        return ok(value)

    memory = note("memory_total_mib", raw.get("memory"))
    memory = memory if isinstance(memory, dict) else {}
    pci = ok(raw.get("pci"))
    cc = note("compute_capability", raw.get("compute_capability"))
    mig_current, mig_pending = _mode_pair(raw.get("mig_mode"))
    ecc_current, _ = _mode_pair(raw.get("ecc_mode"))
    rows = ok(raw.get("remapped_rows"))
    power = _int(raw.get("power_draw_mw"))
    limit = _int(raw.get("power_limit_mw"))
    links = raw.get("nvlink") or []
    nvlinks = [NvLink(link=entry["link"], active=ok(entry.get("state")) == 1)
               for entry in links if isinstance(entry, dict) and isinstance(entry.get("link"), int)
               and ok(entry.get("state")) is not None] if isinstance(links, list) else []
    if nvlinks:
        sources["nvlinks"] = Source(origin=ORIGIN + " nvmlDeviceGetNvLinkState",
                                    raw=str([(link.link, link.active) for link in nvlinks]))
    app_clock = _int(raw.get("clock_sm_applications"))
    max_clock = _int(raw.get("clock_sm_max"))
    return Gpu(
        index=_int(raw.get("index")) or 0,
        name=clean(note("name", raw.get("name"))),
        uuid=clean(note("uuid", raw.get("uuid"))),
        pci_bus_id=clean(pci.get("busId")) if isinstance(pci, dict) else None,
        compute_capability=f"{cc[0]}.{cc[1]}" if isinstance(cc, list) and len(cc) == 2 else None,
        memory_total_mib=_mib(memory.get("total")),
        memory_used_mib=_mib(memory.get("used")),
        persistence_mode=None if _int(raw.get("persistence_mode")) is None
        else _int(raw.get("persistence_mode")) == 1,
        mig_mode_current=mig_current,
        mig_mode_pending=mig_pending,
        compute_mode=COMPUTE_MODES.get(_int(raw.get("compute_mode")) or 0)
        if _int(raw.get("compute_mode")) is not None else None,
        ecc_mode_current=ecc_current,
        ecc_uncorrected_volatile=_int(note("ecc_uncorrected_volatile",
                                           raw.get("ecc_uncorrected_volatile"))),
        ecc_uncorrected_aggregate=_int(raw.get("ecc_uncorrected_aggregate")),
        retired_pages_pending=None if _int(raw.get("retired_pages_pending")) is None
        else _int(raw.get("retired_pages_pending")) == 1,
        remapped_rows_pending=bool(rows[2]) if isinstance(rows, list) and len(rows) == 4 else None,
        remapped_rows_failure=bool(rows[3]) if isinstance(rows, list) and len(rows) == 4 else None,
        pcie_gen_current=_int(note("pcie_gen_current", raw.get("pcie_gen_current"))),
        pcie_gen_max=_int(raw.get("pcie_gen_max")),
        pcie_width_current=_int(note("pcie_width_current", raw.get("pcie_width_current"))),
        pcie_width_max=_int(raw.get("pcie_width_max")),
        clocks_sm_mhz=_int(raw.get("clock_sm")),
        clocks_sm_max_mhz=max_clock,
        clocks_mem_mhz=_int(raw.get("clock_mem")),
        clocks_mem_max_mhz=_int(raw.get("clock_mem_max")),
        clocks_locked_sm_mhz=app_clock if app_clock is not None and max_clock is not None
        and app_clock != max_clock else None,
        throttle_reasons=decode_clock_events(ok(raw.get("clock_event_reasons"))),
        power_draw_w=power / 1000.0 if power is not None else None,
        power_limit_w=limit / 1000.0 if limit is not None else None,
        temperature_c=_int(raw.get("temperature_c")),
        nvlinks=nvlinks or None,
        vbios=clean(ok(raw.get("vbios"))),
        architecture=ARCHITECTURES.get(_int(raw.get("architecture")) or -1),
        sources=sources,
    )


def processes_from_nvml(raw: dict[str, Any], uuid: str | None) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    procs = ok(raw.get("processes"))
    for proc in procs if isinstance(procs, list) else []:
        if isinstance(proc, dict) and isinstance(proc.get("pid"), int):
            found.append({"pid": proc["pid"], "gpu_uuid": uuid,
                          "used_mib": _mib(proc.get("usedGpuMemory"))})
    return found
