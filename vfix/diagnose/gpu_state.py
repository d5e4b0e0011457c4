"""A GPU held below its clocks, read from the tables an operator pastes: a power limit set below
the default, or a slowdown the GPU reports as active in a column or a bit mask.

A run on a throttled GPU does not fail; it runs slower, and the slowest GPU sets the pace of
every collective. The signatures read the lines that say so alone (nvidia-smi -q's "HW Slowdown
: Active", DCGM's messages). This reads what takes a second line to mean anything:
- a power limit against the default: nvidia-smi -q's "Current Power Limit" (older drivers:
  "Power Limit", "Enforced Power Limit") a few lines from its "Default Power Limit"; the CSV
  columns power.limit or enforced.power.limit beside power.default_limit; nvidia-smi -pl's
  "Power limit for GPU ... was set to 500.00 W from 700.00 W";
- the clocks event reasons: CSV columns clocks_event_reasons.hw_slowdown (and the other
  reasons) reading "Active", or the bit mask of clocks_event_reasons.active and of DCGM's
  DCGM_FI_DEV_CLOCKS_EVENT_REASONS (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS before DCGM 3.3);
- DCGM's DCGM_FI_DEV_THERMAL_VIOLATION above 0: the time the GPU was slowed for heat (a GPU
  that cools as it should never is; its power violation counts a busy GPU at its power cap), and
  the same as a share of a job in `dcgmi stats -v`'s slowdown rows ("- Thermal (%) | 61.37").
The power cap reached at the default limit ("SW Power Cap : Active" under load) is how a busy
GPU runs, and is not reported.

A CSV row means nothing without its columns: `columns` takes them from the last header (or the
`--query-gpu=` list of a noheader command) before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from vfix.diagnose.model import Candidate, Evidence

# Lines that may hold a reading; the scanner only hands over lines holding one of these.
KEYWORDS = ("Power Limit", "Power limit for GPU", "--query-gpu=", "power.limit",
            "power.default_limit", "clocks_event_reasons.", "clocks_throttle_reasons.", " W, ",
            " MHz, ", ", Active", ", Not Active", "CLOCKS_EVENT_REASONS{",
            "CLOCK_THROTTLE_REASONS{", "DCGM_FI_DEV_THERMAL_VIOLATION{", "- Thermal (%)")
LOWERED = 0.85  # a limit at this share of the default or below was lowered, not rounded
THERMAL_SHARE = 5.0  # percent of a job's time slowed for heat: a GPU that cools as it should is 0
PAIRED_WITHIN = 8  # lines between nvidia-smi -q's limit and its default, one GPU's block
# NVML's clocks event reasons that slow a GPU down for heat or power trouble (not the power
# cap, which a busy GPU reaches at its default limit, nor idling or application clocks)
_SLOWDOWNS = {0x8: "HW Slowdown", 0x20: "SW Thermal Slowdown", 0x40: "HW Thermal Slowdown",
              0x80: "HW Power Brake Slowdown"}
_SLOWDOWN_COLUMNS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
                     "sw_thermal_slowdown")

_QUERY_LIMIT = re.compile(r"\b(?:(?P<kind>Current|Enforced|Default|Requested|Min|Max) )?"
                          r"Power Limit\s*:\s*(?P<watts>\d+(?:\.\d+)?) W\b")
_SET_LIMIT = re.compile(r"Power limit for GPU \S+ was set to (?P<new>\d+(?:\.\d+)?) W from "
                        r"(?P<old>\d+(?:\.\d+)?) W")
_QUERY_GPU = re.compile(r"--query-gpu[= ](?P<names>[\w.,]+)")
_HEADER_NAME = re.compile(r"^[a-z_]+(?:\.[a-z_]+)*(?: \[[^]]*\])?$")
# a DCGM exporter metric as Prometheus prints it ("=>" as promtool does)
_DCGM = re.compile(r"DCGM_FI_DEV_(?P<metric>CLOCKS?_(?:EVENT|THROTTLE)_REASONS|THERMAL_VIOLATION)"
                   r"\{(?P<labels>[^}]*)\}\s*(?:=>\s*)?(?P<value>\d+)\b")
_DCGM_GPU = re.compile(r"\bgpu=\"(?P<gpu>\d+)\"")
# dcgmi stats -v: "|        - Thermal (%)               | 61.37    |" (a share of the job's time)
_THERMAL_SHARE = re.compile(r"^\|\s*(?:Due to )?- Thermal \(%\)\s*\|"
                            r"\s*(?P<share>\d+(?:\.\d+)?)\s*\|")
_WATTS = re.compile(r"^(?P<watts>\d+(?:\.\d+)?) W$")


class Reading(NamedTuple):
    """What one line says: a power limit ("limit", "default": watts), a limit set ("set": new,
    old), CSV columns ("columns": names) or a row ("row": cells), a reasons mask ("mask": mask,
    GPU), DCGM's thermal violation time ("thermal": microseconds, GPU) or a job's share of time
    slowed for heat ("thermal_share": percent)."""

    kind: str
    value: tuple[str | float, ...]


def read(text: str) -> Reading | None:
    if "Power Limit" in text and (found := _QUERY_LIMIT.search(text)):
        kind = found["kind"]
        if kind in (None, "Current", "Enforced", "Default"):
            return Reading("default" if kind == "Default" else "limit", (float(found["watts"]),))
        return None
    if found := _SET_LIMIT.search(text):
        return Reading("set", (float(found["new"]), float(found["old"])))
    if found := _DCGM.search(text):
        gpu = _DCGM_GPU.search(found["labels"])
        kind = "thermal" if found["metric"] == "THERMAL_VIOLATION" else "mask"
        return Reading(kind, (float(found["value"]), gpu["gpu"] if gpu else "?"))
    if found := _THERMAL_SHARE.match(text):
        return Reading("thermal_share", (float(found["share"]),))
    if found := _QUERY_GPU.search(text):
        return Reading("columns", tuple(found["names"].strip(",").split(",")))
    cells = [cell.strip() for cell in text.split(",")]
    if len(cells) < 2:
        return None
    if "." in text and all(_HEADER_NAME.match(cell) for cell in cells):
        return Reading("columns", tuple(cell.split(" [")[0] for cell in cells))
    return Reading("row", tuple(cells))


@dataclass(slots=True)
class _Found:
    evidence: tuple[Evidence, ...]
    what: str  # "GPU 3's power limit is 350 W of its default 700 W"


@dataclass(slots=True)
class GpuState:
    """The readings of one run, in order, and what they show."""

    found: list[_Found] = field(default_factory=list)
    _columns: tuple[str, ...] = ()
    _limit: tuple[Evidence, float] | None = None
    _default: tuple[Evidence, float] | None = None

    def add(self, evidence: Evidence, reading: Reading) -> None:
        kind, value = reading
        if kind == "columns":
            self._columns = tuple(str(name) for name in value)
        elif kind == "row":
            self._row(evidence, [str(cell) for cell in value])
        elif kind == "set":
            new, old = float(value[0]), float(value[1])
            if new <= LOWERED * old:
                self._note((evidence,), f"a GPU's power limit was set to {new:g} W from {old:g} W")
        elif kind == "mask":
            self._mask(evidence, int(value[0]), f"GPU {value[1]}")
        elif kind == "thermal" and float(value[0]) > 0:
            seconds = float(value[0]) / 1e6
            self._note((evidence,), f"GPU {value[1]} slowed for heat for {seconds:.0f} s "
                                    "(DCGM's thermal violation time)")
        elif kind == "thermal_share" and float(value[0]) >= THERMAL_SHARE:
            self._note((evidence,), f"a GPU was slowed for heat {float(value[0]):g}% of the job "
                                    "(DCGM's job statistics)")
        elif kind == "limit":
            self._limit = (evidence, float(value[0]))
            self._pair()
        elif kind == "default":
            self._default = (evidence, float(value[0]))
            self._pair()

    def _pair(self) -> None:
        if self._limit is None or self._default is None:
            return
        (at_limit, limit), (at_default, default) = self._limit, self._default
        if abs(at_limit.line - at_default.line) > PAIRED_WITHIN:
            return
        self._limit = self._default = None
        if limit <= LOWERED * default:
            self._note(tuple(sorted((at_limit, at_default), key=lambda e: e.line)),
                       f"a GPU's power limit is {limit:g} W, its default {default:g} W")

    def _row(self, evidence: Evidence, cells: list[str]) -> None:
        if len(cells) != len(self._columns):
            return
        row = dict(zip(self._columns, cells, strict=True))
        gpu = f"GPU {row['index'].split()[-1]}" if row.get("index") else "a GPU"
        limit = _watts(row.get("power.limit") or row.get("enforced.power.limit"))
        default = _watts(row.get("power.default_limit"))
        if limit and default and limit <= LOWERED * default:
            self._note((evidence,), f"{gpu}'s power limit is {limit:g} W, its default "
                                    f"{default:g} W")
            return
        for family in ("clocks_event_reasons", "clocks_throttle_reasons"):
            active = [name for name in _SLOWDOWN_COLUMNS
                      if row.get(f"{family}.{name}") == "Active"]
            if active:
                self._note((evidence,), f"{gpu} reports {', '.join(active)} active")
                return
            mask = row.get(f"{family}.active", "")
            if mask.startswith("0x"):
                self._mask(evidence, int(mask, 16), gpu)

    def _mask(self, evidence: Evidence, mask: int, gpu: str) -> None:
        active = [name for bit, name in _SLOWDOWNS.items() if mask & bit]
        if active:
            self._note((evidence,), f"{gpu} reports {', '.join(active)} active "
                                    f"(clocks event reasons {mask:#x})")

    def _note(self, evidence: tuple[Evidence, ...], what: str) -> None:
        if len(self.found) < 8:
            self.found.append(_Found(evidence, what))

    def throttled(self) -> Candidate | None:
        """gpu_throttled when a reading showed a GPU held below its clocks; None otherwise."""
        if not self.found:
            return None
        first = self.found[0]
        lowered = any("power limit" in found.what for found in self.found)
        return Candidate.rule_cause(
            "gpu-power-limit-lowered" if lowered else "gpu-slowdown-reported", "visibility",
            "gpu_throttled", 0.7, tuple(e for found in self.found[:3] for e in found.evidence),
            explanation=(f"The log shows {first.what}. A GPU held below its clocks does not "
                         "fail the run; it runs slower, and the slowest GPU sets the pace of "
                         "every collective."),
            fix=("Restore the default power limit (nvidia-smi -pl <default watts>, and find "
                 "what set it: a node-prep job, a power profile, nvidia-persistenced "
                 "settings)." if lowered else
                 "Find what slows the GPU: temperatures and fans (nvidia-smi -q -d "
                 "TEMPERATURE, the BMC's sensors), the power supplies (ipmitool sel: a lost "
                 "PSU asserts the power brake); drain the node meanwhile."),
            check=("nvidia-smi -q -d PERFORMANCE,POWER; nvidia-smi --query-gpu=index,"
                   "power.limit,power.default_limit,clocks_event_reasons.active --format=csv"),
            matches=len(self.found))


def slowed_behind_cooling(top: Candidate, gpus: GpuState) -> Candidate | None:
    """gpu_throttled when `top` is the host's failed cooling (host-cooling-throttled: a fan
    failed, CPUs throttled) and the readings show the GPUs slowed: the GPUs set the job's pace,
    and LABELLING keeps host_hardware_fault for the CPUs a failed cooling throttles. The
    cooling stays in the explanation's fix (drain, check fans); None otherwise."""
    if top.signature != "host-cooling-throttled":
        return None
    return gpus.throttled()


def _watts(cell: str | None) -> float | None:
    found = _WATTS.match(cell or "")
    return float(found["watts"]) if found else None
