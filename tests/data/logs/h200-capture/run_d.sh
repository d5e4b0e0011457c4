#!/usr/bin/env bash
# Capture run D (a fresh machine: installs first): a second blind batch of failures made on
# purpose — a bad GPU UUID, 70B weights on one GPU, more ranks than GPUs, a plain CUDA OOM,
# a tiny /dev/shm under a DataLoader, a tiny open-files limit, a device-side assert.
set -u
bash tests/data/logs/h200-capture/install.sh || exit $?
python3 -c "from transformers import LlamaConfig; LlamaConfig(hidden_size=8192, intermediate_size=28672, num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192).save_pretrained('/tmp/llama70b')"
. tests/data/logs/h200-capture/common.sh
CUDA_VISIBLE_DEVICES=GPU-00000000-1111-2222-3333-444444444444 serve vllm026-visible-devices-bad-uuid 150 /tmp/tiny $TINY_ARGS
serve vllm026-llama70b-on-one-gpu 300 /tmp/llama70b --load-format dummy --skip-tokenizer-init --enforce-eager --max-model-len 4096 --gpu-memory-utilization 0.95
( ulimit -Sn 128; ulimit -Hn 128; serve vllm026-nofile-128 150 /tmp/tiny $TINY_ARGS )
py() {  # py NAME LAUNCHER... : a python/torchrun run, its whole output kept as logs/NAME.log
  local name=$1; shift
  echo "== $name: $*"
  timeout 150 "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?"; tail -n 2 "$OUT/logs/$name.log" | cut -c1-200
}
cat > /tmp/rank_device.py <<'PY'
import os, torch, torch.distributed as dist
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
print("ok", x[0].item())
PY
NCCL_DEBUG=INFO py torchrun-2ranks-one-gpu torchrun --nproc_per_node=2 /tmp/rank_device.py
py torch-alloc-200gib python3 -c "import torch; x = torch.empty(200 * 2**30, dtype=torch.uint8, device='cuda')"
cat > /tmp/loader.py <<'PY'
import torch
from torch.utils.data import DataLoader, Dataset
class Big(Dataset):
    def __len__(self): return 64
    def __getitem__(self, i): return torch.ones(64, 1024, 1024)  # 256 MiB per sample
for batch in DataLoader(Big(), batch_size=2, num_workers=2):
    print("batch", batch.shape)
PY
py dataloader-shm-16m unshare -m sh -c 'mount -t tmpfs -o size=16m tmpfs /dev/shm && exec python3 /tmp/loader.py'
py torch-index-out-of-bounds python3 -c "import torch; t = torch.zeros(4, device='cuda'); i = torch.tensor([7], device='cuda'); print(t[i].sum().item())"
