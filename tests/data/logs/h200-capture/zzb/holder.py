# holder.py GIB SECONDS (Z153): another job's process that holds GIB GiB of GPU memory
import sys, time, torch
g, s = float(sys.argv[1]), int(sys.argv[2])
x = torch.empty(int(g * (1 << 30)), dtype=torch.uint8, device="cuda:0")
print(f"[holder] holding {g:.0f} GiB on cuda:0; free now {torch.cuda.mem_get_info()[0] / 2**30:.2f} GiB", flush=True)
time.sleep(s)
