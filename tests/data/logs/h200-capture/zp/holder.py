# another team's job lands on the GPU and takes what is free (leaves RESERVE MiB), holds until STOPFILE or LIMIT s
import os, sys, time, torch
reserve_mib, stopfile, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
free, total = torch.cuda.mem_get_info()
blocks, got = [], 0
step = 1 << 30
while True:
    free, _ = torch.cuda.mem_get_info()
    if free - step < reserve_mib * 2**20:
        if step == 64 << 20:
            break
        step = 64 << 20
        continue
    blocks.append(torch.empty(step, dtype=torch.uint8, device="cuda")); got += step
free, _ = torch.cuda.mem_get_info()
print(f"[batch-job pid {os.getpid()}] started on cuda:0, holding {got / 2**30:.1f} GiB (free now {free / 2**20:.0f} MiB)", flush=True)
open(stopfile + ".ready", "w").close()
t0 = time.time()
while time.time() - t0 < limit and not os.path.exists(stopfile):
    time.sleep(0.5)
print(f"[batch-job pid {os.getpid()}] finished", flush=True)
