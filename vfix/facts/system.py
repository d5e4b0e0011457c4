"""Host facts (CPU, memory, shm, IOMMU, ACS, sysctl, limits, virtualization, network, env)."""

from __future__ import annotations

import json
import re
from typing import Any

from vfix.facts.model import (
    AcsBridge,
    Cpu,
    Docker,
    IbDevice,
    IbPort,
    Iommu,
    NetInterface,
    Shm,
    Source,
    System,
    Ulimits,
    Virtualization,
)
from vfix.facts.values import clean, to_int

IOMMU_ARG = re.compile(r"^(intel_iommu|amd_iommu|iommu|iommu\.\w+|vfio\w*)(=|$)")
DEFAULT_DOMAIN = re.compile(r"Default domain type:\s*(\w+)")
LIMIT_LINE = re.compile(r"^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)")
VM_VENDORS = (("qemu", "kvm"), ("kvm", "kvm"), ("vmware", "vmware"), ("xen", "xen"),
              ("microsoft", "microsoft"), ("innotek", "oracle"), ("amazon ec2", "amazon"),
              ("google", "google"), ("openstack", "kvm"))
INTERFACE_KINDS = {"1": "ether", "32": "infiniband", "772": "loopback"}


def _text(evidence: Any) -> str:
    return str(evidence.get("text") or "") if isinstance(evidence, dict) else ""


def parse_limits(text: str) -> Ulimits:
    """/proc/<pid>/limits. nofile: None when unlimited; memlock/nproc/stack: -1 = unlimited."""
    values: dict[str, tuple[str, str]] = {}
    for line in (text or "").splitlines():
        match = LIMIT_LINE.match(line)
        if match:
            values[match.group(1).strip()] = (match.group(2), match.group(3))

    def number(name: str, which: int, unlimited: int | None = -1) -> int | None:
        pair = values.get(name)
        if pair is None:
            return None
        return unlimited if pair[which] == "unlimited" else to_int(pair[which])

    return Ulimits(
        nofile_soft=number("Max open files", 0, None),
        nofile_hard=number("Max open files", 1, None),
        memlock_soft=number("Max locked memory", 0),
        memlock_hard=number("Max locked memory", 1),
        nproc_soft=number("Max processes", 0),
        stack_soft=number("Max stack size", 0),
    )


def parse_acs(text: str) -> list[AcsBridge]:
    """`lspci -vvv` (device lines and ACSCtl lines): each device's enabled ACS controls."""
    bridges: list[AcsBridge] = []
    device = None
    for line in (text or "").splitlines():
        if line and not line[0].isspace():
            device = line.split(" ", 1)[0]
        elif "ACSCtl:" in line and device:
            flags = [flag for flag in line.split("ACSCtl:", 1)[1].split() if flag.endswith("+")]
            bridges.append(AcsBridge(device=device, enabled_flags=flags))
    return bridges


def parse_ip_addresses(text: str) -> dict[str, list[str]]:
    """`ip -o addr show` -> interface name -> ["10.0.0.2/24", "fe80::1/64"]."""
    addresses: dict[str, list[str]] = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("inet", "inet6"):
            addresses.setdefault(parts[1].rstrip(":").split("@")[0], []).append(parts[3])
    return addresses


def parse_key_values(text: str) -> dict[str, str]:
    values = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values[key.strip()] = value.strip()
    return values


def _virtualization(section: dict[str, Any], cpu: dict[str, Any]) -> Virtualization:
    virt = section.get("virtualization") or {}
    evidence: list[str] = []
    hypervisor = None
    vm_run = virt.get("detect_virt_vm") or {}
    if vm_run.get("rc") == 0 and _text(vm_run).strip() not in ("", "none"):
        hypervisor = _text(vm_run).strip()
        evidence.append(f"systemd-detect-virt --vm: {hypervisor}")
    dmi = virt.get("dmi") or {}
    vendor_text = " ".join(str(v) for v in dmi.values() if v).lower()
    if hypervisor is None:
        for needle, name in VM_VENDORS:
            if needle in vendor_text:
                hypervisor = name
                evidence.append(f"DMI: {vendor_text}")
                break
    if cpu.get("hypervisor_flag"):
        evidence.append("/proc/cpuinfo: hypervisor flag")
        hypervisor = hypervisor or "unknown"
    container = None
    ct_run = virt.get("detect_virt_container") or {}
    if ct_run.get("rc") == 0 and _text(ct_run).strip() not in ("", "none"):
        container = _text(ct_run).strip()
        evidence.append(f"systemd-detect-virt --container: {container}")
    elif virt.get("dockerenv"):
        container = "docker"
        evidence.append("/.dockerenv exists")
    elif virt.get("containerenv"):
        container = "podman"
        evidence.append("/run/.containerenv exists")
    elif virt.get("container_env"):
        container = str(virt["container_env"])
        evidence.append(f"env container={container}")
    else:
        cgroup = str(virt.get("cgroup") or "")
        for needle in ("kubepods", "docker", "lxc", "containerd"):
            if needle in cgroup:
                container = "kubernetes" if needle == "kubepods" else needle
                evidence.append(f"/proc/1/cgroup mentions {needle}")
                break
    return Virtualization(hypervisor=hypervisor, container=container,
                          is_vm=hypervisor is not None, evidence=evidence)


