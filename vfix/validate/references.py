"""The bus-bandwidth reference table (`data/nccl_references.yaml`): a floor per GPU model and
count, each row with its source. Operators may pass their own table in the same shape."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from vfix.errors import VfixError


@dataclass(frozen=True)
class Reference:
    gpu: str  # substring of the GPU name, case-insensitive
    gpus: int
    collective: str
    busbw_gbps: float
    size: str
    source: str

    def matches(self, gpu_name: str, gpus: int, collective: str | None) -> bool:
        same_collective = collective is None or collective == self.collective
        return self.gpu.lower() in gpu_name.lower() and gpus == self.gpus and same_collective


def load_references(path: Path | None = None) -> list[Reference]:
    try:
        if path is None:
            text = resources.files("vfix.validate").joinpath("data/nccl_references.yaml")\
                .read_text(encoding="utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        rows = yaml.safe_load(text) or []
        return [Reference(gpu=str(r["gpu"]), gpus=int(r["gpus"]),
                          collective=str(r.get("collective", "all_reduce_perf")),
                          busbw_gbps=float(r["busbw_gbps"]), size=str(r.get("size", "")),
                          source=str(r["source"]).strip())
                for r in rows]
    except OSError as error:
        raise VfixError(f"cannot read reference table {path}: {error.strerror}") from error
    except (yaml.YAMLError, KeyError, TypeError, ValueError) as error:
        raise VfixError(f"reference table {path or 'built-in'} is malformed: {error}") from error


def find_reference(references: list[Reference], gpu_name: str, gpus: int,
                   collective: str | None) -> Reference | None:
    return next((r for r in references if r.matches(gpu_name, gpus, collective)), None)
