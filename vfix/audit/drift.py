"""Majority-baseline drift: within a group of hosts, who differs from the majority, on what.

A drift key extracts one comparable value (a string) from a host's facts, or None when it was
not observed; unobserved values never count as drift. Version keys feed the `version-drift`
check, the others `config-drift`; the HTML report shows all of them as a matrix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from vfix.facts.model import HostFacts
from vfix.vocabulary import Layer

UNGROUPED = "ungrouped"
UNSET = "(unset)"
# NCCL settings the nccl-env check compares itself (with its own message); not repeated here.
NCCL_ENV_OWNED = ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA")


@dataclass(frozen=True)
class DriftKey:
    name: str
    layer: Layer
    kind: str  # "versions" | "config"
    source: str  # where the value comes from, cited as evidence
    extract: Callable[[HostFacts], str | None]


@dataclass(frozen=True)
class Split:
    """How one key's values divide a group: the majority value (None on a tie) and who differs."""

    key: str
    values: Mapping[str, str]  # host -> value, observed hosts only
    majority: str | None
    majority_hosts: int

    @property
    def outliers(self) -> dict[str, str]:
        return {h: v for h, v in self.values.items() if v != self.majority}

    def describe_majority(self) -> str:
        if self.majority is None:
            counts = Counter(self.values.values())
            return "no majority (" + ", ".join(f"{v}: {n}" for v, n in counts.most_common()) + ")"
        return f"{self.majority} ({self.majority_hosts}/{len(self.values)} hosts)"


def split(key: str, values: Mapping[str, str | None]) -> Split | None:
    """The split of a key across hosts, or None when all observed hosts agree."""
    observed = {host: value for host, value in values.items() if value is not None}
    counts = Counter(observed.values()).most_common()
    if len(counts) < 2:
        return None
    (top, top_count), (_, second_count) = counts[0], counts[1]
    majority = top if top_count > second_count else None
    return Split(key=key, values=observed, majority=majority, majority_hosts=top_count)


def groups_of(fleet: Iterable[HostFacts]) -> dict[str, list[HostFacts]]:
    """Inventory group -> its hosts; hosts in no group form the 'ungrouped' group."""
    groups: dict[str, list[HostFacts]] = {}
    for facts in fleet:
        for group in facts.group_names or [UNGROUPED]:
            groups.setdefault(group, []).append(facts)
    return groups


# --- the keys ---------------------------------------------------------------------------------


def _joined(values: Iterable[str | None]) -> str | None:
    present = sorted({v for v in values if v})
    return "+".join(present) if present else None


def _torch_nccl(facts: HostFacts) -> str | None:
    loaded = [lib.version for lib in facts.versions.nccl if lib.loaded_by_torch and lib.version]
    return loaded[0] if loaded else _joined(lib.version for lib in facts.versions.nccl)


def _gpu_field(name: str) -> Callable[[HostFacts], str | None]:
    def extract(facts: HostFacts) -> str | None:
        return _joined(
            None if getattr(g, name) is None else str(getattr(g, name)) for g in facts.gpus
        )

    return extract


def _persistence(facts: HostFacts) -> str | None:
    return _joined(
        None if g.persistence_mode is None else ("Enabled" if g.persistence_mode else "Disabled")
        for g in facts.gpus
    )


def _gpu_count(facts: HostFacts) -> str | None:
    has_driver = facts.versions.kernel_module or facts.versions.nvml_driver or facts.gpus
    return str(len(facts.gpus)) if has_driver else None


def _shm(facts: HostFacts) -> str | None:
    size = facts.system.shm.size_bytes
    if size is None:
        return None
    return f"{size / 1024**3:.1f} GiB" if size >= 1024**3 else f"{size / 1024**2:.0f} MiB"


def _sysctl(key: str) -> Callable[[HostFacts], str | None]:
    return lambda facts: facts.system.sysctl.get(key)


def _iommu(facts: HostFacts) -> str | None:
    iommu = facts.system.iommu
    if iommu.default_domain is None and not iommu.cmdline_flags:
        return None
    return " ".join([iommu.default_domain or "?", *sorted(iommu.cmdline_flags)])


def _optional_int(value: int | None) -> str | None:
    return None if value is None else str(value)


