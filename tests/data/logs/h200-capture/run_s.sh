#!/usr/bin/env bash
# Capture run S (session 7, collector Z21): a sixteenth blind batch with real `vllm serve`
# (vLLM 0.26.0), set-ups not in the README's earlier batches. The wheel is staged as in run_r.sh
# (52 MiB chunks joined into /tmp/part0, part1..4 empty). Two-"node" job as in run_p.sh..run_r.sh.
# S_PART=1 (installs first), in parallel:
#   - two `vllm serve` of the same model launched together on the one GPU, each asking for
#     --gpu-memory-utilization 0.6 (two replicas scheduled onto the same GPU): 2 logs
#   - TP 2 over 2 nodes, an FP8 block-quantised (128x128) config with intermediate_size 384
#     (192 per rank)
#   - a model directory whose config.json was cut short (an interrupted copy)
#   - --max-num-batched-tokens 256 --no-enable-chunked-prefill with max_model_len 512
#   - torch.compile on (no --enforce-eager) with VLLM_CACHE_ROOT on a full 1 MiB volume
# S_PART=2 (same warm machine), in parallel:
#   - healthy: old-style env vars VLLM_ATTENTION_BACKEND / VLLM_USE_V1 (unknown to 0.26),
#     NCCL_DEBUG=INFO with P2P/SHM/IB disabled, two requests, SIGINT
#   - a tokenizer of another model (4099 tokens) beside a 1024-token model, text prompt
#   - --cpu-offload-gb 16 for a 7B shape in an 8 GiB memory cgroup (container limit)
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
S_PART=${S_PART:-1}
if [ "$S_PART" = 1 ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
. tests/data/logs/h200-capture/common.sh

pair() {  # as in run_q.sh / run_r.sh
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 15 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
    --nnodes 2 --node-rank 0 --master-addr "$addr0" --master-port "$mport" --port "$port" >> "$log" 2>&1 &
  local p0=$!
  wait $p0; local r0=$?; wait $p1; local r1=$?
  echo "   $name rc node0 $r0 node1 $r1  lines $(wc -l < "$log")"
  tail -n 3 "$log" | cut -c1-200
}
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; }
H0=NCCL_HOSTID=node0; H1=NCCL_HOSTID=node1
GMU="--gpu-memory-utilization 0.05"
# wait_health PORT SECONDS
wait_health() {
  python3 -c "
import sys, time, urllib.request
for i in range($2):
    try:
        urllib.request.urlopen('http://localhost:$1/health', timeout=2); print('   health $1 after', i, 's'); sys.exit(0)
    except Exception:
        time.sleep(1)
print('   no health on $1'); sys.exit(1)"
}
# complete PORT MODEL PROMPT_JSON
complete() {
  python3 -c "
import json, urllib.request
try:
    req = urllib.request.Request('http://localhost:$1/v1/completions', headers={'Content-Type': 'application/json'},
        data=json.dumps({'model': '$2', 'prompt': $3, 'max_tokens': 8}).encode())
    print('  ', urllib.request.urlopen(req, timeout=30).read()[:300])
except Exception as e:
    print('   request failed:', e, getattr(e, 'read', lambda: b'')()[:300])"
}

if [ "$S_PART" = 1 ]; then
python3 - <<'PY'
from transformers import LlamaConfig
# an FP8 block-quantised (128x128) checkpoint's config; intermediate_size 384 = 3 blocks
c = LlamaConfig(hidden_size=512, intermediate_size=384, num_hidden_layers=2, num_attention_heads=8,
                num_key_value_heads=4, vocab_size=1024, max_position_embeddings=512, torch_dtype="bfloat16")
c.quantization_config = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                         "weight_block_size": [128, 128]}
c.save_pretrained("/tmp/tiny-fp8-b128-i384")
PY
mkdir -p /tmp/tiny-cut && head -c 300 /tmp/tiny/config.json > /tmp/tiny-cut/config.json
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader
echo "--- /tmp/tiny-cut/config.json (first 300 bytes of /tmp/tiny/config.json):"; cat /tmp/tiny-cut/config.json; echo

# 1. two servers launched together on the one GPU, 0.6 each
serve vllm026-two-servers-together-0.6-each-a 130 /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.6 --port 8101 &
J="$!"
serve vllm026-two-servers-together-0.6-each-b 130 /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.6 --port 8102 &
J="$J $!"
# 2. FP8 block 128 over TP 2, intermediate 384
pair vllm026-2nodes-tp2-fp8-block128-intermediate-384 110 29801 8103 /tmp/tiny-fp8-b128-i384 "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 3. config.json cut short
serve vllm026-config-json-truncated 60 /tmp/tiny-cut $TINY_ARGS $GMU --port 8104 &
J="$J $!"
# 4. max-num-batched-tokens below max-model-len without chunked prefill
serve vllm026-max-num-batched-tokens-256-no-chunked-prefill 60 /tmp/tiny $TINY_ARGS $GMU \
  --max-num-batched-tokens 256 --no-enable-chunked-prefill --port 8105 &
