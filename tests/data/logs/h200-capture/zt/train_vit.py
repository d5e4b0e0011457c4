# train_vit.py: a small DDP fine-tuning job (torchrun) whose data pipeline uses torchvision transforms.
import os
import torch
import torch.distributed as dist
from torchvision import transforms

def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    aug = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip()])
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3 * 224 * 224, 10).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(5):
        x = torch.stack([aug(torch.rand(3, 256, 256)) for _ in range(8)]).cuda().flatten(1)
        loss = model(x).logsumexp(-1).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
