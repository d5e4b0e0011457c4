"""CUDA_VISIBLE_DEVICES: parse it the way the CUDA runtime does, and resolve it against facts.

CUDA reads a comma-separated list of device indices, `GPU-<uuid>` (a unique prefix is
enough) or MIG identifiers (`MIG-<uuid>`, or the older `MIG-GPU-<uuid>/<gi>/<ci>`). Parsing
stops at the first entry that is invalid, and devices after it are silently hidden; a device
listed twice makes CUDA initialisation fail. (CUDA C Programming Guide, "CUDA Environment
Variables"; MIG User Guide, "CUDA Device Enumeration".)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vfix.facts.model import Gpu

_INDEX = re.compile(r"^\d+$")
_GPU_UUID = re.compile(r"^GPU-[0-9a-fA-F-]+$")
_MIG = re.compile(r"^MIG-(GPU-[0-9a-fA-F-]+/\d+/\d+|[0-9a-fA-F-]+)$")


@dataclass(frozen=True)
class DeviceToken:
    text: str
    kind: str  # "index" | "uuid" | "mig" | "invalid"


@dataclass(frozen=True)
class VisibleDevices:
    tokens: tuple[DeviceToken, ...]

    @property
    def effective(self) -> tuple[DeviceToken, ...]:
        """The entries CUDA uses: everything before the first invalid one."""
        out: list[DeviceToken] = []
        for token in self.tokens:
            if token.kind == "invalid":
                break
            out.append(token)
        return tuple(out)

    @property
    def ignored(self) -> tuple[DeviceToken, ...]:
        return self.tokens[len(self.effective):]

    @property
    def has_mig(self) -> bool:
        return any(t.kind == "mig" for t in self.effective)


def parse_visible_devices(value: str) -> VisibleDevices:
    tokens = []
    for raw in value.split(","):
        text = raw.strip()
        if _INDEX.match(text):
            kind = "index"
        elif _GPU_UUID.match(text):
            kind = "uuid"
        elif _MIG.match(text):
            kind = "mig"
        else:
            kind = "invalid"
        tokens.append(DeviceToken(text=text, kind=kind))
    return VisibleDevices(tokens=tuple(tokens))


@dataclass(frozen=True)
class Resolution:
    gpus: tuple[Gpu, ...]  # the physical GPUs, in CUDA's order
    problems: tuple[str, ...]  # why some entries do not resolve (empty: all fine)


def resolve(devices: VisibleDevices, gpus: list[Gpu]) -> Resolution:
    """Map the effective entries onto the host's GPUs (MIG entries are left to the caller)."""
    found: list[Gpu] = []
    problems: list[str] = []
    for token in devices.effective:
        gpu = _match(token, gpus, problems)
        if gpu is None:
            continue
        if any(g.index == gpu.index for g in found):
            problems.append(f"{token.text} names GPU {gpu.index} twice (CUDA init fails)")
            continue
        found.append(gpu)
    for token in devices.ignored:
        problems.append(f"{token.text!r} is not a device id: CUDA ignores it and every entry "
                        f"after it")
        break
    return Resolution(gpus=tuple(found), problems=tuple(problems))


def _match(token: DeviceToken, gpus: list[Gpu], problems: list[str]) -> Gpu | None:
    if token.kind == "index":
        index = int(token.text)
        gpu = next((g for g in gpus if g.index == index), None)
        if gpu is None:
            problems.append(f"index {index} is not a GPU on this host (it has {len(gpus)})")
        return gpu
    if token.kind == "uuid":
        matches = [g for g in gpus if g.uuid and g.uuid.lower().startswith(token.text.lower())]
        if len(matches) == 1:
            return matches[0]
        problems.append(f"{token.text} matches {len(matches)} GPUs on this host (needs one)")
    return None
