"""`python3 -m tests.harness build | up N | down | status` — test nodes outside pytest.

For molecule scenarios and benchmarks. `up` leaves the nodes running after it exits (they
hold the slot's lock themselves) and records them under a name; `down` stops them.

    python3 -m tests.harness build
    python3 -m tests.harness up 4 [--netns] [--user ansible] [--inventory FILE] [--name NAME]
    python3 -m tests.harness down [--name NAME]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.harness.rootfs import ensure_rootfs
from tests.harness.slots import STATE_DIR, clean_slot

RECORDS = STATE_DIR / "cli"


def _record(name: str) -> Path:
    return RECORDS / f"{name}.json"


def up(count: int, netns: bool, user: str, inventory: Path | None, name: str) -> int:
    from tests.harness.nodes import Cluster

    if _record(name).exists():
        down(name)  # replace a previous set with the same name
    cluster = Cluster.create(die_with_parent=False)
    nodes = cluster.start(count, netns=netns)
    target = inventory or cluster.dir / "inventory.yml"
    nodes.write_inventory(target.resolve(), user=user)
    RECORDS.mkdir(parents=True, exist_ok=True)
    _record(name).write_text(json.dumps({
        "slot": cluster.slot.index, "inventory": str(target.resolve()),
        "nodes": [{"name": n.name, "address": n.address, "port": n.port} for n in nodes]}))
    print(target.resolve())
    return 0


def down(name: str) -> int:
    record = _record(name)
    if not record.exists():
        print(f"no test nodes named {name!r} are up", file=sys.stderr)
        return 0
    clean_slot(json.loads(record.read_text())["slot"])
    record.unlink()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tests.harness", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="build (or reuse) the cached node rootfs")
    start = commands.add_parser("up", help="start N nodes and write an inventory")
    start.add_argument("count", type=int)
    start.add_argument("--netns", action="store_true", help="one network namespace per node")
    start.add_argument("--user", default="root", choices=["root", "ansible"])
    start.add_argument("--inventory", type=Path, help="where to write the inventory")
    start.add_argument("--name", default="default")
    stop = commands.add_parser("down", help="stop the nodes started by `up`")
    stop.add_argument("--name", default="default")
    args = parser.parse_args(argv)
    if args.command == "build":
        print(ensure_rootfs())
        return 0
    if args.command == "up":
        if not 1 <= args.count <= 250:
            parser.error("count must be between 1 and 250")
        return up(args.count, args.netns, args.user, args.inventory, args.name)
    return down(args.name)


if __name__ == "__main__":
    sys.exit(main())
