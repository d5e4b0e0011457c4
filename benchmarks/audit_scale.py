"""Audit 1,000 facts snapshots in one invocation: time and memory of `vfix audit`'s engine.

    python3 benchmarks/audit_scale.py [--hosts 1000] [--gpus 8] [--group-size 8] [--repeat 3]

Snapshots are varied from the real captures in tests/data/facts/ (the H200 node, widened to
`--gpus` GPUs, and the CPU-only CI machine): drivers, torch, /dev/shm, pid_max, nofile, ECC,
clocks, NCCL settings and stale processes differ per host, so every check and the per-group
majority drift have work to do. The baseline is validating the same JSON documents into
`HostFacts` (what any consumer of a run directory pays); the audit is reported against it.
Target on the 2-core CI machine: the 1,000-host audit under 2 s. The reports are timed too:
json, and the table (what a terminal gets) as a ratio to json from the same run.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import resource
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from vfix.audit.engine import audit
from vfix.facts.model import HostFacts
from vfix.formats import Format, render
from vfix.policy import default_policy

T = TypeVar("T")
DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "facts"


def widened(document: dict[str, Any], gpus: int) -> dict[str, Any]:
    """The one-GPU capture as an n-GPU node: GPU i copies GPU 0 with its own index and bus id."""
    template = document["gpus"][0]
    document["gpus"] = [
        {**copy.deepcopy(template), "index": i, "uuid": f"{template['uuid'][:-2]}{i:02d}",
         "pci_bus_id": f"00000000:{0x18 + i:02X}:00.0"}
        for i in range(gpus)
    ]
    return document


def varied(rng: random.Random, base: dict[str, Any], cpu: dict[str, Any], n: int,
           gpus: int, group_size: int) -> dict[str, Any]:
    document = copy.deepcopy(cpu if n % 50 == 49 else base)
    document["host"] = f"node-{n:04d}"
    document["group_names"] = [f"rack-{n // group_size:03d}", "fleet"]
    if not document["gpus"]:
        return document
    widened(document, gpus)
    versions, system, first = document["versions"], document["system"], document["gpus"][0]
    if rng.random() < 0.05:
        versions["nvml_driver"] = versions["kernel_module"] = "580.126.09"
    if rng.random() < 0.03:
        versions["python"]["packages"]["torch"] = "2.10.0+cu130"
    if rng.random() < 0.1:
        system["shm"]["size_bytes"] = 64 * 1024**2
    if rng.random() < 0.5:
        system["sysctl"]["kernel.pid_max"] = "4194304"
    if rng.random() < 0.5:
        system["ulimits"]["nofile_soft"] = 1048576
    if rng.random() < 0.02:
        first["ecc_uncorrected_volatile"] = rng.randint(1, 9)
    if rng.random() < 0.02:
        first["clocks_locked_sm_mhz"] = 500
    if rng.random() < 0.05:
        system["env"]["NCCL_SOCKET_IFNAME"] = rng.choice(["eth0", "ens5"])
    if rng.random() < 0.05:
        document["processes"]["gpu"] = [{
            "pid": 4000 + n, "ppid": 1, "cmdline": "python3 train.py", "parent_alive": False,
            "gpu_memory_mib": {first["uuid"]: 40000},
        }]
    return document


def timed(action: Callable[[], T]) -> tuple[T, float, float]:
    """The value, wall seconds and CPU seconds of this process (CPU time is what a shared,
    loaded machine distorts least)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = action()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    base = json.loads((DATA / "h200-1gpu.json").read_text())
    cpu = json.loads((DATA / "cpu-only.json").read_text())
    texts = [json.dumps(varied(rng, base, cpu, n, args.gpus, args.group_size))
             for n in range(args.hosts)]
    policy = default_policy()
    audit([HostFacts.model_validate_json(texts[0])], policy)  # warm imports and caches

    # Timings: best of --repeat rounds (the CI machine is shared; the minimum is the signal).
    parse_s = audit_s = json_s = table_s = parse_cpu = audit_cpu = float("inf")
    for _ in range(args.repeat):
        fleet, seconds, cpu_s = timed(lambda: [HostFacts.model_validate_json(t) for t in texts])
        parse_s, parse_cpu = min(parse_s, seconds), min(parse_cpu, cpu_s)
        result, seconds, cpu_s = timed(lambda: audit(fleet, policy))  # noqa: B023 - used at once
        audit_s, audit_cpu = min(audit_s, seconds), min(audit_cpu, cpu_s)
        report, seconds, _ = timed(lambda: render(result, Format.JSON))  # noqa: B023
        json_s = min(json_s, seconds)
        table, seconds, _ = timed(lambda: render(result, Format.TABLE))  # noqa: B023
        table_s = min(table_s, seconds)
    # Memory: a separate traced round (tracing slows Python down several-fold).
    tracemalloc.start()
    audit(fleet, policy)
    _, audit_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    counts = Counter(v.value for v in result.verdicts.values())
    print(f"hosts: {args.hosts} ({args.gpus} GPUs each, groups of {args.group_size} + 'fleet'); "
          f"best of {args.repeat}")
    print(f"findings: {len(result.findings)}; verdicts: {dict(sorted(counts.items()))}")
    print(f"baseline  parse facts JSON -> HostFacts: {parse_s:.3f} s wall, {parse_cpu:.3f} s CPU")
    print(f"audit     checks + drift + verdicts:     {audit_s:.3f} s wall, {audit_cpu:.3f} s CPU "
          f"({audit_cpu / parse_cpu:.2f}x baseline CPU, {audit_s / args.hosts * 1e3:.2f} ms/host)")
    print(f"report    json ({len(report) / 1e6:.1f} MB):               {json_s:.3f} s "
          f"({json_s / parse_s:.2f}x baseline)")
    print(f"report    table ({len(table.splitlines())} lines):            {table_s:.3f} s "
          f"({table_s / json_s:.2f}x json)")
    print(f"memory    audit traced peak: {audit_peak / 1e6:.1f} MB; process max RSS: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f} MB")
    target = 2.0
    print(f"target    audit < {target:.0f} s: wall {'met' if audit_s < target else 'MISSED'}, "
          f"CPU {'met' if audit_cpu < target else 'MISSED'} "
          f"(load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
