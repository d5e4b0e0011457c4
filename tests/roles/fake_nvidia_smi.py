#!/usr/bin/env python3
"""A test double for `nvidia-smi`, for nodes without a GPU.

It answers the few invocations the GPU roles make, from a JSON state file beside it
(`<this file>.json`), applies the settings the roles make to that state, and records every call
under "calls" so tests can assert what a role ran. Real behaviour is covered on the GPU machine.
"""

import json
import sys
from pathlib import Path

STATE = Path(__file__).with_name(Path(__file__).name + ".json")

FIELDS = {
    "index": lambda g: str(g["index"]),
    "uuid": lambda g: g.get("uuid", f"GPU-fake-{g['index']}"),
    "pci.bus_id": lambda g: g["bus_id"],
    "persistence_mode": lambda g: "Enabled" if g["persistence"] else "Disabled",
    "clocks.sm": lambda g: str(g["sm"]),
    "clocks.max.sm": lambda g: str(g["max_sm"]),
    "clocks_event_reasons.applications_clocks_setting":
        lambda g: "Active" if g.get("locked_at") else "Not Active",
}


def main(argv: list[str]) -> int:
    state = json.loads(STATE.read_text())
    state.setdefault("calls", []).append(argv)
    rc = run(state, argv)
    STATE.write_text(json.dumps(state, indent=1))
    return rc


def selected(state: dict, argv: list[str]) -> list[dict]:
    if "-i" in argv:
        wanted = int(argv[argv.index("-i") + 1])
        return [g for g in state["gpus"] if g["index"] == wanted]
    return state["gpus"]


def run(state: dict, argv: list[str]) -> int:
    query = next((a for a in argv if a.startswith("--query-gpu=")), None)
    if query:
        for gpu in selected(state, argv):
            print(", ".join(FIELDS[f](gpu) for f in query.split("=", 1)[1].split(",")))
        return 0
    if argv[:2] == ["-pm", "1"]:
        for gpu in state["gpus"]:
            gpu["persistence"] = True
            print(f"Enabled persistence mode for GPU {gpu['bus_id']}.")
        return 0
    lock = next((a for a in argv if a.startswith("--lock-gpu-clocks=")), None)
    if lock:
        if state.get("refuse_lock"):
            print("Setting locked GPU clocks is not supported for GPU in current configuration.")
            return 3
        low, _high = (int(v) for v in lock.split("=", 1)[1].split(","))
        for gpu in selected(state, argv):
            gpu["locked_at"] = gpu["sm"] = low
        return 0
    if "--reset-gpu-clocks" in argv:
        for gpu in selected(state, argv):
            gpu["locked_at"] = None
            gpu["sm"] = gpu["idle_sm"]
        return 0
    print(f"fake_nvidia_smi: unsupported arguments {argv}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
