"""Start a real CUDA process holding GPU memory, either orphaned or under a live parent.

`python3 cuda_holder.py orphan MIB`: the launcher forks a worker that allocates MIB of GPU
memory, waits until it has, prints the worker pid and exits, so the worker is re-parented.
`python3 cuda_holder.py live MIB`: the same, but the launcher stays alive as the parent.
"""

import os
import sys
import time

mode, mib = sys.argv[1], int(sys.argv[2])
ready_read, ready_write = os.pipe()
child = os.fork()
if child == 0:
    os.close(ready_read)
    os.setsid()
    import torch

    block = torch.ones(mib * 2**20, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    os.write(ready_write, f"{os.getpid()}".encode())
    os.close(ready_write)
    while True:
        time.sleep(60)
os.close(ready_write)
worker = os.read(ready_read, 64).decode()
print(f"{mode}: worker pid {worker} holds {mib} MiB on cuda:0; launcher pid {os.getpid()}",
      flush=True)
if mode == "live":
    os.waitpid(child, 0)
