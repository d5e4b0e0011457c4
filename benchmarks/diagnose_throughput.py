"""Throughput of `vfix diagnose` (MB/s of log), against baselines run in the same invocation.

    python3 benchmarks/diagnose_throughput.py [--mb 256]

Two logs, built in memory from real captures (only the dev/ and fresh/ splits of
tests/data/logs: held-out and unseen logs stay unread):
- serving: the real healthy vLLM 0.26 start-up and the NCCL_DEBUG=INFO capture of the H200
  node, then the real request and metrics lines of the corpus repeated (what a long-running
  server log is made of), then a real NCCL load failure with core dump at the very end;
- dense: the dev and fresh failure logs repeated (every few lines a traceback or a WARN), as
  ranks and retries repeat the same lines: most lines must be looked at, each distinct one once;
- stamped: the same with a date and time before every line, each a microsecond later, as
  real logs stamp them (every line distinct, but only by its time);
- numbered: the same with a counter before every line instead (as `cat -n` or a pid would make
  them distinct): the worst case, every hit line judged afresh.
Baselines: `for line in stream` (Python's own line loop, doing nothing), and one regex made of
all signature keywords run on every line (the naive design; at ~0.2 MB/s it is timed on the
first NAIVE_BYTES of each log only).
diagnose searches the next chunks for keywords in a second thread, so wall-clock MB/s (what an
operator waits for) is the headline; CPU-time MB/s, in brackets, adds up both threads and moves
less when the 2-core machine is shared. Ratios compare wall-clock rates.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from vfix.diagnose import diagnose_stream
from vfix.diagnose.engine import _plan

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "logs"
SPLITS = ("dev", "fresh")
NCCL_DEBUG = Path("/work/shared/fixtures/h200-1gpu/all_reduce_g1_debug.txt")
REQUEST_MARKERS = (b'"POST /v1/', b'"GET /', b"Avg prompt throughput")
NAIVE_BYTES = 2_000_000


def serving_log(size: int) -> bytes:
    healthy = (LOGS / "dev" / "h200-vllm026-serve-ok.log").read_bytes()
    nccl = NCCL_DEBUG.read_bytes() if NCCL_DEBUG.exists() else b""
    failure = (LOGS / "dev" / "vllm-9494-nccl-load-core-dump.log").read_bytes()
    real_lines = b"\n".join(path.read_bytes() for path in corpus_logs())
    requests = b"".join(line + b"\n" for line in real_lines.splitlines()
                        if any(marker in line for marker in REQUEST_MARKERS))
    body = size - len(healthy) - len(nccl) - len(failure)
    return healthy + nccl + requests * max(1, body // len(requests)) + failure


def corpus_logs() -> list[Path]:
    return [path for split in SPLITS for path in sorted((LOGS / split).glob("*.log"))]


def dense_log(size: int) -> bytes:
    corpus = b"".join(path.read_bytes() for path in corpus_logs())
    return corpus * max(1, size // len(corpus))


def stamped(data: bytes) -> bytes:
    return b"".join(b"2026-12-05 16:%02d:%02d.%06d " % (number // 60_000_000 % 60,
                                                       number // 1_000_000 % 60, number % 1_000_000)
                    + line for number, line in enumerate(data.splitlines(keepends=True)))


def numbered(data: bytes) -> bytes:
    return b"".join(b"%d " % number + line
                    for number, line in enumerate(data.splitlines(keepends=True)))


def line_loop(data: bytes) -> None:
    for _ in io.BytesIO(data):
        pass


def naive_regex(data: bytes) -> None:
    keywords = sorted({p.keyword for s in _plan().signatures for p in s.match})
    pattern = re.compile("|".join(re.escape(k) for k in keywords).encode())
    for line in io.BytesIO(data):
        pattern.search(line)


def diagnose(data: bytes) -> None:
    diagnose_stream(io.BytesIO(data), name="bench")


def rate(run: Callable[[bytes], None], data: bytes,
         limit: int | None = None) -> tuple[float, float]:
    """MB/s of wall-clock time and of CPU time (all threads) on data[:limit] (whole lines)."""
    if limit is not None and limit < len(data):
        data = data[: data.rfind(b"\n", 0, limit) + 1 or limit]
    cpu, wall = time.process_time(), time.perf_counter()
    run(data)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return len(data) / wall / 1e6, len(data) / cpu / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=256, help="size of the serving log (MB)")
    args = parser.parse_args(argv)
    _plan()  # load and compile the signatures outside the timing
    dense = dense_log(args.mb * 1_000_000 // 8)
    logs = {"serving": serving_log(args.mb * 1_000_000), "dense": dense,
            "stamped": stamped(dense[: len(dense) // 8]),
            "numbered": numbered(dense[: len(dense) // 8])}
    print("MB/s of wall-clock time (of CPU time, all threads, in brackets)")
    print(f"{'log':<8} {'MB':>5} {'diagnose':>16} {'line loop':>16} {'naive regex':>16} "
          f"{'vs loop':>8} {'vs naive':>9}")
    for name, data in logs.items():
        ours, loop = rate(diagnose, data), rate(line_loop, data)
        naive = rate(naive_regex, data, NAIVE_BYTES)
        cells = " ".join(f"{wall:>7.1f} [{cpu:>6.1f}]" for wall, cpu in (ours, loop, naive))
        print(f"{name:<8} {len(data) / 1e6:>5.0f} {cells} "
              f"{ours[0] / loop[0]:>7.2f}x {ours[0] / naive[0]:>8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
