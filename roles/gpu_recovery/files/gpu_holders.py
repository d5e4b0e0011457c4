#!/usr/bin/env python3
"""Print, as JSON, every process holding an NVIDIA device file open: [{pid, name, device}].

Read-only. Stdlib only, Python >= 3.6, so it runs on any managed node.
"""
import json
import os


def holders():
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fd_dir = os.path.join("/proc", pid, "fd")
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # vanished, or not ours to read
            continue
        for fd in fds:
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target.startswith("/dev/nvidia") and pid not in found:
                found[pid] = target
    result = []
    for pid, device in sorted(found.items(), key=lambda item: int(item[0])):
        try:
            with open(os.path.join("/proc", pid, "comm")) as comm:
                name = comm.read().strip()
        except OSError:
            name = "?"
        result.append({"pid": int(pid), "name": name, "device": device})
    return result


print(json.dumps(holders()))
