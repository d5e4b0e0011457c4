#!/usr/bin/env bash
# Capture run ZC (session 8, collector Z42): a blind batch, real `vllm serve` (vLLM 0.26.0) at TP 1
# or as several "nodes" on the one GPU (node 0 + --headless nodes, one shared log, NCCL_HOSTID per
# node) as in run_p.sh..run_z.sh. The wheel is staged as 52 MiB chunks joined into /tmp/part0
# (part1..4 empty), as in run_q.sh..run_z.sh. Carry: .device/validate/whl and .device/validate/z42
# (transformers-4.44.2-py3-none-any.whl, git-ignored). Small servers use
# --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that servers starting together do
# not count each other.
# ZC_PART=1 (installs first), in parallel:
#   1. partitioning: a Llama-3.2-3B shape (24 heads, 8 KV heads), TP 3 over three "nodes"
#      (24 heads divide by 3, the 8 KV heads do not)
#   2. resources: `--uds /tmp/vllm.sock` where a stale socket file of an earlier, killed server
#      is still there (nothing listens on it)
#   3. visibility: the driver's libcuda.so.1 not in the container (covered with /dev/null in a
#      mount namespace) while NVML (libnvidia-ml) is there, as with
#      NVIDIA_DRIVER_CAPABILITIES=utility
#   4. versions: a project's pinned transformers 4.44.2 first on PYTHONPATH (vLLM 0.26 needs 5.x)
#   5. communication: TP 2 over two "nodes" with an AWS EFA recipe's environment
#      (FI_PROVIDER=efa, FI_EFA_USE_DEVICE_RDMA=1, NCCL_NET="AWS Libfabric", NCCL_DEBUG=INFO) on
#      a node with neither EFA nor the aws-ofi-nccl plugin
#   6. network: TP 2 over two "nodes", both `--master-addr gpu-node-0`; node 1's /etc/hosts (its
#      own mount namespace) still maps gpu-node-0 to the head's old address 10.254.254.254,
#      node 0's maps it to 127.0.0.1
#   7. other: a sharded safetensors checkpoint (3 shards + index) with shard 2 missing (an
#      interrupted copy), real weights (no --load-format dummy)
# Call: ZC_PART=1 timeout -k 5 175 bash tests/data/logs/h200-capture/run_zc.sh 2>&1 | tee $OUT/run_zc-part1.out
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
ZC_PART=${ZC_PART:-1}
OUT=$(cd "$OUT" && pwd)
# model configs and the sharded checkpoint (node's own transformers/torch), beside the install
python3 - > /tmp/zc-prep.out 2>&1 <<'PY' &
import json, os, traceback
def make(fn):
    try:
        fn(); print("written:", fn.__name__)
    except Exception:
        traceback.print_exc()
def llama32_3b():  # Llama-3.2-3B shape: 24 heads, 8 KV heads, head_dim 128
    from transformers import LlamaConfig
    c = LlamaConfig(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28, num_attention_heads=24,
                    num_key_value_heads=8, head_dim=128, vocab_size=128256, max_position_embeddings=131072,
                    tie_word_embeddings=True)
    c.architectures = ["LlamaForCausalLM"]; c.save_pretrained("/tmp/zc-llama3.2-3b")
def sharded():  # a tiny Llama saved as 3 safetensors shards + index, shard 2 then removed
    import torch
    from safetensors.torch import save_file
    from transformers import LlamaConfig, LlamaForCausalLM
    d = "/tmp/zc-llama-sharded"; os.makedirs(d, exist_ok=True)
    c = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512, torch_dtype="bfloat16")
    c.architectures = ["LlamaForCausalLM"]
    m = LlamaForCausalLM(c).to(torch.bfloat16)
    sd = {k: v.contiguous() for k, v in m.state_dict().items()}
    groups = [{}, {}, {}]
    for k, v in sd.items():
        i = 1 if k.startswith("model.layers.1.") else 2 if k in ("model.norm.weight", "lm_head.weight") else 0
        groups[i][k] = v
    wm = {}
    for i, g in enumerate(groups):
        fn = f"model-{i + 1:05d}-of-00003.safetensors"
        save_file(g, os.path.join(d, fn), metadata={"format": "pt"})
        wm.update({k: fn for k in g})
    total = sum(v.numel() * v.element_size() for v in sd.values())
    json.dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(wm.items()))},
              open(os.path.join(d, "model.safetensors.index.json"), "w"), indent=2)
    c.save_pretrained(d)
    os.remove(os.path.join(d, "model-00002-of-00003.safetensors"))
    print("   sharded dir:", sorted(os.listdir(d)))
for f in (llama32_3b, sharded):
    make(f)
