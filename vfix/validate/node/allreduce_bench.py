#!/usr/bin/env python3
"""torch.distributed all-reduce benchmark with a correctness check, reported like nccl-tests.

Runs on a node under torchrun (RANK/WORLD_SIZE/LOCAL_RANK from the environment) or alone
(world size 1). Time per size is averaged over ranks, then algbw = bytes / time and
busbw = algbw * 2(n-1)/n, exactly as nccl-tests' all_reduce_perf computes them. torch's
all_reduce is in-place, so compare with nccl-tests' in-place columns.

Local rank 0 of every node writes the same JSON document (--output), so each node holds the
fleet's result, and global rank 0 prints a nccl-tests-style table.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from typing import Any

try:
    import torch
    import torch.distributed as dist
except ImportError as error:  # the node has no torch: say so in one line
    print(f"vfix-allreduce: torch is not importable here: {error}", file=sys.stderr)
    sys.exit(3)

SCHEMA_VERSION = 1
# Values 0..6 scaled by (rank+1): every partial sum stays a small integer, exact in float32.
PATTERN_MODULUS = 7
RANK_INFO_BYTES = 512


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["auto", "nccl", "gloo"], default="auto")
    parser.add_argument("--min-bytes", type=int, default=1 << 20)
    parser.add_argument("--max-bytes", type=int, default=1 << 28)
    parser.add_argument("--factor", type=int, default=2)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--output", help="JSON result file (local rank 0 writes it)")
    parser.add_argument("--timeout-s", type=int, default=300, help="process-group timeout")
    args = parser.parse_args(argv)
    if args.min_bytes < 4 or args.max_bytes < args.min_bytes or args.factor < 2:
        parser.error("need 4 <= --min-bytes <= --max-bytes and --factor >= 2")
    return args


def sizes(min_bytes: int, max_bytes: int, factor: int) -> list[int]:
    out = []
    size = min_bytes
    while size <= max_bytes:
        out.append(size - size % 4)
        size *= factor
    return out


def init_process_group(backend: str, timeout_s: int) -> tuple[str, torch.device]:
    import datetime

    if "RANK" not in os.environ:  # launched alone: a world of one on this host
        os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(probe.getsockname()[1])
    if backend == "auto":
        backend = "nccl" if torch.cuda.is_available() else "gloo"
    if backend == "nccl":
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cpu")
    dist.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=timeout_s))
    return backend, device


def fill(tensor: torch.Tensor, rank: int) -> None:
    count = tensor.numel()
    values = torch.arange(count, device=tensor.device, dtype=torch.int64) % PATTERN_MODULUS
    tensor.copy_(values.to(tensor.dtype) * (rank + 1))


def count_wrong(tensor: torch.Tensor, world_size: int) -> int:
    expected = torch.empty_like(tensor)
    fill(expected, 0)
    expected *= world_size * (world_size + 1) // 2
    return int((tensor != expected).sum().item())


def timed_allreduce(tensor: torch.Tensor, iters: int, warmup: int, on_gpu: bool) -> float:
    """Seconds per all-reduce on this rank."""
    for _ in range(warmup):
        dist.all_reduce(tensor)
    if on_gpu:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        start.record()
        for _ in range(iters):
            dist.all_reduce(tensor)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1000.0 / iters
    dist.barrier()
    began = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(tensor)
    return (time.perf_counter() - began) / iters


def average_over_ranks(value: float, device: torch.device) -> float:
    holder = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(holder)
    return float(holder.item()) / dist.get_world_size()


def bus_factor(world_size: int) -> float:
    return 2.0 * (world_size - 1) / world_size


def describe_ranks(device: torch.device) -> list[dict[str, object]]:
    """Every rank's host, pid and device. Sent as fixed-size byte tensors rather than with
    all_gather_object, which needs numpy (absent from minimal CPU nodes)."""
    mine = json.dumps({
        "rank": dist.get_rank(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
    }).encode()[:RANK_INFO_BYTES].ljust(RANK_INFO_BYTES)
    mine_tensor = torch.tensor(list(mine), dtype=torch.uint8, device=device)
    everyone = [torch.empty_like(mine_tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(everyone, mine_tensor)
    return [json.loads(bytes(t.cpu().tolist()).decode().strip()) for t in everyone]


def nccl_version() -> str | None:
    try:
        return ".".join(str(part) for part in torch.cuda.nccl.version())
    except Exception:  # CPU-only torch builds have no NCCL
        return None


def run(args: argparse.Namespace) -> dict[str, object]:
    backend, device = init_process_group(args.backend, args.timeout_s)
    rank, world_size = dist.get_rank(), dist.get_world_size()
    on_gpu = device.type == "cuda"
    results: list[dict[str, Any]] = []
    for size in sizes(args.min_bytes, args.max_bytes, args.factor):
        tensor = torch.empty(size // 4, dtype=torch.float32, device=device)
        fill(tensor, rank)
        seconds = average_over_ranks(timed_allreduce(tensor, args.iters, args.warmup, on_gpu),
                                     device)
        fill(tensor, rank)
        dist.all_reduce(tensor)
        wrong = int(average_over_ranks(float(count_wrong(tensor, world_size)), device)
                    * world_size)
        algbw = size / seconds / 1e9
        results.append({
            "size": size, "count": size // 4, "type": "float", "redop": "sum",
            "time_us": round(seconds * 1e6, 3), "algbw": round(algbw, 4),
            "busbw": round(algbw * bus_factor(world_size), 4), "nwrong": wrong,
        })
        del tensor
    ranks = describe_ranks(device)
    dist.barrier()
    dist.destroy_process_group()
    return {
        "tool": "vfix-allreduce", "schema": SCHEMA_VERSION, "backend": backend,
        "world_size": world_size, "nnodes": len({r["host"] for r in ranks}),
        "ranks": ranks, "torch": torch.__version__, "nccl": nccl_version() if on_gpu else None,
        "iters": args.iters, "warmup": args.warmup, "in_place": True, "results": results,
        "wrong_total": sum(r["nwrong"] for r in results),
    }


def print_table(doc: dict[str, object]) -> None:
    print(f"# vfix-allreduce backend {doc['backend']} world_size {doc['world_size']}"
          f" nnodes {doc['nnodes']} torch {doc['torch']} nccl {doc['nccl']}")
    print("#       size         count      type   redop     time   algbw   busbw  #wrong")
    print("#        (B)    (elements)                       (us)  (GB/s)  (GB/s)")
    for row in doc["results"]:  # type: ignore[attr-defined]
        print(f"{row['size']:12d}  {row['count']:12d}  {row['type']:>8}  {row['redop']:>6}"
              f"  {row['time_us']:8.2f}  {row['algbw']:6.2f}  {row['busbw']:6.2f}"
              f"  {row['nwrong']:6d}")
    status = "OK" if not doc["wrong_total"] else "FAILED"
    print(f"# Out of bounds values : {doc['wrong_total']} {status}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    doc = run(args)
    if int(os.environ.get("RANK", "0")) == 0:
        print_table(doc)
    if int(os.environ.get("LOCAL_RANK", "0")) == 0 and args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
                json.dump(doc, handle, indent=1)
    return 0 if not doc["wrong_total"] else 1


if __name__ == "__main__":
    sys.exit(main())
