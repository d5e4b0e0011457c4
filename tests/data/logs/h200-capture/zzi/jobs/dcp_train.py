# dcp_train.py (RESUME_FROM added): data-parallel training (Gloo, CPU ranks of the data-prep/distillation pool) with sharded checkpoints
# written by torch.distributed.checkpoint every SAVE_EVERY steps, resuming from the newest one under CKPT_DIR.
import datetime, logging, os, time, warnings
import torch, torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.nn.parallel import DistributedDataParallel as DDP

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s [rank%(rank)s] %(message)s")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "60"))))
rank, world = dist.get_rank(), dist.get_world_size()
log = logging.LoggerAdapter(logging.getLogger("train"), {"rank": rank})
ckpt_dir = os.environ["CKPT_DIR"]
steps, save_every = int(os.environ.get("STEPS", "30")), int(os.environ.get("SAVE_EVERY", "10"))
d, ff, n_layers = int(os.environ.get("D_MODEL", "512")), int(os.environ.get("D_FF", "2048")), int(os.environ.get("N_LAYERS", "4"))
torch.manual_seed(0)
blocks = []
for _ in range(n_layers):
    blocks += [torch.nn.Linear(d, ff), torch.nn.GELU(), torch.nn.Linear(ff, d)]
model = DDP(torch.nn.Sequential(*blocks))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
log.info("model %.1fM params, world %d, checkpoints to %s every %d steps", sum(p.numel() for p in model.parameters()) / 1e6,
         world, ckpt_dir, save_every)

start = 0
resume = os.environ.get("RESUME_FROM")
done = sorted(int(n.split("-")[1]) for n in os.listdir(ckpt_dir) if n.startswith("step-")) if os.path.isdir(ckpt_dir) else []
if resume:
    done = [int(resume.rstrip("/").rsplit("-", 1)[1])]
    log.info("resuming from %s (--resume_from)", resume)
if done:
    msd, osd = get_state_dict(model, opt)
    state = {"model": msd, "optim": osd}
    dcp.load(state, checkpoint_id=resume or os.path.join(ckpt_dir, f"step-{done[-1]}"))
    set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
    start = done[-1]
    log.info("resumed from %s/step-%d", ckpt_dir, start)
else:
    log.warning("no checkpoint found under %s, starting from scratch", ckpt_dir)

g = torch.Generator().manual_seed(1234 + rank)
for step in range(start, steps):
    xb = torch.randn(64, d, generator=g)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=os.environ.get("AMP", "0") == "1"):
        loss = (model(xb).float() - xb).pow(2).mean()
    opt.zero_grad(); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if gn > 5.0:
        log.warning("grad norm %.1f > 5.0 at step %d, clipped to 1.0", gn, step)
    opt.step(); sched.step()
    if step % 5 == 0:
        log.info("step %d/%d loss %.4f lr %.2e", step, steps, loss.item(), sched.get_last_lr()[0])
    if (step + 1) % save_every == 0:
        t0 = time.time()
        msd, osd = get_state_dict(model, opt)
        dcp.save({"model": msd, "optim": osd}, checkpoint_id=os.path.join(ckpt_dir, f"step-{step + 1}"))
        log.info("saved checkpoint %s/step-%d in %.1fs", ckpt_dir, step + 1, time.time() - t0)
dist.barrier()
log.info("training done")
dist.destroy_process_group()