J="$J $!"
# 5. torch.compile with its cache on a full volume
(
  name=vllm026-compile-cache-root-full-volume
  echo "== $name: VLLM_CACHE_ROOT=/mnt/vllm-cache (a 1 MiB tmpfs filled to 100%); vllm serve /tmp/tiny --load-format dummy --skip-tokenizer-init $GMU --port 8106 (no --enforce-eager)"
  timeout -s INT -k 15 150 unshare -m sh -c 'mkdir -p /mnt/vllm-cache && mount -t tmpfs -o size=1m tmpfs /mnt/vllm-cache && dd if=/dev/zero of=/mnt/vllm-cache/fill bs=4k 2>/dev/null; df -h /mnt/vllm-cache >&2; VLLM_CACHE_ROOT=/mnt/vllm-cache exec python3 -m vllm.entrypoints.cli.main serve /tmp/tiny --load-format dummy --skip-tokenizer-init '"$GMU"' --port 8106' > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
sleep 75; echo "GPU apps at 75 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$S_PART" = 2 ]; then
python3 - <<'PY'
import shutil
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
# a word-level tokenizer of another model: 4099 tokens, beside the 1024-token tiny model
vocab = {"[UNK]": 0, "<s>": 1, "</s>": 2}
vocab.update({f"w{i}": i + 3 for i in range(4096)})
tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.Whitespace()
PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", bos_token="<s>", eos_token="</s>").save_pretrained("/tmp/tiny-tok")
shutil.copy("/tmp/tiny/config.json", "/tmp/tiny-tok/config.json")
PY
ls /tmp/tiny-tok
ARGS_TOK="--load-format dummy --enforce-eager"
# 1. healthy, noisy env
(
  name=vllm026-old-env-vars-nccl-info-served-ok
  echo "== $name: VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_USE_V1=1 NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 vllm serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.2 --port 8201; two requests; SIGINT"
  VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_USE_V1=1 NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 \
    timeout -s INT -k 15 150 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny $TINY_ARGS --gpu-memory-utilization 0.2 --port 8201 > "$OUT/logs/$name.log" 2>&1 &
  p=$!
  wait_health 8201 130 && { complete 8201 /tmp/tiny '[1, 2, 3, 4]'; complete 8201 /tmp/tiny '[[5, 6], [7, 8, 9]]'; sleep 2; kill -INT $p; }
  wait $p; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$!"
# 2. tokenizer of another model (vocab 4099) beside a 1024-token model
(
  name=vllm026-tokenizer-vocab-4099-model-vocab-1024
  echo "== $name: vllm serve /tmp/tiny-tok $ARGS_TOK --gpu-memory-utilization 0.1 --port 8202; prompt 'w10 w2000 w3000'"
  timeout -s INT -k 15 150 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny-tok $ARGS_TOK --gpu-memory-utilization 0.1 --port 8202 > "$OUT/logs/$name.log" 2>&1 &
  p=$!
  wait_health 8202 130 && { complete 8202 /tmp/tiny-tok '"w10 w2000 w3000"'; sleep 5; complete 8202 /tmp/tiny-tok '"w10 w11"'; sleep 3; kill -INT $p; }
  wait $p; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 3. --cpu-offload-gb 16 in an 8 GiB memory cgroup
(
  name=vllm026-cpu-offload-16g-memory-cgroup-8g
  CG=/sys/fs/cgroup/vfixs
  mkdir -p $CG; grep -q memory /sys/fs/cgroup/cgroup.subtree_control || echo +memory > /sys/fs/cgroup/cgroup.subtree_control
  echo 8G > $CG/memory.max; echo 0 > $CG/memory.swap.max 2>/dev/null
  echo "== $name: cgroup memory.max $(cat $CG/memory.max); vllm serve /tmp/llama7b-128k --load-format dummy --skip-tokenizer-init --enforce-eager --max-model-len 4096 --gpu-memory-utilization 0.3 --cpu-offload-gb 16 --port 8203"
  ( echo $BASHPID > $CG/cgroup.procs && exec timeout -s INT -k 15 150 python3 -m vllm.entrypoints.cli.main serve /tmp/llama7b-128k $TINY_ARGS \
      --max-model-len 4096 --gpu-memory-utilization 0.3 --cpu-offload-gb 16 --port 8203 ) > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"; tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
  echo "   memory.events: $(tr '\n' ' ' < $CG/memory.events)"
  sleep 2; rmdir $CG 2>/dev/null
) &
J="$J $!"
wait $J
fi
sleep 2
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
