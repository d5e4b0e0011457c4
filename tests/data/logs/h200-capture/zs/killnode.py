# killnode.py N: SIGKILL every process in node N's network namespace except the namespace holder (the node "crashes")
import os, signal, sys, time
n = sys.argv[1]
# the harness writes the pid of the process holding node N's network namespace
p1 = int(open(f"/tmp/z87/p1.{n}").read())
target = os.readlink(f"/proc/{p1}/ns/net")
if target == os.readlink("/proc/1/ns/net"): sys.exit("node netns is the host netns: refusing")
killed = []
for p in os.listdir("/proc"):
    if not p.isdigit(): continue
    try:
        if os.readlink(f"/proc/{p}/ns/net") == target and open(f"/proc/{p}/comm").read().strip() != "sleep":
            os.kill(int(p), signal.SIGKILL); killed.append(p)
    except OSError: pass
print(f"node {n}: SIGKILL {len(killed)} processes", flush=True)
