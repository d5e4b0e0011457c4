#!/usr/bin/env bash
# Capture run F (torch only, no vLLM): a third blind batch — a wrong gloo interface, an
# unreachable init_method, a process that hides every GPU, tensors shared through a 1 MiB /dev/shm.
set -u
export LC_ALL=C.UTF-8 LANG=C.UTF-8
mkdir -p "$OUT/logs"
py() {  # py NAME COMMAND... : one run, its whole output kept as logs/NAME.log
  local name=$1; shift
  echo "== $name: $*"
  timeout 150 "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?"; tail -n 2 "$OUT/logs/$name.log" | cut -c1-200
}
cat > /tmp/gloo_allreduce.py <<'PY'
import torch, torch.distributed as dist
dist.init_process_group("gloo")
x = torch.ones(1 << 16)
dist.all_reduce(x)
print("gloo all_reduce ok", x[0].item(), "world", dist.get_world_size())
dist.destroy_process_group()
PY
GLOO_SOCKET_IFNAME=bond7 py torchrun-gloo-ifname-bond7 torchrun --nproc_per_node=2 /tmp/gloo_allreduce.py
cat > /tmp/init_tcp.py <<'PY'
import datetime, torch, torch.distributed as dist
dist.init_process_group("nccl", init_method="tcp://10.254.254.254:23456", rank=1, world_size=2,
                        timeout=datetime.timedelta(seconds=40))
PY
py torch-init-method-unreachable python3 /tmp/init_tcp.py
CUDA_VISIBLE_DEVICES="" py torch-cuda-visible-devices-empty python3 -c "import torch; print(torch.cuda.device_count()); torch.zeros(1, device='cuda')"
cat > /tmp/share.py <<'PY'
import torch, torch.multiprocessing as mp
def worker(q):
    q.put(torch.ones(64, 1024, 1024))  # 256 MiB through shared memory
if __name__ == "__main__":
    q = mp.get_context("spawn").Queue()
    p = mp.get_context("spawn").Process(target=worker, args=(q,))
    p.start(); t = q.get(timeout=60); p.join(); print("got", t.shape)
PY
py torch-mp-queue-shm-1m unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec python3 /tmp/share.py'
