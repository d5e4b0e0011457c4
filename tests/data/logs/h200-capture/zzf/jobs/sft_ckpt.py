# sft_ckpt.py: small SFT-style training loop that writes a full checkpoint directory every SAVE_EVERY steps
# (trainer_state.json, model.pt, optimizer.pt, rng_state.pt), keeping every checkpoint.
import datetime, json, os, time
import torch, torch.distributed as dist
rank = int(os.environ.get("RANK", 0))
out_dir = os.environ.get("OUTPUT_DIR", "/mnt/ckpt/sft-run")
save_every, steps = int(os.environ.get("SAVE_EVERY", "10")), int(os.environ.get("STEPS", "150"))
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=120))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
    torch.nn.Embedding(8000, 512), torch.nn.Linear(512, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 8000)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
nparams = sum(p.numel() for p in model.parameters())
print(f"[rank {rank}] model params {nparams / 1e6:.1f}M, output_dir {out_dir}, save_steps {save_every}", flush=True)


def save_checkpoint(step):
    d = os.path.join(out_dir, f"checkpoint-{step}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "trainer_state.json"), "w") as f:
        json.dump({"global_step": step, "loss": last_loss, "time": time.time()}, f)
    torch.save(model.module.state_dict(), os.path.join(d, "model.pt"))
    torch.save(opt.state_dict(), os.path.join(d, "optimizer.pt"))
    torch.save({"cpu": torch.get_rng_state(), "cuda": torch.cuda.get_rng_state()}, os.path.join(d, "rng_state.pt"))
    print(f"[rank {rank}] saved {d}", flush=True)


last_loss = None
for step in range(1, steps + 1):
    x = torch.randint(0, 8000, (16, 128), device="cuda")
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, 8000), x[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    last_loss = loss.item()
    if step % 5 == 0:
        print(f"[rank {rank}] step {step} loss {last_loss:.4f}", flush=True)
    if step % save_every == 0 and rank == 0:
        save_checkpoint(step)
    if step % save_every == 0:
        dist.barrier()
dist.destroy_process_group()
print(f"[rank {rank}] training complete", flush=True)
