# spawn_train.py: single-node data-parallel training, one process per GPU started with
# torch.multiprocessing.spawn; sizes come from a YAML run config.
import datetime, os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp
import yaml


def worker(rank, cfg):
    world = cfg["world_size"]
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{cfg['port']}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=cfg.get("timeout_s", 120)))
    print(f"[rank {rank}/{world}] process group up on cuda:{rank}", flush=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(cfg["dim"], 4 * cfg["dim"]), torch.nn.GELU(), torch.nn.Linear(4 * cfg["dim"], cfg["dim"])).cuda(),
        device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    for step in range(cfg["steps"]):
        x = torch.randn(cfg["batch_size"], cfg["dim"], device="cuda")
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    cfg_path = sys.argv[1]
    with open(cfg_path) as f:
        cfg = yaml.safe_load(f)
    print(f"{time.strftime('%H:%M:%S')} run config {cfg_path}: {cfg}", flush=True)
    print(f"{time.strftime('%H:%M:%S')} launching {cfg['world_size']} worker processes", flush=True)
    mp.spawn(worker, args=(cfg,), nprocs=cfg["world_size"], join=True)
    print("training finished", flush=True)
