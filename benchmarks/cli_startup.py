"""`vfix` start-up: lazy sub-command imports vs importing every command module first.

    python3 benchmarks/cli_startup.py [--reps 7]

For `vfix --help`, `vfix probe --help` and `vfix diagnose --help`, runs the real entry point
(vfix.cli.main) in a fresh interpreter two ways, alternating, after one warm-up run of each:
"lazy" as shipped, and "eager" after importing every module in COMMANDS first (what the CLI
did before it loaded commands on demand). Prints min/median wall seconds, the ratio
eager / lazy of the medians, and which heavy modules each way left loaded.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from vfix.cli import COMMANDS

CASES = (["--help"], ["probe", "--help"], ["diagnose", "--help"])
HEAVY = ("ahocorasick_rs", "ansible_runner", "pydantic", "vfix.commands.diagnose")
MODULES = sorted({entry.module for entry in COMMANDS.values()})

RUN = """
import sys
{imports}
from vfix.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(",".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


def program(eager: bool) -> str:
    imports = "\n".join(f"import {module}" for module in MODULES) if eager else ""
    return RUN.format(imports=imports, heavy=HEAVY)


def timed(code: str, args: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=False, timeout=120)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or not proc.stdout:
        sys.exit(f"vfix {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return elapsed, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    reps = parser.parse_args().reps
    lazy, eager = program(eager=False), program(eager=True)
    print(f"{'command':<22} {'lazy min/med s':>15} {'eager min/med s':>16} {'eager/lazy':>10}")
    for args in CASES:
        timed(lazy, args), timed(eager, args)  # warm the file cache, not counted
        lazy_times, eager_times = [], []
        for _ in range(reps):
            seconds, lazy_loaded = timed(lazy, args)
            lazy_times.append(seconds)
            seconds, eager_loaded = timed(eager, args)
            eager_times.append(seconds)
        lazy_med, eager_med = statistics.median(lazy_times), statistics.median(eager_times)
        print(f"vfix {' '.join(args):<17} {min(lazy_times):6.3f}/{lazy_med:6.3f}  "
              f"{min(eager_times):7.3f}/{eager_med:6.3f}  {eager_med / lazy_med:9.2f}x")
        print(f"    loaded  lazy: {lazy_loaded or '-'}   eager: {eager_loaded or '-'}")


if __name__ == "__main__":
    main()
