# tj.py (Z161): a small torch.distributed loop, env://, NCCL, 1 GPU per "node"; TJ_TIMEOUT s; TJ_MODE:
#   plain : all_reduce of "gradients" for 6 steps
#   a2a   : MoE-style token dispatch with all_to_all_single from step 2; each rank sizes its splits from its own
#           router counts; rank 1 takes its receive splits from the counts of the previous step (stale cache)
import datetime, os, socket, time
import torch, torch.distributed as dist
mode = os.environ.get("TJ_MODE", "plain")
to = datetime.timedelta(seconds=int(os.environ.get("TJ_TIMEOUT", "30")))
rank, ws = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
tag = f"[{socket.gethostname()} rank {rank}]"
print(f"{tag} torch {torch.__version__}: CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r} "
      f"init_process_group(backend='nccl', world_size={ws}, rank={rank}, MASTER_ADDR={os.environ.get('MASTER_ADDR')}, "
      f"MASTER_PORT={os.environ.get('MASTER_PORT')}, timeout={to.seconds}s)", flush=True)
local = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local)
dist.init_process_group(backend="nccl", init_method="env://", world_size=ws, rank=rank, timeout=to,
                        device_id=torch.device(f"cuda:{local}"))
print(f"{tag} process group ready on {torch.cuda.get_device_name()}", flush=True)
H = 1024
for step in range(6):
    g = torch.full((1 << 20,), float(rank + 1), device="cuda")
    dist.all_reduce(g)
    print(f"{tag} step {step}: grad all_reduce sum {g[0].item():.0f}", flush=True)
    if mode == "a2a" and step >= 2:
        g2 = torch.Generator().manual_seed(100 * step + rank)
        send = [int(x) for x in torch.randint(200, 800, (ws,), generator=g2)]       # tokens this rank routes to each rank
        counts = torch.tensor(send, device="cuda")
        recv_counts = torch.empty_like(counts)
        dist.all_to_all_single(recv_counts, counts)                                    # exchange the counts
        recv = [int(x) for x in recv_counts.cpu()]
        if rank == 1 and step >= 3:
            recv = prev_recv                                                           # BUG: stale cached splits
        prev_recv = recv
        x = torch.randn(sum(send), H, device="cuda")
        out = torch.empty(sum(recv), H, device="cuda")
        print(f"{tag} step {step}: all_to_all_single dispatch send_splits={send} recv_splits={recv}", flush=True)
        dist.all_to_all_single(out, x, output_split_sizes=recv, input_split_sizes=send)
        torch.cuda.synchronize()
        print(f"{tag} step {step}: dispatched {out.shape[0]} tokens", flush=True)
    time.sleep(0.3)
dist.destroy_process_group()
print(f"{tag} done", flush=True)
