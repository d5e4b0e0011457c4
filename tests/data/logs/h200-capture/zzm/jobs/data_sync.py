#!/usr/bin/env python3
# data_sync.py UPSTREAM LOCAL [INTERVAL]: the training pod's data-sync sidecar. Keeps LOCAL (node-local copy of the
# tokenised dataset) in step with UPSTREAM: every INTERVAL s, each shard whose size or mtime differs is copied over the
# local file in place (like rsync --inplace: no temporary file, the file keeps its inode, then it is truncated to the
# new size). Stops when the process that started it (the trainer) is gone.
import os, shutil, sys, time

up, local = sys.argv[1], sys.argv[2]
interval = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
parent = os.getppid()


def say(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [data-sync] {msg}", flush=True)


say(f"watching {up} -> {local} every {interval:.0f}s (in place)")
while os.getppid() == parent:
    for name in sorted(os.listdir(up)):
        src, dst = os.path.join(up, name), os.path.join(local, name)
        s = os.stat(src)
        try:
            d = os.stat(dst)
            if d.st_size == s.st_size and int(d.st_mtime) == int(s.st_mtime):
                continue
            old = d.st_size
        except FileNotFoundError:
            old = 0
        with open(src, "rb") as fi, open(dst, "r+b" if old else "wb") as fo:
            shutil.copyfileobj(fi, fo, 1 << 20)
            fo.truncate(s.st_size)
        os.utime(dst, (s.st_atime, s.st_mtime))
        say(f"updated {name}: {old / 2**20:.1f} MiB -> {s.st_size / 2**20:.1f} MiB")
    time.sleep(interval)
say("trainer exited, stopping")
