# train.py: a small single-GPU fine-tuning step (torchrun, 1 process)
import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
m = torch.nn.Linear(1024, 1024).cuda()
opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
for step in range(5):
    loss = m(torch.randn(64, 1024, device="cuda")).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
