#!/usr/bin/env bash
# Capture run H (torch only, no vLLM): a fifth blind batch, made on purpose for blind collector I.
# Multi-rank where it can be (gloo ranks, since NCCL cannot put two ranks on the one GPU): a rank
# that stalls before a collective under a 20 s timeout, shared-memory tensors under a 1 MiB
# /dev/shm, two jobs on the same MASTER_PORT, GLOO/NCCL_SOCKET_IFNAME naming a missing NIC,
# CUDA_VISIBLE_DEVICES=1 on a one-GPU node, a 1 % memory fraction, a Megatron-style TP toy
# with 7 heads over 2 ranks and 2 KV groups over 4 ranks, ranks given different MASTER_PORTs, a
# 2x2 device mesh on 2 ranks, Lightning asking for 2 GPUs, a healthy but noisy Lightning DDP run.
# Each fault has its own `timeout`.
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
mkdir -p "$OUT/logs"
T0=$SECONDS; BUDGET=${H_BUDGET:-280}
py() {  # py NAME LIMIT_S COMMAND... : one run, its whole output kept as logs/NAME.log
  local name=$1 limit=$2; shift 2
  if (( SECONDS - T0 + limit > BUDGET )); then echo "== $name: skipped (time: $((SECONDS - T0)) s used)"; return; fi
  echo "== $name: $*"
  timeout "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$name.log")  t=$((SECONDS - T0))s"
  tail -n 2 "$OUT/logs/$name.log" | cut -c1-200
}
echo "== facts"
nvidia-smi -L; ls /sys/class/net; df -h /dev/shm | tail -n 1
python3 -c "import torch,lightning;print('torch',torch.__version__,'nccl',torch.cuda.nccl.version(),'lightning',lightning.__version__,'gpus',torch.cuda.device_count())"
mkdir -p /tmp/h

# 1. rank 1 stalls before the gradient all_reduce; rank 0 waits under a 20 s gloo timeout
cat > /tmp/h/train_stall.py <<'PY'
import datetime, time, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(5):
    loss = model(torch.randn(32, 512)).pow(2).mean()
    loss.backward()
    if rank == 1 and step == 2:
        time.sleep(90)  # rank 1 stalls here and never reaches the gradient all_reduce
    for p in model.parameters():
        dist.all_reduce(p.grad)
        p.grad /= world
    opt.step(); opt.zero_grad()
    print(f"rank {rank}: step {step} loss {loss.item():.4f}", flush=True)
PY
py torchrun-gloo-rank1-stalls-allreduce-timeout-20s 60 torchrun --nproc_per_node=2 /tmp/h/train_stall.py

# 2. each rank puts a 256 MiB buffer in shared memory; /dev/shm is a 1 MiB tmpfs (own mount namespace)
cat > /tmp/h/shm_buffer.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
# each rank keeps a replay buffer in shared memory for its rollout workers
print(f"rank {rank}: allocating replay buffer 64 x 1024 x 1024 float32 (256 MiB) in shared memory", flush=True)
buf = torch.zeros(64, 1024, 1024).share_memory_()
print(f"rank {rank}: buffer ready, is_shared={buf.is_shared()}", flush=True)
t = torch.ones(1); dist.all_reduce(t)
dist.destroy_process_group()
PY
py torchrun-shm-1m-share-memory 60 unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec torchrun --nproc_per_node=2 /tmp/h/shm_buffer.py'

