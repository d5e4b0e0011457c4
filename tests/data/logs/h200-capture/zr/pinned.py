# pin a host staging buffer for fast H2D copies of a 6 GiB shard
import torch, os
print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0), flush=True)
chunks = []
for i in range(12):
    chunks.append(torch.empty(512 << 20, dtype=torch.uint8, pin_memory=True)); chunks[-1].fill_(1)
    print(f"pinned staging chunk {i}: {(i+1)*512} MiB pinned", flush=True)
x = torch.cat([c.cuda(non_blocking=True) for c in chunks]); torch.cuda.synchronize()
print("copied", x.numel() >> 20, "MiB to", x.device)