def _iommu(section: dict[str, Any], logs: dict[str, Any], cmdline: str) -> Iommu:
    dmesg = logs.get("dmesg") or {}
    readable = "text" in dmesg and dmesg.get("rc") == 0
    lines = [line for line in _text(dmesg).splitlines() if line.strip()] if readable else []
    domain = next((m.group(1) for m in map(DEFAULT_DOMAIN.search, lines) if m), None)
    groups = section.get("iommu_groups")
    return Iommu(cmdline_flags=[arg for arg in cmdline.split() if IOMMU_ARG.match(arg)],
                 groups=len(groups) if isinstance(groups, list) else None,
                 default_domain=domain, dmesg_lines=lines[:50], dmesg_readable=readable)


def _network(probe: dict[str, Any]) -> tuple[list[NetInterface], list[IbDevice]]:
    network = probe.get("network") or {}
    addresses = parse_ip_addresses(_text(network.get("addresses")))
    interfaces = [
        NetInterface(name=str(entry.get("name")), state=clean(entry.get("operstate")),
                     mtu=to_int(entry.get("mtu")),
                     addresses=addresses.get(str(entry.get("name")), []),
                     kind=INTERFACE_KINDS.get(str(entry.get("type")), clean(entry.get("type"))))
        for entry in network.get("interfaces") or [] if isinstance(entry, dict)
    ]
    ib = [
        IbDevice(name=str(device.get("name")), ports=[
            IbPort(port=to_int(port.get("port")) or 0, state=clean(port.get("state")),
                   link_layer=clean(port.get("link_layer")), rate=clean(port.get("rate")))
            for port in device.get("ports") or [] if isinstance(port, dict)])
        for device in network.get("infiniband") or [] if isinstance(device, dict)
    ]
    return interfaces, ib


def build_system(probe: dict[str, Any], errors: list[tuple[str, str]]) -> System:
    section = probe.get("system") or {}
    logs = probe.get("kernel_logs") or {}
    os_section = probe.get("os") or {}
    sources: dict[str, Source] = {}
    cmdline = _text(os_section.get("cmdline")).strip()
    if cmdline:
        sources["kernel_cmdline"] = Source(origin="/proc/cmdline", raw=cmdline)
    cpu = section.get("cpu") or {}
    if cpu.get("error"):
        errors.append(("system.cpu", f"/proc/cpuinfo: {cpu['error']}"))
    shm_stat = section.get("shm") or {}
    if shm_stat.get("error"):
        errors.append(("system.shm", f"/dev/shm: {shm_stat['error']}"))
    shm_mounts = [str(line) for line in section.get("mounts_shm") or []]
    shm_options = shm_mounts[-1].split()[3] if shm_mounts and len(shm_mounts[-1].split()) > 3 \
        else None
    if shm_mounts:
        sources["shm"] = Source(origin="/proc/mounts", raw=shm_mounts[-1])
    mem_line = str(section.get("meminfo_total") or "")
    mem_kib = to_int(mem_line)
    sysctl = {name: str(value) for name, value in (section.get("sysctl") or {}).items()
              if value is not None}
    for name, value in sysctl.items():
        sources[f"sysctl.{name}"] = Source(origin="/proc/sys/" + name.replace(".", "/"),
                                           raw=value)
    lspci = logs.get("lspci") or {}
    acs = parse_acs(_text(lspci)) if "text" in lspci and lspci.get("rc") == 0 else None
    if acs is None and lspci:
        reason = lspci.get("error") or f"exit {lspci.get('rc')}"
        errors.append(("system.acs", f"lspci: {reason}"))
    dmesg = logs.get("dmesg") or {}
    if dmesg and not ("text" in dmesg and dmesg.get("rc") == 0):
        reason = dmesg.get("error") or str(dmesg.get("stderr") or "").strip() or \
            f"exit {dmesg.get('rc')}"
        errors.append(("system.iommu", f"dmesg unreadable: {reason}"))
    limits = section.get("limits_self") or {}
    interfaces, ib = _network(probe)
    docker = section.get("docker") or {}
    daemon_json = None
    if "text" in (docker.get("daemon_json") or {}):
        try:
            parsed = json.loads(docker["daemon_json"]["text"])
            daemon_json = parsed if isinstance(parsed, dict) else None
        except ValueError:
            errors.append(("system.docker", "/etc/docker/daemon.json is not valid JSON"))
    pci = [d for d in section.get("pci_nvidia") or [] if isinstance(d, dict)]
    return System(
        hostname=clean(os_section.get("hostname")),
        cpu=Cpu(model=clean(cpu.get("model")), vendor=clean(cpu.get("vendor")),
                cores=cpu.get("processors") or None, sockets=cpu.get("sockets"),
                numa_nodes=len(section["numa_nodes"]) if isinstance(
                    section.get("numa_nodes"), list) and section["numa_nodes"] else None),
        memory_total_bytes=mem_kib * 1024 if mem_kib is not None else None,
        kernel_cmdline=cmdline or None,
        shm=Shm(size_bytes=shm_stat.get("size_bytes"), used_bytes=shm_stat.get("used_bytes"),
                mount_options=shm_options),
        iommu=_iommu(section, logs, cmdline),
        acs=acs,
        sysctl=sysctl,
        ulimits=parse_limits(_text(limits)),
        limits_files={str(k): [str(line) for line in v]
                      for k, v in (section.get("limits_files") or {}).items()},
        virtualization=_virtualization(section, cpu),
        interfaces=interfaces,
        ib_devices=ib,
        env={str(k): str(v) for k, v in (section.get("env") or {}).items()},
        nccl_conf=parse_key_values(_text(section.get("nccl_conf"))),
        lspci_nvidia_gpus=[str(d.get("address")) for d in pci
                           if str(d.get("class") or "").startswith("0x03")] if section else None,
        has_systemd=section.get("has_systemd"),
        docker=Docker(present=bool(docker.get("binary")), daemon_json=daemon_json),
        sources=sources,
    )