PY
PREP=$!
if [ "$ZC_PART" = 1 ] || [ ! -d /tmp/site/vllm ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/zc-tf \
  .device/validate/z42/transformers-4.44.2-py3-none-any.whl || echo "transformers 4.44.2 install failed"
wait $PREP; cat /tmp/zc-prep.out
. tests/data/logs/h200-capture/common.sh

# pair NAME LIMIT MPORT PORT MODEL ENV0 ENV1 ADDR0 ADDR1 ARGS...: as in run_z.sh (node 1's extra
# args in $N1EXTRA, a command put before python3 on node 0/1 in $WRAP0/$WRAP1)
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 ${WRAP1:-} vllm serve $model $TINY_ARGS $* ${N1EXTRA:-} --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 ${WRAP0:-} vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 10 "$limit" ${WRAP1:-} python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" ${N1EXTRA:-} \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 10 "$limit" ${WRAP0:-} python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; }
cleanup_gpu() {  # everything on this machine was started by this script
  for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
}
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
VS="python3 -m vllm.entrypoints.cli.main serve"
export NCCL_NVLS_ENABLE=0

if [ "$ZC_PART" = 1 ]; then
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader

# 1. Llama-3.2-3B shape (24 heads, 8 KV heads), TP 3 over 3 nodes
(
  name=vllm026-3nodes-tp3-llama3.2-3b-8-kv-heads
  log="$OUT/logs/$name.log"; : > "$log"
  A="/tmp/zc-llama3.2-3b $TINY_ARGS $GMU --max-model-len 8192 --tensor-parallel-size 3 --nnodes 3 --master-addr 127.0.0.1 --master-port 30101"
  echo "== $name: node r (r=2,1 headless, then 0): NCCL_HOSTID=node<r> vllm serve $A --node-rank <r> [--headless | --port 8901]"
  env NCCL_HOSTID=node2 timeout -s INT -k 10 115 $VS $A --node-rank 2 --headless >> "$log" 2>&1 &
  q2=$!
  env NCCL_HOSTID=node1 timeout -s INT -k 10 115 $VS $A --node-rank 1 --headless >> "$log" 2>&1 &
  q1=$!
  env NCCL_HOSTID=node0 timeout -s INT -k 10 115 $VS $A --node-rank 0 --port 8901 >> "$log" 2>&1 &
  q0=$!
  wait $q0; r0=$?; wait $q1; r1=$?; wait $q2; r2=$?
  echo "   $name rc node0 $r0 node1 $r1 node2 $r2  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
) &
J="$!"

# 6. stale /etc/hosts entry for the head's name on node 1
grep -v 'gpu-node-0' /etc/hosts > /tmp/zc-hosts-node0; cp /tmp/zc-hosts-node0 /tmp/zc-hosts-node1
echo "127.0.0.1 gpu-node-0" >> /tmp/zc-hosts-node0
echo "10.254.254.254 gpu-node-0" >> /tmp/zc-hosts-node1
printf '#!/bin/sh\nf=$1; shift\nmount --bind "$f" /etc/hosts || exit 90\nexec "$@"\n' > /tmp/zc-hosts.sh
chmod +x /tmp/zc-hosts.sh
unshare -m /tmp/zc-hosts.sh /tmp/zc-hosts-node1 getent hosts gpu-node-0 | sed 's/^/   node1 resolves: /'
( WRAP0="unshare -m /tmp/zc-hosts.sh /tmp/zc-hosts-node0" WRAP1="unshare -m /tmp/zc-hosts.sh /tmp/zc-hosts-node1"
  pair vllm026-2nodes-tp2-node1-stale-etc-hosts-master 100 30106 8906 /tmp/tiny "$H0" "$H1" gpu-node-0 gpu-node-0 \
    $GMU --tensor-parallel-size 2 ) &
J="$J $!"

# 5. an AWS EFA recipe's NCCL/libfabric environment on a node without EFA or aws-ofi-nccl
cat > /tmp/zc-efa-env.sh <<'SH'
#!/bin/sh
export FI_PROVIDER=efa FI_EFA_USE_DEVICE_RDMA=1 NCCL_NET="AWS Libfabric" NCCL_DEBUG=INFO
exec "$@"
SH
chmod +x /tmp/zc-efa-env.sh
( WRAP0=/tmp/zc-efa-env.sh WRAP1=/tmp/zc-efa-env.sh
  pair vllm026-2nodes-tp2-efa-recipe-no-efa-plugin 100 30105 8905 /tmp/tiny "$H0" "$H1" 127.0.0.1 127.0.0.1 \
    $GMU --tensor-parallel-size 2 ) &
J="$J $!"

# 7. sharded checkpoint missing shard 2 (real weights)
( serve vllm026-sharded-checkpoint-shard-2-of-3-missing 100 /tmp/zc-llama-sharded --skip-tokenizer-init --enforce-eager \
    $GMU --port 8907 ) &
J="$J $!"

# 3. libcuda.so.1 not there, NVML there
unshare -m bash -c '
  . tests/data/logs/h200-capture/common.sh
  for f in $( (ldconfig -p | awk "/libcuda\.so/{print \$NF}"; for d in $(echo ${LD_LIBRARY_PATH:-} | tr : " ") /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64; do ls $d/libcuda.so* 2>/dev/null; done) | xargs -r readlink -f | sort -u); do
    mount --bind /dev/null "$f" && echo "   covered $f"
  done
  python3 -c "import pynvml; pynvml.nvmlInit(); print(\"   NVML ok, driver\", pynvml.nvmlSystemGetDriverVersion())" 2>&1 | tail -1
  serve vllm026-libcuda-missing-nvml-present 90 /tmp/tiny $TINY_ARGS '"$GMU"' --port 8903' &
J="$J $!"

# 4. transformers 4.44.2 first on PYTHONPATH
( export PYTHONPATH=/tmp/zc-tf:/tmp/site
  serve vllm026-transformers-4.44.2-first-on-pythonpath 60 /tmp/tiny $TINY_ARGS $GMU --port 8904 ) &
J="$J $!"

# 2. a stale unix socket file from a killed server
python3 -c "
import socket; s = socket.socket(socket.AF_UNIX); s.bind('/tmp/vllm.sock'); print('   stale socket left at /tmp/vllm.sock')"
ls -la /tmp/vllm.sock
( serve vllm026-uds-stale-socket-file 60 /tmp/tiny $TINY_ARGS $GMU --uds /tmp/vllm.sock ) &
J="$J $!"

sleep 50; echo "GPU apps at 50 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
cleanup_gpu