# 3. two 2-rank jobs started with the same MASTER_ADDR:MASTER_PORT; job B's log is kept
cat > /tmp/h/env_job.py <<'PY'
import datetime, os, time, torch, torch.distributed as dist
job = os.environ["JOB"]
print(f"job {job} rank {os.environ['RANK']}: init_process_group env:// {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
x = torch.ones(4); dist.all_reduce(x)
print(f"job {job} rank {dist.get_rank()}: all_reduce {x[0].item()}", flush=True)
if job == "A":
    time.sleep(20)
dist.destroy_process_group()
PY
export MASTER_ADDR=127.0.0.1 MASTER_PORT=29600 WORLD_SIZE=2
(for r in 0 1; do JOB=A RANK=$r timeout 60 python3 /tmp/h/env_job.py & done; wait) > /tmp/h/jobA.out 2>&1 &
JOBA=$!; sleep 8
py env-two-jobs-same-master-port 30 bash -c 'for r in 0 1; do JOB=B RANK=$r python3 /tmp/h/env_job.py & done; wait'
wait $JOBA; echo "   job A:"; cut -c1-200 /tmp/h/jobA.out | tail -n 6
unset MASTER_ADDR MASTER_PORT WORLD_SIZE

# 4. GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME copied from another cluster's config (a NIC this node lacks)
cat > /tmp/h/gloo_allreduce.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
x = torch.ones(1 << 16)
dist.all_reduce(x)
print(f"rank {dist.get_rank()}: gloo all_reduce ok, x[0]={x[0].item()} world={dist.get_world_size()}", flush=True)
dist.destroy_process_group()
PY
GLOO_SOCKET_IFNAME=ens1f0np0 NCCL_SOCKET_IFNAME=ens1f0np0 NCCL_DEBUG=INFO py torchrun-gloo-ifname-ens1f0np0 60 torchrun --nproc_per_node=2 /tmp/h/gloo_allreduce.py

# 5. CUDA_VISIBLE_DEVICES=1 on a node whose only GPU is 0; 2-rank NCCL job, NCCL_DEBUG=INFO
cat > /tmp/h/nccl_train.py <<'PY'
import os, torch, torch.distributed as dist
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
print(f"rank {dist.get_rank()}: all_reduce ok {x[0].item()}", flush=True)
dist.destroy_process_group()
PY
CUDA_VISIBLE_DEVICES=1 NCCL_DEBUG=INFO py torchrun-nccl-cuda-visible-devices-1 60 torchrun --nproc_per_node=2 /tmp/h/nccl_train.py

# 6. two gloo ranks share the GPU, each capped at 1 % of it; a forward pass needs more
cat > /tmp/h/memfrac.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
torch.cuda.set_device(0)
torch.cuda.set_per_process_memory_fraction(0.01, 0)  # leave the GPU to the other jobs on it
model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(4)]).cuda()
print(f"rank {rank}: model on cuda:0, {torch.cuda.memory_allocated() / 2**20:.0f} MiB allocated", flush=True)
x = torch.randn(32768, 4096, device="cuda")
loss = model(x).float().pow(2).mean()
loss.backward()
t = loss.detach().cpu().reshape(1); dist.all_reduce(t)
print(f"rank {rank}: loss {t.item():.4f}", flush=True)
dist.destroy_process_group()
PY
py torchrun-gloo-memory-fraction-001-forward 60 torchrun --nproc_per_node=2 /tmp/h/memfrac.py

# 7-8. a Megatron-style tensor-parallel toy: 7 heads over TP 2; Qwen2-1.5B shape (12 heads, 2 KV groups) over TP 4
cat > /tmp/h/tp_toy.py <<'PY'
# A Megatron-style tensor-parallel toy: attention heads and KV groups are split over the TP ranks.
import argparse, datetime, os, torch, torch.distributed as dist

def ensure_divisibility(numerator, denominator):
    """Ensure that numerator is divisible by the denominator."""
    assert numerator % denominator == 0, "{} is not divisible by {}".format(numerator, denominator)

def divide(numerator, denominator):
    ensure_divisibility(numerator, denominator)
    return numerator // denominator

class ParallelSelfAttention(torch.nn.Module):
    def __init__(self, hidden_size, num_attention_heads, num_query_groups, tp_size):
        super().__init__()
        self.head_dim = divide(hidden_size, num_attention_heads)
        self.num_attention_heads_per_partition = divide(num_attention_heads, tp_size)
        self.num_query_groups_per_partition = divide(num_query_groups, tp_size)
        q = self.num_attention_heads_per_partition * self.head_dim
        kv = self.num_query_groups_per_partition * self.head_dim
        self.linear_qkv = torch.nn.Linear(hidden_size, q + 2 * kv, bias=False)
        self.linear_proj = torch.nn.Linear(q, hidden_size, bias=False)

class ParallelTransformerLayer(torch.nn.Module):
    def __init__(self, args, tp_size):
        super().__init__()
        self.input_layernorm = torch.nn.LayerNorm(args.hidden_size)
        self.self_attention = ParallelSelfAttention(args.hidden_size, args.num_attention_heads, args.num_query_groups, tp_size)
        self.mlp_fc1 = torch.nn.Linear(args.hidden_size, divide(args.ffn_hidden_size, tp_size), bias=False)
        self.mlp_fc2 = torch.nn.Linear(divide(args.ffn_hidden_size, tp_size), args.hidden_size, bias=False)

