#!/usr/bin/python3
"""Test double of `nvidia-smi`: replays real captured output, for commands that were captured.

Placed on test nodes as /usr/bin/nvidia-smi (never shipped). Captures live next to it in
CAPTURES; a command line with no capture fails like a tool error (exit 2, one line on stderr),
so the probe records an error instead of reading invented output. If the file DELAY exists, the
double first sleeps that many seconds (to catch a node mid-run).
"""

import os
import sys
import time

CAPTURES = "/usr/share/nvidia-smi-double"
DELAY = "/etc/nvidia-smi-double/delay_s"

# argv (after the program name) -> capture file, exactly as recorded on the real node.
REPLAYS = {
    (): "nvidia-smi.txt",
    ("-q",): "nvidia-smi-q.txt",
    ("-q", "-x"): "nvidia-smi-q.xml",
    ("topo", "-m"): "topo-m.txt",
    ("topo", "-p2p", "rw"): "topo-p2p.txt",
}


def main() -> int:
    if os.path.exists(DELAY):
        with open(DELAY) as handle:
            time.sleep(float(handle.read().strip() or 0))
    capture = REPLAYS.get(tuple(sys.argv[1:]))
    if capture is None or not os.path.exists(os.path.join(CAPTURES, capture)):
        sys.stderr.write(f"nvidia-smi double: no capture for {' '.join(sys.argv[1:])!r}\n")
        return 2
    with open(os.path.join(CAPTURES, capture), "rb") as handle:
        sys.stdout.buffer.write(handle.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