DRIFT_KEYS: tuple[DriftKey, ...] = (
    DriftKey(
        "driver",
        Layer.VERSIONS,
        "versions",
        "nvidia-smi (Driver Version)",
        lambda f: f.versions.nvml_driver or f.versions.kernel_module,
    ),
    DriftKey(
        "cuda-driver",
        Layer.VERSIONS,
        "versions",
        "nvidia-smi (CUDA Version)",
        lambda f: f.versions.cuda_driver,
    ),
    DriftKey("nccl", Layer.VERSIONS, "versions", "NCCL library loaded by torch", _torch_nccl),
    DriftKey(
        "torch", Layer.VERSIONS, "versions", "pip (torch)", lambda f: f.versions.package("torch")
    ),
    DriftKey(
        "vllm", Layer.VERSIONS, "versions", "pip (vllm)", lambda f: f.versions.package("vllm")
    ),
    DriftKey(
        "gpu-model", Layer.VERSIONS, "versions", "nvidia-smi -q (Product Name)", _gpu_field("name")
    ),
    DriftKey(
        "compute-capability",
        Layer.VERSIONS,
        "versions",
        "nvidia-smi (compute_cap)",
        _gpu_field("compute_capability"),
    ),
    DriftKey(
        "vbios", Layer.VERSIONS, "versions", "nvidia-smi -q (VBIOS Version)", _gpu_field("vbios")
    ),
    DriftKey("kernel", Layer.VERSIONS, "versions", "uname -r", lambda f: f.versions.kernel),
    DriftKey("os", Layer.VERSIONS, "versions", "/etc/os-release", lambda f: f.versions.os_pretty),
    DriftKey("gpu-count", Layer.VISIBILITY, "config", "NVML device count", _gpu_count),
    DriftKey(
        "mig-mode",
        Layer.VISIBILITY,
        "config",
        "nvidia-smi -q (MIG Mode)",
        _gpu_field("mig_mode_current"),
    ),
    DriftKey(
        "compute-mode",
        Layer.VISIBILITY,
        "config",
        "nvidia-smi -q (Compute Mode)",
        _gpu_field("compute_mode"),
    ),
    DriftKey("iommu", Layer.COMMUNICATION, "config", "dmesg / /proc/cmdline", _iommu),
    DriftKey(
        "persistence-mode",
        Layer.RESOURCES,
        "config",
        "nvidia-smi -q (Persistence Mode)",
        _persistence,
    ),
    DriftKey(
        "ecc-mode",
        Layer.RESOURCES,
        "config",
        "nvidia-smi -q (ECC Mode)",
        _gpu_field("ecc_mode_current"),
    ),
    DriftKey("shm-size", Layer.RESOURCES, "config", "/dev/shm mount", _shm),
    DriftKey("kernel.pid_max", Layer.RESOURCES, "config", "sysctl", _sysctl("kernel.pid_max")),
    DriftKey(
        "vm.overcommit_memory", Layer.RESOURCES, "config", "sysctl", _sysctl("vm.overcommit_memory")
    ),
    DriftKey(
        "nofile",
        Layer.RESOURCES,
        "config",
        "ulimit -n",
        lambda f: _optional_int(f.system.ulimits.nofile_soft),
    ),
    DriftKey(
        "memlock",
        Layer.RESOURCES,
        "config",
        "ulimit -l",
        lambda f: _optional_int(f.system.ulimits.memlock_soft),
    ),
    DriftKey(
        "ib-devices",
        Layer.NETWORK,
        "config",
        "/sys/class/infiniband",
        lambda f: str(len(f.system.ib_devices)),
    ),
)


def _env(name: str) -> Callable[[HostFacts], str | None]:
    return lambda facts: facts.system.env.get(name, UNSET)


def env_keys(fleet: Iterable[HostFacts]) -> tuple[DriftKey, ...]:
    """One key per NCCL_* variable set on any host (unset counts as a value here)."""
    names = sorted(
        {
            name
            for facts in fleet
            for name in facts.system.env
            if name.startswith("NCCL_") and name not in NCCL_ENV_OWNED
        }
    )
    return tuple(
        DriftKey(
            f"env:{name}",
            Layer.COMMUNICATION,
            "config",
            "process environment",
            _env(name),
        )
        for name in names
    )


def keys_of_kind(kind: str, fleet: Iterable[HostFacts] = ()) -> tuple[DriftKey, ...]:
    keys = [key for key in DRIFT_KEYS if key.kind == kind]
    if kind == "config":
        keys.extend(env_keys(fleet))
    return tuple(keys)


def matrix(fleet: list[HostFacts]) -> dict[str, dict[str, str | None]]:
    """Every drift key -> host -> value, for the report's drift matrix."""
    keys = (*DRIFT_KEYS, *env_keys(fleet))
    return {key.name: {facts.host: key.extract(facts) for facts in fleet} for key in keys}
