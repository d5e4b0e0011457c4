#!/usr/bin/env bash
# Capture run ZG (session 9, collector Z46): a blind batch, real `vllm serve` (vLLM 0.26.0) at TP 1
# or as two "nodes" on the one GPU (node 0 + a --headless node 1, one shared log, NCCL_HOSTID per
# node) as in run_p.sh..run_ze.sh. The wheel is staged as 52 MiB chunks joined into /tmp/part0
# (part1..4 empty), as in run_q.sh..run_ze.sh. Carry: .device/validate/whl and .device/validate/z46
# (compressed_tensors-0.9.4-py3-none-any.whl, an old release, git-ignored). Small servers use
# --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G so that servers starting together do
# not count each other.
# ZG_PART=1 (installs first), in parallel, TP 1:
#   1. versions: compressed-tensors 0.9.4 (as pulled in by an old llm-compressor) first on
#      PYTHONPATH, a model whose config.json holds a compressed-tensors FP8 quantization_config
#   2. visibility: libnvidia-ml covered (a container started with NVIDIA_DRIVER_CAPABILITIES=compute:
#      libcuda mounted, NVML not); the operator runs nvidia-smi, a torch check, then vllm serve
#   3. network: `vllm serve Qwen/Qwen2.5-1.5B-Instruct` (a hub id) on a node without Internet
#      access, empty HF cache, HF_HUB_OFFLINE unset
#   4. resources: the server in a cgroup with pids.max 40 (a container's --pids-limit)
#   5. other: a real tiny Llama checkpoint whose model.safetensors was cut to 55 % (interrupted copy)
#   6. versions: --attention-backend TRITON_ATTN with no C compiler on PATH (a slim image: Triton
#      builds its launcher with gcc/clang), fresh HOME (empty Triton cache); one request
#   7. healthy but noisy: --enable-log-requests --enable-log-outputs --uvicorn-log-level debug; a
#      streamed request abandoned by its client, a malformed JSON body, /metrics, one good request,
#      SIGINT
# ZG_PART=2, in parallel:
#   1. partitioning: a Mamba2 model with 12 SSM heads and 3 groups (n_groups 3), TP 2 over two "nodes"
#   2. partitioning: a deepseek-coder-1.3B GPTQ (4 bit, group 128) shape, intermediate 5504, TP 2 over
#      two "nodes" (down_proj input per rank 2752, not a multiple of 128)
#   3. resources: TP 2 over two "nodes", the head given the same number for --port and --master-port
#   4. network: TP 2 over two "nodes", node 1's --master-port the port of another HTTP service
#      (python3 -m http.server) instead of the head's master port
#   5. communication: TP 2 over two "nodes", the same model path on both, but node 1's copy has
#      vocab_size 32256 (256 added tokens) against 32000 on node 0, NCCL_DEBUG=INFO, memory profiling on
#   6. resources: a Qwen3-32B shape (40960 positions) at --gpu-memory-utilization 0.5
# ZG_PART=3, in parallel:
#   1. visibility: TP 4 over two "nodes" (2 GPUs per node asked, each node has 1)
#   2. communication: TP 2 over two "nodes", node 0 NCCL_SOCKET_IFNAME=eth0, node 1 NCCL_SOCKET_IFNAME=eno1
#      (heterogeneous NIC names), NCCL_DEBUG=INFO
#   3. visibility: CUDA_VISIBLE_DEVICES=MIG-<uuid> (a MIG instance UUID from another node; no MIG here)
#   4. resources: a Llama-3.1-405B-Instruct-FP8 (fbgemm_fp8) shape on the one GPU
# After part 3 (the fbgemm_fp8 405B config stopped at "fbgemm_fp8 is deprecated ... set
# `--allow-deprecated-quantization`"), one more call ran inline on the warm machine, not through this
# script (recorded in output/run_zg.out):
#   . common.sh; vllm serve /tmp/zg-llama3.1-405b-instruct-fp8 $TINY_ARGS --max-model-len 8192 \
#     --allow-deprecated-quantization --port 8746   (timeout -s INT -k 5 80), log
#   vllm026-llama3.1-405b-fp8-allow-deprecated-on-one-h200.log
# Call: ZG_PART=N timeout -k 5 LIMIT bash tests/data/logs/h200-capture/run_zg.sh 2>&1 | tee $OUT/run_zg-partN.out
set -u
set -m  # job control: background jobs do not ignore SIGINT (timeout -s INT must reach them)
ZG_PART=${ZG_PART:-1}
OUT=$(cd "$OUT" && pwd)

