"""A readable, one-screen summary of one host's facts (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from vfix.facts.model import HostFacts


def _gib(value: int | None) -> str:
    return "?" if value is None else f"{value / 2**30:.1f} GiB"


def _v(value: object) -> str:
    return "-" if value is None or value == "" else str(value)


def render_summary(facts: HostFacts, console: Console | None = None) -> None:
    console = console or Console()
    v, s = facts.versions, facts.system
    console.print(f"[bold]{facts.host}[/bold]  collected {facts.collected_at}")
    driver = _v(v.nvml_driver)
    if v.kernel_module and v.nvml_driver and v.kernel_module != v.nvml_driver:
        driver += f" [red](kernel module {v.kernel_module}: reboot pending?)[/red]"
    console.print(f"OS {_v(v.os_pretty)}, kernel {_v(v.kernel)}, glibc {_v(v.glibc)}")
    console.print(f"driver {driver}  CUDA driver {_v(v.cuda_driver)}  "
                  f"module {_v(v.kernel_module_flavor)}")
    if v.python:
        wanted = ("torch", "vllm", "ray", "transformers", "triton")
        found = ", ".join(f"{name} {v.python.packages[name]}" for name in wanted
                          if name in v.python.packages)
        console.print(f"Python {_v(v.python.version)} ({v.python.interpreter}): "
                      f"{found or 'no torch/vllm'}"
                      + (f", torch CUDA {v.torch_cuda}" if v.torch_cuda else ""))
    for lib in v.nccl:
        mark = " [green]<- torch[/green]" if lib.loaded_by_torch else ""
        console.print(f"NCCL {_v(lib.version)} {lib.origin} {lib.path}{mark}")
    if facts.gpus:
        table = Table("GPU", "name", "bus", "memory", "CC", "PCIe", "MIG", "persist", "ECC unc.",
                      "NUMA", title="GPUs")
        for gpu in facts.gpus:
            table.add_row(str(gpu.index), _v(gpu.name), _v(gpu.pci_bus_id),
                          f"{_v(gpu.memory_used_mib)}/{_v(gpu.memory_total_mib)} MiB",
                          _v(gpu.compute_capability),
                          f"gen{_v(gpu.pcie_gen_current)}/{_v(gpu.pcie_gen_max)} "
                          f"x{_v(gpu.pcie_width_current)}/{_v(gpu.pcie_width_max)}",
                          _v(gpu.mig_mode_current), _v(gpu.persistence_mode),
                          _v(gpu.ecc_uncorrected_volatile), _v(gpu.numa_node))
        console.print(table)
    else:
        console.print("[yellow]no GPU visible[/yellow]")
    if facts.topology.devices:
        links = {facts.topology.links.get(a, {}).get(b) for a in facts.topology.devices
                 for b in facts.topology.devices if a != b}
        console.print(f"topology: {len(facts.topology.devices)} devices, link types "
                      f"{', '.join(sorted(x for x in links if x)) or '-'}")
    virt = s.virtualization
    console.print(f"CPU {_v(s.cpu.model)} ({_v(s.cpu.cores)} cpus, {_v(s.cpu.numa_nodes)} NUMA), "
                  f"memory {_gib(s.memory_total_bytes)}, /dev/shm {_gib(s.shm.size_bytes)}, "
                  f"nofile {_v(s.ulimits.nofile_soft)}, "
                  f"VM {_v(virt.hypervisor)}, container {_v(virt.container)}")
    console.print(f"processes on GPUs: {len(facts.processes.gpu)}, "
                  f"listening TCP ports: {len(facts.processes.listening)}")
    if facts.errors:
        console.print(f"[yellow]{len(facts.errors)} thing(s) not observed:[/yellow]")
        for error in facts.errors:
            console.print(f"  {error.section}: {error.reason}", markup=False)
