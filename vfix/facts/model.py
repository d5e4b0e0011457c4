"""Typed, frozen facts for one host: the contract between probe, gather, audit, fix and validate.

The probe (stdlib-only, on the node) emits a JSON document; this module validates it into
`HostFacts`. Top-level keys: host, collected_at, versions, gpus, topology, system, processes,
errors. Unknown keys are ignored so newer probes stay readable by older controllers; a missing
section is empty, never an exception. `None` means "not observed" (tool absent, not supported),
which checks must treat differently from a bad value.

Evidence: every section may carry `sources` — a map from field name to the command or file the
value came from and the raw line(s) it was read from — so a finding can cite what it stands on.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Source(Frozen):
    """Where a value came from: the command or file, and the raw text it was read from."""

    origin: str  # e.g. "nvidia-smi -q -x", "/proc/sys/kernel/pid_max"
    raw: str = ""  # the raw line(s), trimmed


class ProbeError(Frozen):
    """A section or tool that could not be read, with the reason. Part of the facts, not a crash."""

    section: str
    reason: str


# --- versions ---------------------------------------------------------------------------------


class NcclLibrary(Frozen):
    path: str
    version: str | None = None  # "2.28.9"
    origin: str = "unknown"  # system | pip | conda | local | torch-bundled | unknown
    package: str | None = None  # e.g. "nvidia-nccl-cu13" or "libnccl2"
    loaded_by_torch: bool = False
    aliases: list[str] = Field(default_factory=list)  # symlinks / other paths to the same file


class CudaRuntime(Frozen):
    path: str
    version: str | None = None  # "13.0"
    origin: str = "unknown"


class PythonEnv(Frozen):
    interpreter: str  # the interpreter asked for, e.g. "python3"
    executable: str | None = None
    version: str | None = None
    packages: dict[str, str] = Field(default_factory=dict)  # name (lower-case) -> version


class Versions(Frozen):
    kernel_module: str | None = None  # /proc/driver/nvidia/version, e.g. "580.159.04"
    kernel_module_flavor: str | None = None  # "open" | "proprietary"
    nvml_driver: str | None = None  # NVML / nvidia-smi userspace driver version
    cuda_driver: str | None = None  # max CUDA version the driver supports, e.g. "13.0"
    cuda_runtimes: list[CudaRuntime] = Field(default_factory=list)
    nccl: list[NcclLibrary] = Field(default_factory=list)
    python: PythonEnv | None = None
    os_id: str | None = None
    os_version: str | None = None
    os_pretty: str | None = None
    kernel: str | None = None
    glibc: str | None = None
    torch_cuda: str | None = None  # CUDA torch was built with (torch/version.py), e.g. "13.0"
    nvml_version: str | None = None
    sources: dict[str, Source] = Field(default_factory=dict)

    def package(self, name: str) -> str | None:
        """Version of a Python package in the probed interpreter, or None."""
        if self.python is None:
            return None
        return self.python.packages.get(name.lower())


# --- gpus -------------------------------------------------------------------------------------


class NvLink(Frozen):
    link: int
    active: bool
    speed_gbps: float | None = None


class MigDevice(Frozen):
    index: int | None = None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None
    memory_total_mib: int | None = None
    sm_count: int | None = None


class Gpu(Frozen):
    index: int
    name: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None  # "9.0"
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    persistence_mode: bool | None = None
    mig_mode_current: str | None = None  # "Enabled" | "Disabled" | None (not supported)
    mig_mode_pending: str | None = None
    mig_devices: list[MigDevice] = Field(default_factory=list)
    compute_mode: str | None = None  # "Default" | "Exclusive_Process" | "Prohibited"
    ecc_mode_current: str | None = None
    ecc_uncorrected_volatile: int | None = None
    ecc_uncorrected_aggregate: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    clocks_sm_mhz: int | None = None
    clocks_sm_max_mhz: int | None = None
    clocks_mem_mhz: int | None = None
    clocks_mem_max_mhz: int | None = None
    clocks_locked_sm_mhz: int | None = None  # locked/application clock if set
    throttle_reasons: list[str] = Field(default_factory=list)  # active reasons only
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    temperature_c: int | None = None
    nvlinks: list[NvLink] | None = None  # None: NVLink not supported / not reported
    vbios: str | None = None
    numa_node: int | None = None
    architecture: str | None = None  # "Hopper"
    sources: dict[str, Source] = Field(default_factory=dict)


# --- topology ---------------------------------------------------------------------------------


class Topology(Frozen):
    """`nvidia-smi topo -m`: devices (GPU0.., NIC0..) and the link type between each pair."""

    devices: list[str] = Field(default_factory=list)
    links: dict[str, dict[str, str]] = Field(default_factory=dict)  # links["GPU0"]["GPU1"] = "NV18"
    cpu_affinity: dict[str, str] = Field(default_factory=dict)  # "GPU0" -> "0-47,96-143"
    numa_affinity: dict[str, str] = Field(default_factory=dict)  # "GPU0" -> "0"
    nic_names: dict[str, str] = Field(default_factory=dict)  # "NIC0" -> "mlx5_0"
    p2p_read: dict[str, dict[str, str]] = Field(default_factory=dict)  # topo -p2p r: OK/NS/CNS..
    raw: str = ""  # the text it was parsed from


# --- system -----------------------------------------------------------------------------------


class Shm(Frozen):
    size_bytes: int | None = None
    used_bytes: int | None = None
    mount_options: str | None = None


class Iommu(Frozen):
    cmdline_flags: list[str] = Field(default_factory=list)  # iommu-related kernel args
    groups: int | None = None  # count of /sys/kernel/iommu_groups entries
    default_domain: str | None = None  # "Translated" | "Passthrough" | None (unknown)
    dmesg_lines: list[str] = Field(default_factory=list)
    dmesg_readable: bool = False


class AcsBridge(Frozen):
    device: str
    enabled_flags: list[str] = Field(default_factory=list)  # e.g. ["SrcValid+", "ReqRedir+"]


class Ulimits(Frozen):
    nofile_soft: int | None = None  # None = unlimited or unknown; see raw
    nofile_hard: int | None = None
    memlock_soft: int | None = None  # bytes; -1 = unlimited
    memlock_hard: int | None = None
    nproc_soft: int | None = None  # -1 = unlimited
    stack_soft: int | None = None  # bytes; -1 = unlimited


class Virtualization(Frozen):
    hypervisor: str | None = None  # "kvm", "vmware", ... or None on bare metal
    container: str | None = None  # "docker", "podman", "lxc", ... or None
    is_vm: bool = False
    evidence: list[str] = Field(default_factory=list)


class NetInterface(Frozen):
    name: str
    state: str | None = None  # up | down | unknown
    mtu: int | None = None
    addresses: list[str] = Field(default_factory=list)
    kind: str | None = None  # ether | infiniband | loopback


class IbPort(Frozen):
    port: int
    state: str | None = None  # "4: ACTIVE"
    link_layer: str | None = None  # InfiniBand | Ethernet (RoCE)
    rate: str | None = None


class IbDevice(Frozen):
    name: str
    ports: list[IbPort] = Field(default_factory=list)


class Cpu(Frozen):
    model: str | None = None
    vendor: str | None = None  # GenuineIntel | AuthenticAMD
    cores: int | None = None
    sockets: int | None = None
    numa_nodes: int | None = None


class Docker(Frozen):
    present: bool = False
    daemon_json: dict[str, object] | None = None


class System(Frozen):
    hostname: str | None = None
    cpu: Cpu = Field(default_factory=Cpu)
    memory_total_bytes: int | None = None
    kernel_cmdline: str | None = None
    shm: Shm = Field(default_factory=Shm)
    iommu: Iommu = Field(default_factory=Iommu)
    acs: list[AcsBridge] | None = None  # None: lspci absent or unreadable
    sysctl: dict[str, str] = Field(default_factory=dict)
    ulimits: Ulimits = Field(default_factory=Ulimits)
    limits_files: dict[str, list[str]] = Field(default_factory=dict)  # path -> effective lines
    virtualization: Virtualization = Field(default_factory=Virtualization)
    interfaces: list[NetInterface] = Field(default_factory=list)
    ib_devices: list[IbDevice] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)  # NCCL_*/CUDA_*/VLLM_*, secrets redacted
    nccl_conf: dict[str, str] = Field(default_factory=dict)  # /etc/nccl.conf
    # NVIDIA display/3D PCI functions the kernel sees (read from sysfs, so no lspci needed);
    # None: not observed. Compare with len(gpus) to spot GPUs the driver does not bind.
    lspci_nvidia_gpus: list[str] | None = None
    has_systemd: bool | None = None
    docker: Docker = Field(default_factory=Docker)
    sources: dict[str, Source] = Field(default_factory=dict)


# --- processes --------------------------------------------------------------------------------


class GpuProcess(Frozen):
    pid: int
    ppid: int | None = None
    user: str | None = None
    cmdline: str = ""
    start_time: str | None = None  # ISO 8601
    devices: list[str] = Field(default_factory=list)  # /dev/nvidia* it holds open
    gpu_memory_mib: dict[str, int] = Field(default_factory=dict)  # GPU uuid -> MiB
    parent_alive: bool | None = None
    parent_cmdline: str | None = None


class ListeningPort(Frozen):
    port: int
    address: str
    protocol: str = "tcp"
    pid: int | None = None
    process: str | None = None


class Processes(Frozen):
    gpu: list[GpuProcess] = Field(default_factory=list)
    listening: list[ListeningPort] = Field(default_factory=list)


# --- the document -----------------------------------------------------------------------------


class HostFacts(Frozen):
    host: str
    collected_at: str  # ISO 8601 UTC
    probe_version: str | None = None
    versions: Versions = Field(default_factory=Versions)
    gpus: list[Gpu] = Field(default_factory=list)
    topology: Topology = Field(default_factory=Topology)
    system: System = Field(default_factory=System)
    processes: Processes = Field(default_factory=Processes)
    errors: list[ProbeError] = Field(default_factory=list)
    group_names: list[str] = Field(default_factory=list)  # inventory groups, set by gather
    group_vars: dict[str, object] = Field(default_factory=dict)  # vfix_* vars from inventory
