#!/usr/bin/env bash
# Capture run U (session 7, collector Z24): an eighteenth blind batch, real `vllm serve`
# (vLLM 0.26.0) at TP 1 on the one GPU: a node or serving environment set up wrongly or left
# dirty (model directories, offline mode, environment injected by Kubernetes, a read-only home,
# device permissions). The wheel is staged as 52 MiB chunks joined into /tmp/part0 (part1..4
# empty), as in run_q.sh..run_t.sh. Every server uses --gpu-memory-utilization 0.05
# --kv-cache-memory-bytes 1G so that the servers starting together do not count each other.
# U_PART=1 (installs first), in parallel:
#   1. a model directory with only config.json (no weight files), no --load-format dummy
#   2. model.safetensors a git-lfs pointer (repository cloned without git-lfs)
#   3. HF_HUB_OFFLINE=1 and a hub model id that is not in the local HF cache
#   4. VLLM_PORT=tcp://10.96.143.7:8000 (what Kubernetes injects for a Service named "vllm")
#   5. HOME on a read-only filesystem (readOnlyRootFilesystem), torch.compile on
#   6. the server run as an unprivileged user while /dev/nvidia* are root:root 0660
#      (a user not in the group that owns the device nodes); own mount namespace, own nodes
#   7. a model whose config.json needs custom code (auto_map), no --trust-remote-code
# U_PART=2 (same warm machine, only if the budget allows; NOT RUN in session 7: budget_left was
# 672 s after U_PART=1, below the 700 s the brief required), in parallel:
#   8. the model directory readable only by root (0700), the server run as user nobody
#   9. healthy: a co-tenant torch process holding 40 GiB, the server at
#      --gpu-memory-utilization 0.5, HF_HUB_OFFLINE=1, one request served, SIGINT
#  10. torch only: torch.compile with HOME (and so the Triton cache) on a read-only filesystem
#  11. torch only: transformers from_pretrained of a hub id under HF_HUB_OFFLINE=1, not cached
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
U_PART=${U_PART:-1}
if [ "$U_PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
TINYKW='hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512'

# sh_serve NAME LIMIT SHELL-SCRIPT: run a shell snippet (which execs vllm serve), whole output kept
sh_serve() {
  local name=$1 limit=$2 script=$3
  echo "== $name: $script"
  timeout -s INT -k 15 "$limit" unshare -m bash -c "$script" > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
VS="python3 -m vllm.entrypoints.cli.main serve"

if [ "$U_PART" = 1 ]; then
python3 - <<PY
import json, os
from transformers import LlamaConfig
# 1. config only (as after 'huggingface-cli download --include "*.json"')
LlamaConfig($TINYKW).save_pretrained("/tmp/u-config-only")
# 2. a clone without git-lfs: model.safetensors is the pointer text
LlamaConfig($TINYKW).save_pretrained("/tmp/u-lfs-pointer")
open("/tmp/u-lfs-pointer/model.safetensors", "w").write(
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:5f3c7d1e8a2b4c6d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7\n"
    "size 2471645608\n")
# 7. a custom model that ships its own configuration code
os.makedirs("/tmp/u-custom-code", exist_ok=True)
json.dump({"architectures": ["FooLMForCausalLM"], "model_type": "foolm",
           "auto_map": {"AutoConfig": "configuration_foolm.FooLMConfig",
                        "AutoModelForCausalLM": "modeling_foolm.FooLMForCausalLM"},
           "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024,
           "max_position_embeddings": 512, "torch_dtype": "bfloat16"},
          open("/tmp/u-custom-code/config.json", "w"), indent=2)
open("/tmp/u-custom-code/configuration_foolm.py", "w").write(
    "from transformers import PretrainedConfig\n\n\n"
    "class FooLMConfig(PretrainedConfig):\n"
    "    model_type = 'foolm'\n\n"
    "    def __init__(self, hidden_size=256, num_hidden_layers=2, **kw):\n"
    "        self.hidden_size = hidden_size\n"
    "        self.num_hidden_layers = num_hidden_layers\n"
    "        super().__init__(**kw)\n")
PY
ls -la /tmp/u-config-only /tmp/u-lfs-pointer /tmp/u-custom-code | cut -c1-120
ls -la /dev/nvidia* | head -8; id; ls -d ~/.cache/huggingface 2>&1
mkdir -p /tmp/u-home && chmod 777 /tmp/u-home

# 1. config.json only, real weights expected
serve vllm026-model-dir-config-json-only 90 /tmp/u-config-only --skip-tokenizer-init --enforce-eager $GMU --port 8401 &
J="$!"
# 2. model.safetensors is a git-lfs pointer
serve vllm026-safetensors-git-lfs-pointer 90 /tmp/u-lfs-pointer --skip-tokenizer-init --enforce-eager $GMU --port 8402 &
J="$J $!"
# 3. offline, hub id not cached
( export HF_HUB_OFFLINE=1
  serve vllm026-hf-hub-offline-model-not-cached 90 meta-llama/Llama-3.1-8B-Instruct --enforce-eager $GMU --port 8403 ) &
J="$J $!"
# 4. Kubernetes service env VLLM_PORT=tcp://...
( export VLLM_PORT=tcp://10.96.143.7:8000 VLLM_SERVICE_HOST=10.96.143.7 VLLM_SERVICE_PORT=8000
  serve vllm026-k8s-service-env-vllm-port-uri 90 /tmp/tiny $TINY_ARGS $GMU --port 8404 ) &
J="$J $!"
# 5. HOME read-only (readOnlyRootFilesystem), torch.compile on (no --enforce-eager)
sh_serve vllm026-home-read-only-compile 150 \
  "mkdir -p /mnt/u-ro && mount -t tmpfs -o ro,size=1m tmpfs /mnt/u-ro && echo HOME=/mnt/u-ro: \$(findmnt -no OPTIONS /mnt/u-ro) >&2; export HOME=/mnt/u-ro; exec $VS /tmp/tiny --load-format dummy --skip-tokenizer-init $GMU --port 8405" &
J="$J $!"
# 6. unprivileged user, GPU device nodes root:root 0660 (own copies bound over /dev/nvidia*)
sh_serve vllm026-gpu-device-nodes-not-accessible-to-user 90 \
  "mkdir -p /mnt/u-dev && mount -t tmpfs tmpfs /mnt/u-dev && for d in /dev/nvidia*; do [ -c \"\$d\" ] || continue; b=\$(basename \$d); mknod -m 0660 /mnt/u-dev/\$b c \$((0x\$(stat -c %t \$d))) \$((0x\$(stat -c %T \$d))) && mount --bind /mnt/u-dev/\$b \$d; done; ls -la /dev/nvidia* >&2; export HOME=/tmp/u-home; exec setpriv --reuid=65534 --regid=65534 --clear-groups $VS /tmp/tiny $TINY_ARGS $GMU --port 8406" &
J="$J $!"
# 7. custom code in the model directory, no --trust-remote-code
serve vllm026-custom-config-code-no-trust-remote-code 90 /tmp/u-custom-code $TINY_ARGS $GMU --port 8407 &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$U_PART" = 2 ]; then
python3 -c "
from transformers import LlamaConfig
LlamaConfig($TINYKW).save_pretrained('/tmp/u-root-only')"
chmod 700 /tmp/u-root-only; mkdir -p /tmp/u-home && chmod 777 /tmp/u-home
# 8. model directory 0700 root, server as nobody
sh_serve vllm026-model-dir-root-only-server-as-nobody 90 \
  "export HOME=/tmp/u-home; exec setpriv --reuid=65534 --regid=65534 --clear-groups $VS /tmp/u-root-only $TINY_ARGS $GMU --port 8411" &
J="$!"
# 9. healthy beside a co-tenant holding 40 GiB
(
  name=vllm026-cotenant-40g-gmu-0.5-offline-served-ok
  python3 -c "
import torch, time
x = torch.empty(40 << 30, dtype=torch.uint8, device='cuda'); print('co-tenant holds 40 GiB', flush=True); time.sleep(100)" &
  H=$!; sleep 8
  echo "== $name: (co-tenant pid $H holds 40 GiB) HF_HUB_OFFLINE=1 vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.5 --port 8412"
  HF_HUB_OFFLINE=1 timeout -s INT -k 15 85 $VS /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.5 --port 8412 > "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request
for i in range(70):
    try:
        urllib.request.urlopen('http://localhost:8412/health', timeout=2); break
    except Exception:
        time.sleep(1)
req = urllib.request.Request('http://localhost:8412/v1/completions', data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
print('   completion:', urllib.request.urlopen(req, timeout=30).read()[:200])" || true
  kill -INT $S; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; kill $H
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 10. torch only: torch.compile with a read-only HOME (Triton cache under ~/.triton)
cat > /tmp/u_compile.py <<'PY'
import os, torch
print("HOME", os.environ["HOME"], "torch", torch.__version__, flush=True)
@torch.compile
def f(x, y):
    return torch.nn.functional.gelu(x @ y) * 2 + 1
x = torch.randn(256, 256, device="cuda"); y = torch.randn(256, 256, device="cuda")
print("result", f(x, y).sum().item(), flush=True)
PY
sh_serve torch-compile-home-read-only 80 \
  "mkdir -p /mnt/u-ro2 && mount -t tmpfs -o ro,size=1m tmpfs /mnt/u-ro2 && export HOME=/mnt/u-ro2 && exec python3 /tmp/u_compile.py" &
J="$J $!"
# 11. torch only: transformers, offline, model id not cached
cat > /tmp/u_offline.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
print("loading Qwen/Qwen2.5-0.5B-Instruct", flush=True)
m = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", torch_dtype=torch.bfloat16).cuda()
print(m(torch.tensor([[1, 2, 3]], device="cuda")).logits.shape)
PY
sh_serve transformers-hf-hub-offline-model-not-cached 60 "export HF_HUB_OFFLINE=1; exec python3 /tmp/u_offline.py" &
J="$J $!"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