# model directories (node's own transformers/torch), made beside the install
python3 - "$ZG_PART" > /tmp/zg-prep.out 2>&1 <<'PY' &
import json, os, sys, traceback
part = sys.argv[1]
def make(fn):
    try:
        fn(); print("written:", fn.__name__)
    except Exception:
        traceback.print_exc()
def cfg(d, c):
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=512, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16")
def ct_fp8():
    c = dict(TINY)
    c["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
        "ignore": ["lm_head"], "kv_cache_scheme": None, "global_compression_ratio": None,
        "config_groups": {"group_0": {"targets": ["Linear"],
            "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True, "dynamic": False},
            "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "symmetric": True,
                                  "dynamic": True}}}}
    cfg("/tmp/zg-tiny-fp8-dynamic", c)
def cut_safetensors():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    d = "/tmp/zg-tiny-llama-cut"
    c = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=1024, max_position_embeddings=512)
    c.architectures = ["LlamaForCausalLM"]
    LlamaForCausalLM(c).to(torch.bfloat16).save_pretrained(d)
    f = os.path.join(d, "model.safetensors"); full = os.path.getsize(f)
    with open(f, "r+b") as fh:
        fh.truncate(full * 55 // 100)
    print("   model.safetensors cut from", full, "to", os.path.getsize(f), "bytes;", sorted(os.listdir(d)))
def mamba2_groups3():
    cfg("/tmp/zg-mamba2-ngroups3", dict(architectures=["Mamba2ForCausalLM"], model_type="mamba2", hidden_size=384,
        num_hidden_layers=2, num_heads=12, head_dim=64, expand=2, n_groups=3, state_size=64, conv_kernel=4,
        chunk_size=256, vocab_size=1024, torch_dtype="bfloat16", tie_word_embeddings=True))
def deepseek_coder_gptq():
    cfg("/tmp/zg-deepseek-coder-1.3b-gptq", dict(architectures=["LlamaForCausalLM"], model_type="llama",
        hidden_size=2048, intermediate_size=5504, num_hidden_layers=24, num_attention_heads=16,
        num_key_value_heads=16, vocab_size=32256, max_position_embeddings=16384, rope_theta=100000,
        rope_scaling={"type": "linear", "factor": 4.0}, rms_norm_eps=1e-6, hidden_act="silu",
        bos_token_id=32013, eos_token_id=32021, tie_word_embeddings=False, torch_dtype="float16",
        quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
                             "sym": True, "damp_percent": 0.1, "true_sequential": True,
                             "model_file_base_name": "model"}))
def vocab_drift():
    a = dict(TINY); a["vocab_size"] = 32000
    b = dict(TINY); b["vocab_size"] = 32256
    cfg("/tmp/zg-tiny-chat", a)          # node 0's copy
    cfg("/tmp/zg-tiny-chat-node1", b)    # node 1's copy (mounted at the same path on node 1)
def qwen3_32b():
    cfg("/tmp/zg-qwen3-32b", dict(architectures=["Qwen3ForCausalLM"], model_type="qwen3", hidden_size=5120,
        intermediate_size=25600, num_hidden_layers=64, num_attention_heads=64, num_key_value_heads=8,
        head_dim=128, vocab_size=151936, max_position_embeddings=40960, rope_theta=1000000.0,
        rms_norm_eps=1e-6, hidden_act="silu", attention_bias=False, tie_word_embeddings=False,
        torch_dtype="bfloat16"))
