# killagent.py HOLDER_PID: SIGKILL the torchrun agent (python .../torchrun) running in HOLDER_PID's network namespace
import os, signal, sys
ns = os.readlink(f"/proc/{sys.argv[1]}/ns/net")
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        if os.readlink(f"/proc/{d}/ns/net") != ns:
            continue
        argv = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
    except OSError:
        continue
    if (len(argv) > 1 and os.path.basename(argv[0]).startswith(b"python") and argv[1].endswith(b"torchrun")) or argv[0].endswith(b"/torchrun"):
        os.kill(int(d), signal.SIGKILL)
        print(f"   killagent: SIGKILL torchrun agent pid {d}: {b' '.join(argv[:6]).decode()}")
