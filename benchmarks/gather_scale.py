"""vfix gather vs plain `ansible all -m ansible.builtin.setup` on 4, 8, 16, 32 real SSH nodes.

    sudo python3 benchmarks/gather_scale.py [--sizes 4,8,16,32] [--forks 32] [--repeat 1]

Both run on the same test nodes (tests/harness), with the same ansible.cfg and forks, from cold
SSH connections (a fresh ControlPersist directory per invocation), alternating so background
load hits both alike. Prints each wall time and the ratio gather / setup; lower is better,
the target at 32 nodes is <= 1.0. vfix gather is timed end to end as the CLI (startup, probe,
facts parsing, run directory written).

This machine is shared and has 2 cores, so wall times move with other load. Where cgroup v1
`cpuacct` exists, the CPU seconds each tool costs (controller processes incl. ssh, plus every
process on the nodes) are measured too: a ratio that other load hardly moves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from tests.harness import seeds  # noqa: E402
from tests.harness.nodes import Cluster, NodeSet  # noqa: E402


def write_inventory(nodes: NodeSet, count: int, directory: Path, label: str) -> Path:
    document = nodes.inventory(user="root")
    hosts = document["all"]["hosts"]
    document["all"]["hosts"] = {name: hosts[name] for name in list(hosts)[:count]}
    control = directory / f"cp-{label}"
    control.mkdir()
    document["all"]["vars"]["ansible_control_path_dir"] = str(control)  # cold connections
    path = directory / f"{label}.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


class CpuMeter:
    """CPU seconds used by a group of processes and all they fork (cgroup v1 cpuacct)."""

    ROOT = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self, name: str) -> None:
        self.path = self.ROOT / f"vfix-bench-{os.getpid()}-{name}"
        self.path.mkdir()

    @classmethod
    def available(cls) -> bool:
        return (cls.ROOT / "cpuacct.usage").is_file() and os.access(cls.ROOT, os.W_OK)

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def seconds(self) -> float:
        return int((self.path / "cpuacct.usage").read_text()) / 1e9

    def close(self) -> None:
        for _ in range(50):  # ssh masters linger a moment after their nodes die
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.2)


def timed(command: list[str], env: dict[str, str], meters: tuple[CpuMeter, CpuMeter] | None
          ) -> tuple[float, float | None]:
    """Wall seconds and (when metered) CPU seconds of controller + nodes for one command."""
    before = sum(m.seconds() for m in meters) if meters else 0.0
    controller = meters[0] if meters else None
    started = time.monotonic()
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                            preexec_fn=(lambda: controller.add(os.getpid())) if controller
                            else None)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}... failed ({result.returncode}):\n"
                         f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
    cpu = sum(m.seconds() for m in meters) - before if meters else None
    return elapsed, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,8,16,32")
    parser.add_argument("--forks", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    env = {**os.environ, "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    meters = (CpuMeter("controller"), CpuMeter("nodes")) if CpuMeter.available() else None
    cluster = Cluster.create()
    try:
        nodes = cluster.start(max(sizes), seed=seeds.nvidia_smi_double())
        if meters:
            for node in nodes:
                for pid in (node.pid, node.init_pid()):
                    if pid:
                        meters[1].add(pid)
        print(f"{max(sizes)} nodes up; forks={args.forks}; cpus={os.cpu_count()}; "
              f"load={os.getloadavg()[0]:.1f}; median of {args.repeat}")
        print(f"{'nodes':>5} {'setup s':>8} {'gather s':>9} {'ratio':>6}"
              + (f" {'setup cpu-s':>12} {'gather cpu-s':>13} {'cpu ratio':>9}" if meters else ""))
        with tempfile.TemporaryDirectory(prefix="vfix-bench-") as tmp:
            work = Path(tmp)
            for count in sizes:
                setup, gather = [], []
                for round_ in range(args.repeat):
                    label = f"n{count}-r{round_}"
                    setup_inv = write_inventory(nodes, count, work, f"{label}-setup")
                    gather_inv = write_inventory(nodes, count, work, f"{label}-gather")
                    setup.append(timed(
                        ["ansible", "all", "-i", str(setup_inv), "-f", str(args.forks),
                         "-m", "ansible.builtin.setup"], env, meters))
                    gather.append(timed(
                        [sys.executable, "-m", "vfix", "gather", "-i", str(gather_inv),
                         "--forks", str(args.forks), "--out", str(work / f"run-{label}")],
                        env, meters))
                setup_s = statistics.median(w for w, _ in setup)
                gather_s = statistics.median(w for w, _ in gather)
                line = f"{count:>5} {setup_s:>8.2f} {gather_s:>9.2f} {gather_s / setup_s:>6.2f}"
                if meters:
                    setup_cpu = statistics.median(c or 0.0 for _, c in setup)
                    gather_cpu = statistics.median(c or 0.0 for _, c in gather)
                    ratio = gather_cpu / setup_cpu
                    line += f" {setup_cpu:>12.2f} {gather_cpu:>13.2f} {ratio:>9.2f}"
                print(line, flush=True)
    finally:
        cluster.close()
        for meter in meters or ():
            meter.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