def llama405b_fp8():
    cfg("/tmp/zg-llama3.1-405b-instruct-fp8", dict(architectures=["LlamaForCausalLM"], model_type="llama",
        hidden_size=16384, intermediate_size=53248, num_hidden_layers=126, num_attention_heads=128,
        num_key_value_heads=8, vocab_size=128256, max_position_embeddings=131072, rope_theta=500000.0,
        rope_scaling={"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                      "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        rms_norm_eps=1e-5, hidden_act="silu", bos_token_id=128000, eos_token_id=[128001, 128008, 128009],
        tie_word_embeddings=False, torch_dtype="bfloat16",
        quantization_config={"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                             "modules_to_not_convert": ["lm_head"]}))
todo = {"1": (ct_fp8, cut_safetensors),
        "2": (mamba2_groups3, deepseek_coder_gptq, vocab_drift, qwen3_32b),
        "3": (llama405b_fp8,)}[part]
for f in todo:
    make(f)
PY
PREP=$!
if [ "$ZG_PART" = 1 ] || [ ! -d /tmp/site/vllm ]; then
  bash tests/data/logs/h200-capture/install.sh || exit $?
fi
wait $PREP; cat /tmp/zg-prep.out
. tests/data/logs/h200-capture/common.sh

# serve2 NAME LIMIT ENVDESC ARGS...: like common.sh's serve, with a kill timeout and the command as
# the log's first line (ENVDESC: the environment the operator set, shown before the command)
serve2() {
  local name=$1 limit=$2 envdesc=$3; shift 3
  echo "== $name: $envdesc vllm serve $*"
  { echo "\$ ${envdesc:+$envdesc }vllm serve $*"
    timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$@"; } > "$OUT/logs/$name.log" 2>&1
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
# pair NAME LIMIT MPORT PORT MODEL ENV0 ENV1 ADDR0 ADDR1 ARGS...: as in run_ze.sh (node 1's extra
# args in $N1EXTRA, node 1's master port in $N1MPORT, a wrapper for node 1 in $N1WRAP)
pair() {
  local name=$1 limit=$2 mport=$3 port=$4 model=$5 env0=$6 env1=$7 addr0=$8 addr1=$9; shift 9
  local mport1=${N1MPORT:-$mport}
  local log="$OUT/logs/$name.log"
  : > "$log"
  echo "== $name: node1: $env1 vllm serve $model $TINY_ARGS $* ${N1EXTRA:-} --nnodes 2 --node-rank 1 --master-addr $addr1 --master-port $mport1 --headless"
  echo "   node0: $env0 vllm serve $model $TINY_ARGS $* --nnodes 2 --node-rank 0 --master-addr $addr0 --master-port $mport --port $port"
  env $env1 timeout -s INT -k 10 "$limit" ${N1WRAP:-} python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" ${N1EXTRA:-} \
    --nnodes 2 --node-rank 1 --master-addr "$addr1" --master-port "$mport1" --headless >> "$log" 2>&1 &
  local p1=$!
  env $env0 timeout -s INT -k 10 "$limit" python3 -m vllm.entrypoints.cli.main serve "$model" $TINY_ARGS "$@" \
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
nvidia-smi --query-gpu=driver_version,memory.used --format=csv,noheader

if [ "$ZG_PART" = 1 ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/zg-ct-old \
  .device/validate/z46/compressed_tensors-0.9.4-py3-none-any.whl && ls /tmp/zg-ct-old
VB=$(dirname "$(command -v python3)"); PY=$(command -v python3)
echo "   python3: $PY; C compilers on PATH=$VB: $(PATH=$VB; command -v gcc cc clang || echo none)"
ls -la "$VB" | head -30 | awk '{print "   "$NF}' | tr '\n' ' '; echo

# 1. compressed-tensors 0.9.4 first on PYTHONPATH
( export PYTHONPATH=/tmp/zg-ct-old:/tmp/site
  serve2 vllm026-compressed-tensors-0.9.4-fp8-dynamic-model 80 "" /tmp/zg-tiny-fp8-dynamic $TINY_ARGS $GMU --port 8601 ) &
J="$!"
# 2. libnvidia-ml not mounted (NVIDIA_DRIVER_CAPABILITIES=compute), libcuda present
(
  name=vllm026-nvml-not-mounted-driver-capabilities-compute
  echo "== $name: (libnvidia-ml covered) nvidia-smi; torch check; vllm serve /tmp/tiny $TINY_ARGS $GMU --port 8602"
  unshare -m bash -c '
    for f in $(ldconfig -p | awk "/libnvidia-ml\.so/{print \$NF}" | xargs -r readlink -f | sort -u); do
      mount --bind /dev/null "$f" && echo "   covered $f" >&2
    done
    {
      echo "\$ nvidia-smi"; nvidia-smi
      echo "\$ python3 -c \"import torch; print(torch.cuda.is_available(), torch.cuda.device_count())\""
      python3 -c "import torch; print(torch.cuda.is_available(), torch.cuda.device_count())"
      echo "\$ vllm serve /tmp/tiny '"$TINY_ARGS $GMU"' --port 8602"
      timeout -s INT -k 10 80 python3 -m vllm.entrypoints.cli.main serve /tmp/tiny '"$TINY_ARGS $GMU"' --port 8602
    } > '"$OUT/logs/$name.log"' 2>&1'
  echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 3. a hub model id on a node without Internet access
( export HF_HOME=/tmp/zg-hf-empty; unset HF_HUB_OFFLINE TRANSFORMERS_OFFLINE
  serve2 vllm026-hub-model-id-no-internet 100 "" Qwen/Qwen2.5-1.5B-Instruct --port 8603 ) &
J="$J $!"
# 4. pids.max 40
(
  CG=/sys/fs/cgroup/zg_pids
  grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo +pids > /sys/fs/cgroup/cgroup.subtree_control
  mkdir -p $CG && echo 40 > $CG/pids.max && echo "   $CG/pids.max = $(cat $CG/pids.max)"
  ( echo $BASHPID > $CG/cgroup.procs && serve2 vllm026-container-pids-limit-40 100 "" /tmp/tiny $TINY_ARGS $GMU --port 8604 )
  echo "   pids.events: $(cat $CG/pids.events 2>/dev/null | tr '\n' ' ')"
  sleep 1; rmdir $CG 2>/dev/null || echo "   $CG not removed: $(cat $CG/cgroup.procs | tr '\n' ' ')"
) &
J="$J $!"
# 5. model.safetensors cut to 55 %
( serve2 vllm026-safetensors-truncated-copy 100 "" /tmp/zg-tiny-llama-cut --skip-tokenizer-init --enforce-eager $GMU --port 8605 ) &
J="$J $!"
# 6. Triton attention, no C compiler on PATH, fresh HOME; one request
(
  name=vllm026-triton-attn-no-c-compiler
  mkdir -p /tmp/zg-home-slim
  echo "== $name: HOME=/tmp/zg-home-slim PATH=$VB vllm serve /tmp/tiny $TINY_ARGS $GMU --attention-backend TRITON_ATTN --port 8606"
  {
    echo "\$ which gcc cc clang"; (PATH=$VB; command -v gcc cc clang) || true
    echo "\$ vllm serve /tmp/tiny $TINY_ARGS $GMU --attention-backend TRITON_ATTN --port 8606"
  } > "$OUT/logs/$name.log" 2>&1
  HOME=/tmp/zg-home-slim PATH=$VB /usr/bin/timeout -s INT -k 10 125 $PY -m vllm.entrypoints.cli.main serve /tmp/tiny \
    $TINY_ARGS $GMU --attention-backend TRITON_ATTN --port 8606 >> "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request, urllib.error
ok = False
for i in range(110):
    try:
        urllib.request.urlopen('http://localhost:8606/health', timeout=2); ok = True; break
    except Exception:
        time.sleep(1)
print('   triton server healthy:', ok, 'after', i, 's')
if ok:
    req = urllib.request.Request('http://localhost:8606/v1/completions', data=json.dumps({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8}).encode(), headers={'Content-Type': 'application/json'})
    try:
        print('   ', urllib.request.urlopen(req, timeout=30).read()[:200])
    except urllib.error.HTTPError as e:
        print('   ', e.code, e.read()[:200])
    except Exception as e:
        print('   request failed:', e)
    time.sleep(3)" || true
  kill -INT $S 2>/dev/null; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
# 7. healthy but noisy
(
  name=vllm026-debug-uvicorn-aborted-stream-served-ok
  echo "== $name: vllm serve /tmp/tiny $TINY_ARGS $GMU --enable-log-requests --enable-log-outputs --uvicorn-log-level debug --port 8607"
  echo "\$ vllm serve /tmp/tiny $TINY_ARGS $GMU --enable-log-requests --enable-log-outputs --uvicorn-log-level debug --port 8607" > "$OUT/logs/$name.log"
  timeout -s INT -k 15 140 $VS /tmp/tiny $TINY_ARGS $GMU --enable-log-requests --enable-log-outputs \
    --uvicorn-log-level debug --port 8607 >> "$OUT/logs/$name.log" 2>&1 &
  S=$!
  python3 -c "
import json, time, urllib.request, urllib.error
B = 'http://localhost:8607'
for i in range(120):
    try:
        urllib.request.urlopen(B + '/health', timeout=2); break
    except Exception:
        time.sleep(1)
def post(body, raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(B + '/v1/completions', data=data, headers={'Content-Type': 'application/json'})
    try:
        r = urllib.request.urlopen(req, timeout=30); return r
    except urllib.error.HTTPError as e:
        print('   ', e.code, e.read()[:160]); return None
r = post({'model': '/tmp/tiny', 'prompt': [5, 6, 7], 'max_tokens': 200, 'stream': True, 'ignore_eos': True})
if r is not None:
    print('   stream first line:', r.readline()[:100]); r.close()
time.sleep(1)
post(None, raw=b'{\"model\": \"/tmp/tiny\", \"prompt\": [1, 2, 3,')
print('   metrics bytes:', len(urllib.request.urlopen(B + '/metrics', timeout=10).read()))
r = post({'model': '/tmp/tiny', 'prompt': [1, 2, 3, 4], 'max_tokens': 8})
if r is not None:
    print('   ', r.status, r.read()[:160])
time.sleep(2)" || true
  kill -INT $S; wait $S; echo "   $name rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
) &
J="$J $!"
sleep 50; echo "GPU apps at 50 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi

if [ "$ZG_PART" = 2 ]; then
# 1. Mamba2, 3 SSM groups, TP 2 over 2 nodes
pair vllm026-2nodes-tp2-mamba2-ngroups-3 130 30301 8731 /tmp/zg-mamba2-ngroups3 "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$!"
# 2. deepseek-coder-1.3B GPTQ shape, TP 2 over 2 nodes
pair vllm026-2nodes-tp2-deepseek-coder-1.3b-gptq-g128-intermediate-5504 140 30302 8732 \
  /tmp/zg-deepseek-coder-1.3b-gptq "$H0" "$H1" 127.0.0.1 127.0.0.1 $GMU --max-model-len 4096 --tensor-parallel-size 2 &
J="$J $!"
# 3. the head's --port equal to its --master-port
pair vllm026-2nodes-tp2-api-port-equals-master-port 150 8733 8733 /tmp/tiny "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 4. node 1's --master-port at another HTTP service
python3 -m http.server 8744 --bind 0.0.0.0 > /tmp/zg-http-8744.log 2>&1 &
HTTPD=$!
( N1MPORT=8744
  pair vllm026-2nodes-tp2-node1-master-port-at-http-service 110 30304 8734 /tmp/tiny "$H0" "$H1" 127.0.0.1 127.0.0.1 \
    $GMU --tensor-parallel-size 2
  echo "   http.server log: $(tail -n 3 /tmp/zg-http-8744.log | tr '\n' ' ' | cut -c1-300)" ) &
J="$J $!"
# 5. node 1's copy of the model has vocab_size 32256, node 0's 32000 (same path), memory profiling on
printf '#!/bin/sh\nmount --bind /tmp/zg-tiny-chat-node1 /tmp/zg-tiny-chat || exit 90\nexec "$@"\n' > /tmp/zg-node1-model.sh
chmod +x /tmp/zg-node1-model.sh
( N1WRAP="unshare -m /tmp/zg-node1-model.sh"
  pair vllm026-2nodes-tp2-node1-model-copy-vocab-32256-vs-32000 140 30305 8735 /tmp/zg-tiny-chat \
    "$H0 NCCL_DEBUG=INFO" "$H1 NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 --gpu-memory-utilization 0.25 --tensor-parallel-size 2 ) &
J="$J $!"
# 6. Qwen3-32B shape at --gpu-memory-utilization 0.5
( serve2 vllm026-qwen3-32b-gpu-memory-utilization-0.5 140 "" /tmp/zg-qwen3-32b $TINY_ARGS --gpu-memory-utilization 0.5 --port 8736 ) &
J="$J $!"
sleep 60; echo "GPU apps at 60 s: $(gpu_apps | tr '\n' ' ')"
wait $J
kill $HTTPD 2>/dev/null
fi

if [ "$ZG_PART" = 3 ]; then
# 1. TP 4 over 2 nodes of one GPU each
pair vllm026-2nodes-tp4-one-gpu-per-node 90 30311 8741 /tmp/tiny "$H0" "$H1" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 4 &
J="$!"
# 2. heterogeneous NIC names: node 0 eth0, node 1 eno1
pair vllm026-2nodes-tp2-nccl-socket-ifname-eth0-vs-eno1 100 30312 8742 /tmp/tiny \
  "$H0 NCCL_SOCKET_IFNAME=eth0 NCCL_DEBUG=INFO" "$H1 NCCL_SOCKET_IFNAME=eno1 NCCL_DEBUG=INFO" 127.0.0.1 127.0.0.1 \
  $GMU --tensor-parallel-size 2 &
J="$J $!"
# 3. a MIG UUID from another node
( export CUDA_VISIBLE_DEVICES=MIG-5c29e8a1-8d3b-5e0f-9b7c-3f0a1d2e4b6c
  serve2 vllm026-cuda-visible-devices-mig-uuid-no-mig 70 "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES" /tmp/tiny $TINY_ARGS $GMU --port 8743 ) &
J="$J $!"
# 4. Llama-3.1-405B-FP8 shape on one GPU
( serve2 vllm026-llama3.1-405b-fp8-on-one-h200 110 "" /tmp/zg-llama3.1-405b-instruct-fp8 $TINY_ARGS --max-model-len 8192 --port 8745 ) &
J="$J $!"
sleep 45; echo "GPU apps at 45 s: $(gpu_apps | tr '\n' ' ')"
wait $J
fi
sleep 1
echo "GPU apps left: $(gpu_apps | tr '\n' ' ')"
cleanup_gpu
true
