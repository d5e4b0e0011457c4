"""Helpers for the preflight tests: real model configs and real facts from tests/data."""

from __future__ import annotations

from pathlib import Path

from vfix.facts.model import Gpu, HostFacts
from vfix.facts.topology import parse_topo_matrix

DATA = Path(__file__).resolve().parent.parent / "data"
MODELS = DATA / "models"


def model(name: str) -> Path:
    return MODELS / name


def h200() -> HostFacts:
    """The real one-GPU H200 node's facts."""
    return HostFacts.model_validate_json((DATA / "facts" / "h200-1gpu.json").read_text())


def multi_gpu_host(base: HostFacts, topo_file: str, memory_mib: int = 81559,
                   host: str = "gpu-node") -> HostFacts:
    """`base` with the GPUs and topology of a real multi-GPU `nvidia-smi topo -m` capture."""
    topology = parse_topo_matrix((DATA / "topo" / topo_file).read_text())
    count = sum(1 for d in topology.devices if d.startswith("GPU"))
    gpus = [Gpu(index=i, name="GPU", uuid=f"GPU-{i:08x}-0000-0000-0000-000000000000",
                memory_total_mib=memory_mib, memory_used_mib=0) for i in range(count)]
    return base.model_copy(update={"host": host, "gpus": gpus, "topology": topology})
