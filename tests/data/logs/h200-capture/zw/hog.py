# hog.py GO_FILE STOP_FILE: a colocated trainer step (RLHF-style) that keeps its activations/optimizer state cached
import os, sys, time, torch
go, stop = sys.argv[1], sys.argv[2]
torch.cuda.init(); x = torch.ones(1, device="cuda")
print(f"[trainer] pid {os.getpid()} CUDA ready on {torch.cuda.get_device_name(0)}; waiting for the rollout engine to sleep", flush=True)
open(go + ".ready", "w").close()
t = time.time()
while not os.path.exists(go) and time.time() - t < 300:
    time.sleep(0.1)
held = []
free, total = torch.cuda.mem_get_info()
print(f"[trainer] training step: free {free/2**30:.1f} GiB of {total/2**30:.1f} GiB", flush=True)
while True:
    free, _ = torch.cuda.mem_get_info()
    if free < 2.5 * 2**30:
        break
    held.append(torch.empty(2**30, dtype=torch.uint8, device="cuda"))
print(f"[trainer] step done; allocator keeps {torch.cuda.memory_reserved()/2**30:.1f} GiB reserved (no empty_cache); free now {torch.cuda.mem_get_info()[0]/2**30:.1f} GiB", flush=True)
open(go + ".held", "w").close()
t = time.time()
while not os.path.exists(stop) and time.time() - t < 240:
    time.sleep(0.5)
print("[trainer] exiting", flush=True)
