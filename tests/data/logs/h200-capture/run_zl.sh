#!/usr/bin/env bash
# Z59 capture run ZL (second batch): faults made on purpose on the H200, real `vllm serve` (vLLM 0.26.0) and torch 2.11 / NCCL.
# Call (main, after p00..p06 were copied to /tmp/stage/ by earlier calls; p07 carried in this call):
#   timeout -k 5 585 bash .device/Z59/run_zl.sh 2>&1 | tee $OUT/run_zl.out
set -u
set -m   # background jobs keep SIGINT (timeout -s INT must reach them)
OUT=$(cd "$OUT" && pwd)
R=$(pwd)
Z=/tmp/z59
mkdir -p $Z "$OUT/logs" /tmp/stage
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0
T0=$SECONDS
ts() { echo "[t+$((SECONDS - T0))s] $*"; }

# ---------------------------------------------------------------- install vLLM (background)
(
  cp .device/stage/parts/p07 /tmp/stage/p07
  ls -la /tmp/stage
  cat /tmp/stage/p00 /tmp/stage/p01 /tmp/stage/p02 /tmp/stage/p03 /tmp/stage/p04 /tmp/stage/p05 /tmp/stage/p06 /tmp/stage/p07 > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/wx/whl/*.whl || exit 4
  echo "install ok"
) > $Z/install.out 2>&1 &
INST=$!

# ---------------------------------------------------------------- models
python3 - > $Z/prep.out 2>&1 <<'PY'
import json, os, glob, torch
from transformers import LlamaConfig, LlamaForCausalLM
# real tiny weights saved in 1 MB shards; only shard 1 copied, no index (a partial download)
lc = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
lc.architectures = ["LlamaForCausalLM"]
d = "/tmp/z59/tiny-shards"
LlamaForCausalLM(lc).to(torch.bfloat16).save_pretrained(d, max_shard_size="1MB")
print("saved:", sorted(os.listdir(d)))
for f in sorted(glob.glob(d + "/model-*.safetensors"))[1:] + glob.glob(d + "/*.index.json"):
    os.remove(f)
print("kept:", sorted(os.listdir(d)))
# open_llama_3b_v2 shape (Llama arch), compressed-tensors W4A16 group 128
q = {"quant_method": "compressed-tensors", "format": "pack-quantized", "quantization_status": "compressed",
     "ignore": ["lm_head"], "kv_cache_scheme": None, "global_compression_ratio": None,
     "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": None, "output_activations": None,
         "weights": {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 128,
                     "dynamic": False, "actorder": None, "observer": "minmax"}}}}
c = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=3200, intermediate_size=8640,
         num_hidden_layers=26, num_attention_heads=32, num_key_value_heads=32, vocab_size=32000,
         max_position_embeddings=2048, rms_norm_eps=1e-6, hidden_act="silu", tie_word_embeddings=False,
         bos_token_id=1, eos_token_id=2, torch_dtype="float16", quantization_config=q)
os.makedirs("/tmp/z59/open-llama-3b-v2-w4a16", exist_ok=True)
json.dump(c, open("/tmp/z59/open-llama-3b-v2-w4a16/config.json", "w"), indent=2)
print("written open-llama-3b-v2-w4a16")
PY
cat $Z/prep.out

VS="python3 -m vllm.entrypoints.cli.main serve"
TA="--load-format dummy --skip-tokenizer-init --enforce-eager"
GMU="--gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
fin() {
  echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"
  tail -n 3 "$OUT/logs/$1.log" | cut -c1-220
}
wait $INST; cat $Z/install.out
[ -d /tmp/site/vllm ] || { echo "vLLM not installed"; exit 5; }
export PYTHONPATH=/tmp/site VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
J=""
# L1 other: a sharded checkpoint of which only the first shard (and no index) was copied
( name=vllm026-partial-download-shard-1-of-4-no-index
  echo "== $name"
  echo "\$ vllm serve /tmp/z59/tiny-shards --skip-tokenizer-init --enforce-eager $GMU --port 8921" > $OUT/logs/$name.log
  timeout -s INT -k 10 150 $VS /tmp/z59/tiny-shards --skip-tokenizer-init --enforce-eager $GMU --port 8921 >> $OUT/logs/$name.log 2>&1
  fin $name $? ) &
J="$J $!"
# L2 partitioning: open_llama_3b_v2 shape, W4A16 group 128, TP 2 over two "nodes"
( name=vllm026-2nodes-tp2-open-llama-3b-w4a16-group-128
  log=$OUT/logs/$name.log
  M=/tmp/z59/open-llama-3b-v2-w4a16
  C="$VS $M $TA $GMU --tensor-parallel-size 2 --nnodes 2 --master-addr 127.0.0.1 --master-port 30921"
  echo "== $name"
  { echo "# node 1: \$ vllm serve $M $TA $GMU --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 30921 --headless"
    echo "# node 0: \$ vllm serve $M $TA $GMU --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 --master-port 30921 --port 8922"; } > $log
  NCCL_HOSTID=node1 timeout -s INT -k 10 160 $C --node-rank 1 --headless >> $log 2>&1 &
  p1=$!; sleep 1
  NCCL_HOSTID=node0 timeout -s INT -k 10 160 $C --node-rank 0 --port 8922 >> $log 2>&1 &
  p0=$!
  wait $p0; r0=$?; wait $p1; r1=$?
  fin $name "node0 $r0 node1 $r1" ) &
J="$J $!"
wait $J
ts "done; GPU apps: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' ')"
for k in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do kill -9 "$k" 2>/dev/null; done
ls -la "$OUT/logs"
tar -C "$OUT" -cf "$OUT/zl-logs.tar" logs && rm -r "$OUT/logs"
true