p = argparse.ArgumentParser()
p.add_argument("--num-layers", type=int, default=4)
p.add_argument("--hidden-size", type=int, default=896)
p.add_argument("--num-attention-heads", type=int, default=14)
p.add_argument("--num-query-groups", type=int, default=2)
p.add_argument("--ffn-hidden-size", type=int, default=4864)
p.add_argument("--tensor-model-parallel-size", type=int, default=1)
args = p.parse_args()

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
tp = args.tensor_model_parallel_size
assert world % tp == 0, f"world size {world} is not divisible by tensor model parallel size {tp}"
if rank == 0:
    print("------------------------ arguments ------------------------", flush=True)
    for k, v in sorted(vars(args).items()):
        print(f"  {k} {'.' * (40 - len(k))} {v}", flush=True)
    print(f"  world_size {'.' * 30} {world}", flush=True)
    print("-------------------- end of arguments ---------------------", flush=True)
print(f"> initializing tensor model parallel with size {tp} (rank {rank})", flush=True)
print(f"rank {rank}: building model ...", flush=True)
layers = torch.nn.ModuleList([ParallelTransformerLayer(args, tp) for _ in range(args.num_layers)])
n = sum(p.numel() for p in layers.parameters())
print(f" > number of parameters on (tensor, pipeline) model parallel rank ({rank}, 0): {n}", flush=True)
dist.barrier()
dist.destroy_process_group()
PY
py torchrun-tp2-7-heads 60 torchrun --nproc_per_node=2 /tmp/h/tp_toy.py --hidden-size 448 --num-attention-heads 7 --num-query-groups 7 --ffn-hidden-size 1792 --tensor-model-parallel-size 2
py torchrun-tp4-qwen2-1.5b-2-kv-groups 60 torchrun --nproc_per_node=4 /tmp/h/tp_toy.py --num-layers 28 --hidden-size 1536 --num-attention-heads 12 --num-query-groups 2 --ffn-hidden-size 8960 --tensor-model-parallel-size 4

# 9. rank 0 and rank 1 started by a shell launcher with different MASTER_PORTs (29700 vs 29701)
cat > /tmp/h/env_init.py <<'PY'
import datetime, os, socket, torch, torch.distributed as dist
print(f"[{socket.gethostname()}] rank {os.environ['RANK']}/{os.environ['WORLD_SIZE']}: init_process_group env:// MASTER_ADDR={os.environ['MASTER_ADDR']} MASTER_PORT={os.environ['MASTER_PORT']}", flush=True)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
t = torch.ones(1); dist.all_reduce(t)
print(f"rank {dist.get_rank()}: all_reduce {t.item()}", flush=True)
dist.destroy_process_group()
PY
MASTER_ADDR=127.0.0.1 WORLD_SIZE=2 py env-ranks-different-master-port 50 bash -c 'RANK=0 MASTER_PORT=29700 python3 /tmp/h/env_init.py & RANK=1 MASTER_PORT=29701 python3 /tmp/h/env_init.py & wait'

# 10. a 2-D (dp=2, tp=2) device mesh asked of a 2-rank job
cat > /tmp/h/mesh.py <<'PY'
import os, torch, torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
dp, tp = 2, 2
print(f"rank {os.environ['RANK']}: building mesh dp={dp} tp={tp} on world size {os.environ['WORLD_SIZE']}", flush=True)
mesh = init_device_mesh("cuda", (dp, tp), mesh_dim_names=("dp", "tp"))
print(mesh)
PY
NCCL_DEBUG=INFO py torchrun-device-mesh-2x2-on-2-ranks 60 torchrun --nproc_per_node=2 /tmp/h/mesh.py

# 11-12. Lightning: 2 GPUs asked of a one-GPU node; a healthy 2-process CPU DDP run with its warnings
cat > /tmp/h/pl_train.py <<'PY'
import sys, torch, lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss, on_epoch=True)
        return loss
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    accelerator = sys.argv[1]
    x = torch.randn(2048, 32); y = x.sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=64)
    trainer = L.Trainer(accelerator=accelerator, devices=2, strategy="ddp", max_epochs=2, enable_checkpointing=False, enable_progress_bar=False)
    trainer.fit(Regressor(), loader)
    print(f"rank {trainer.global_rank}: done, train_loss={trainer.callback_metrics['train_loss'].item():.4f}")
PY
(cd /tmp/h && py lightning-gpu-devices-2-on-1-gpu 60 python3 /tmp/h/pl_train.py gpu)
(cd /tmp/h && py lightning-cpu-ddp-2-processes-ok 90 python3 /tmp/h/pl_train.py cpu)
echo "== done in $((SECONDS - T0)) s"
