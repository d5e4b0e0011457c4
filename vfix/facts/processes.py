"""Processes holding /dev/nvidia* (with GPU memory per GPU) and listening TCP sockets."""

from __future__ import annotations

import ipaddress
import time
from typing import Any

from vfix.facts.model import GpuProcess, ListeningPort, Processes


def decode_address(hex_address: str) -> tuple[str, int] | None:
    """/proc/net/tcp{,6} "0100007F:1F90" -> ("127.0.0.1", 8080); IPv6 words are little-endian."""
    try:
        host_hex, port_hex = hex_address.split(":")
        port = int(port_hex, 16)
        raw = bytes.fromhex(host_hex)
    except ValueError:
        return None
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw[::-1])), port
    if len(raw) == 16:
        words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
        address = ipaddress.IPv6Address(words)
        mapped = address.ipv4_mapped
        return str(mapped if mapped else address), port
    return None


def build_processes(probe: dict[str, Any], process_memory: list[dict[str, object]],
                    errors: list[tuple[str, str]]) -> Processes:
    section = probe.get("processes") or {}
    memory: dict[int, dict[str, int]] = {}
    for entry in process_memory:
        pid, uuid, used = entry.get("pid"), entry.get("gpu_uuid"), entry.get("used_mib")
        if isinstance(pid, int) and isinstance(uuid, str) and isinstance(used, int):
            memory.setdefault(pid, {})[uuid] = memory.get(pid, {}).get(uuid, 0) + used
    gpu = []
    for raw in section.get("gpu") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("pid"), int):
            continue
        start = raw.get("start_epoch")
        gpu.append(GpuProcess(
            pid=raw["pid"], ppid=raw.get("ppid"), user=raw.get("user"),
            cmdline=str(raw.get("cmdline") or ""),
            start_time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
            if isinstance(start, (int, float)) else None,
            devices=[str(d) for d in raw.get("devices") or []],
            gpu_memory_mib=memory.get(raw["pid"], {}),
            parent_alive=raw.get("parent_alive"),
            parent_cmdline=raw.get("parent_cmdline"),
        ))
    listening = []
    for raw in section.get("listening") or []:
        if not isinstance(raw, dict):
            continue
        parts = str(raw.get("line") or "").split()
        decoded = decode_address(parts[1]) if len(parts) > 1 else None
        if decoded is None:
            errors.append(("processes", f"unreadable socket line: {raw.get('line')!r}"))
            continue
        listening.append(ListeningPort(port=decoded[1], address=decoded[0],
                                       protocol=str(raw.get("proto") or "tcp"),
                                       pid=raw.get("pid"), process=raw.get("process")))
    unreadable = section.get("pids_unreadable")
    if isinstance(unreadable, int) and unreadable > 0 and not section.get("is_root"):
        errors.append(("processes", f"{unreadable} processes' open files unreadable (not root):"
                       " GPU holders and socket owners may be missing"))
    listening.sort(key=lambda p: (p.port, p.address))
    return Processes(gpu=gpu, listening=listening)
