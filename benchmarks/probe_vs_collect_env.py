"""The node probe's wall time vs `python3 -m torch.utils.collect_env`, in one invocation.

    python3 benchmarks/probe_vs_collect_env.py [--reps 5] [--python python3] [--out DIR]

Runs each tool once to warm caches (not counted), then alternates them `--reps` times, prints
min/median wall seconds and the ratio collect_env / probe, and lists side by side the GPU,
driver, CUDA and NCCL fields each one reports. With --out, saves the last probe document
(probe.json) and collect_env's text (collect_env.txt). Needs torch for the baseline.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PROBE = REPO / "vfix" / "probe" / "vfix_probe.py"


def timed(argv: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return elapsed, proc.stdout


def collect_env_fields(text: str) -> dict[str, str]:
    wanted = ("PyTorch version", "CUDA used to build PyTorch", "CUDA runtime version",
              "Nvidia driver version", "GPU models and configuration", "Is CUDA available",
              "cuDNN version", "Libc version", "OS", "Python version")
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in wanted:
            fields[key.strip()] = value.strip()
    nccl = [line.split("]", 1)[1].strip() for line in text.splitlines()
            if re.match(r"\[(pip3|conda)\].*nccl", line)]
    fields["NCCL"] = "; ".join(nccl) or "(not reported)"
    return fields


def probe_fields(document: dict[str, Any]) -> dict[str, str]:
    sys.path.insert(0, str(REPO))
    from vfix.facts import build_facts  # needs pydantic; the probe itself does not

    facts = build_facts(document)
    v = facts.versions
    gpus = facts.gpus
    python = v.python
    return {
        "torch version": (python.packages.get("torch") if python else None) or "-",
        "torch CUDA (build)": v.torch_cuda or "-",
        "CUDA runtimes": "; ".join(f"{r.version} {r.origin} {r.path}" for r in v.cuda_runtimes),
        "driver (NVML / kernel module)": f"{v.nvml_driver} / {v.kernel_module} "
                                         f"({v.kernel_module_flavor})",
        "CUDA driver version": str(v.cuda_driver),
        "GPUs": "; ".join(f"{g.index}: {g.name} {g.uuid} {g.pci_bus_id} cc {g.compute_capability}"
                          for g in gpus) or "-",
        "GPU memory / persistence / MIG / ECC": "; ".join(
            f"{g.memory_total_mib} MiB, persist {g.persistence_mode}, MIG {g.mig_mode_current}, "
            f"ECC {g.ecc_mode_current} unc {g.ecc_uncorrected_volatile}" for g in gpus) or "-",
        "PCIe / clocks / power / temp": "; ".join(
            f"gen{g.pcie_gen_current}/{g.pcie_gen_max} x{g.pcie_width_current}/"
            f"{g.pcie_width_max}, SM {g.clocks_sm_mhz}/{g.clocks_sm_max_mhz} MHz, "
            f"{g.power_draw_w}/{g.power_limit_w} W, {g.temperature_c} C" for g in gpus) or "-",
        "NVLink": "; ".join(f"{g.index}: {'not supported' if g.nvlinks is None else len(g.nvlinks)}"
                            for g in gpus) or "-",
        "NCCL": "; ".join(f"{n.version} {n.origin} {n.package or ''} {n.path}"
                          + (" <- torch" if n.loaded_by_torch else "") for n in v.nccl) or "-",
        "topology": f"{len(facts.topology.devices)} devices",
        "glibc / OS / Python": f"{v.glibc} / {v.os_pretty} / {python.version if python else '-'}",
        "errors": "; ".join(f"{e.section}: {e.reason}" for e in facts.errors) or "none",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--python", default="python3")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    probe_cmd = [sys.executable, str(PROBE), "--python", args.python]
    baseline_cmd = [args.python, "-m", "torch.utils.collect_env"]
    timed(probe_cmd)
    timed(baseline_cmd)
    probe_times, baseline_times = [], []
    probe_out = baseline_out = ""
    for _ in range(args.reps):
        seconds, probe_out = timed(probe_cmd)
        probe_times.append(seconds)
        seconds, baseline_out = timed(baseline_cmd)
        baseline_times.append(seconds)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "probe.json").write_text(probe_out)
        (args.out / "collect_env.txt").write_text(baseline_out)
    p_med, b_med = statistics.median(probe_times), statistics.median(baseline_times)
    print(f"reps={args.reps} (after one warm-up run each), wall seconds")
    print(f"  vfix probe        min {min(probe_times):.3f}  median {p_med:.3f}  "
          f"all {' '.join(f'{t:.3f}' for t in probe_times)}")
    print(f"  collect_env       min {min(baseline_times):.3f}  median {b_med:.3f}  "
          f"all {' '.join(f'{t:.3f}' for t in baseline_times)}")
    print(f"  ratio collect_env/probe (median): {b_med / p_med:.1f}x")
    print("\ncollect_env reports:")
    for key, value in collect_env_fields(baseline_out).items():
        print(f"  {key:32} {value}")
    print("\nvfix probe reports:")
    try:
        fields = probe_fields(json.loads(probe_out))
    except ImportError as error:
        print(f"  (facts not built here: {error}); raw document saved with --out")
        return 0
    for key, value in fields.items():
        print(f"  {key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
