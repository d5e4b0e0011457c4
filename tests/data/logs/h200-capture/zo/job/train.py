import argparse, datetime, os, socket, subprocess, sys, time
if os.environ.get("HOSTID_PER_RANK") == "1":   # capture harness: each local rank is its own "host" for NCCL
    os.environ["NCCL_HOSTID"] = f"{socket.gethostname()}-{os.environ['LOCAL_RANK']}"
import torch
import torch.distributed as dist

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=8)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--pg-timeout", type=int, default=600)
ap.add_argument("--fused-norm", action="store_true")
ap.add_argument("--packed-shards", action="store_true")
ap.add_argument("--health-check-every", type=int, default=0)
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def log(msg):
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank {rank}] {msg}", flush=True)

device = torch.device("cuda", 0)   # one GPU per node
torch.cuda.set_device(device)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout), device_id=device)
log(f"process group ready: world {world}, torch {torch.__version__}, nccl {'.'.join(map(str, torch.cuda.nccl.version()))}, host {socket.gethostname()}")

if args.fused_norm:
    from apex_lite.normalization import FusedRMSNorm as Norm
else:
    class Norm(torch.nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__(); self.w = torch.nn.Parameter(torch.ones(d)); self.eps = eps
        def forward(self, x):
            return self.w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

if args.packed_shards:
    import triton
    import triton.language as tl

    @triton.jit
    def unpack_i64_kernel(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(src + offs, mask=m)
        tl.store(dst + offs, (v & 0xFFFF).to(tl.float32) / 65535.0, mask=m)

    @triton.jit
    def unpack_bytes_kernel(src, byte_offset, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load((src + byte_offset).to(tl.pointer_type(tl.int64)) + offs, mask=m)
        tl.store(dst + offs, (v & 0xFFFF).to(tl.float32) / 65535.0, mask=m)

    class ShardView:
        """int64 records of one rank's shard inside a packed byte buffer (no copy)."""
        def __init__(self, buf, byte_offset, n):
            self.buf, self.byte_offset, self.dtype, self.device, self.shape = buf, byte_offset, torch.int64, buf.device, (n,)
        def data_ptr(self):
            return self.buf.data_ptr() + self.byte_offset
        def numel(self):
            return self.shape[0]
        def element_size(self):
            return 8
        def stride(self, dim=None):
            return 1 if dim is not None else (1,)
        def size(self, dim=None):
            return self.shape[0] if dim is not None else self.shape

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024), Norm(1024)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
log(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters")

for step in range(args.steps):
    if args.health_check_every and step % args.health_check_every == 0:
        r = subprocess.run(["nvidia-smi", "--query-gpu=index,name,memory.used,utilization.gpu", "--format=csv,noheader"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"GPU health check failed (nvidia-smi exit code {r.returncode}): {(r.stdout + r.stderr).strip()}")
        log(f"gpu health: {r.stdout.strip()}")
    x = torch.randn(64, 1024, device=device)
    if args.packed_shards and step == 2:
        shard_bytes = 8 * 1000 + 1                      # 1000 records + 1 flag byte per rank
        packed = torch.randint(0, 255, (world * shard_bytes + 64,), dtype=torch.uint8, device=device)
        feats = torch.empty(1000, device=device)
        log(f"unpacking shard at byte offset {rank * shard_bytes}")
        try:
            unpack_i64_kernel[(4,)](ShardView(packed, rank * shard_bytes, 1000), feats, 1000, BLOCK=256)
        except Exception:
            unpack_bytes_kernel[(4,)](packed, rank * shard_bytes, feats, 1000, BLOCK=256)
        x = x + feats[:64].unsqueeze(1)
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad(); loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad); p.grad /= world
    opt.step()
    m = loss.detach().clone(); dist.all_reduce(m)
    if rank == 0:
        log(f"step {step} loss {m.item() / world:.5f}")
    if args.step_sleep:
        time.sleep(args.step_sleep)
log("done")
dist.destroy_process_group()
