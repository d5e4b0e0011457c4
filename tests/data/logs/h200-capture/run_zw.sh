#!/usr/bin/env bash
# Z112 capture run ZW: vLLM 0.26.0 / torch 2.11 faults made on purpose on the H200 (one batch call).
# Staging (earlier calls): p00..p06 copied to /tmp/stage/; p07 is carried in this call.
# Call: timeout -k 10 540 bash .device/Z112/run_zw.sh   (carry .device/stage/parts/p07 and .device/Z112)
set -u
set -m
OUT=$(cd "$OUT" && pwd)
D=$(cd "$(dirname "$0")" && pwd)
Z=/tmp/z112
mkdir -p $Z $Z/act "$OUT/logs" /tmp/stage
export LC_ALL=C.UTF-8 LANG=C.UTF-8 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SITE=${SITE:-/tmp/site}
T0=$SECONDS
LIMIT=5
ts() { echo "[t+$((SECONDS - T0))s] $*"; }
fin() { echo "   $1 rc $2  lines $(wc -l < "$OUT/logs/$1.log")  [t+$((SECONDS - T0))s]"; tail -n 6 "$OUT/logs/$1.log" | cut -c1-240 | sed 's/^/      /'; }
gpu_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' '; }
pack() { timeout 20 tar -C $OUT -cf $OUT/logs.tar logs; }
# ---------------------------------------------------------------- install vLLM
if [ ! -d $SITE/vllm ]; then
  [ -n "${FAKE:-}" ] || cp .device/stage/parts/p07 /tmp/stage/p07
  ls -la /tmp/stage
  cat /tmp/stage/p0[0-7] > /tmp/w.tar
  echo "45f0a1a70821cf07bfb8e0ac4ae7519a5812dca7a831052bda31bd571c5587e9  /tmp/w.tar" | sha256sum -c || exit 3
  mkdir -p /tmp/wx && tar -C /tmp/wx -xf /tmp/w.tar && rm /tmp/w.tar
  timeout 240 python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE /tmp/wx/whl/*.whl 2>&1 | tail -n 3
fi
[ -d $SITE/vllm ] || { echo "not installed"; exit 5; }
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH VLLM_USE_FLASHINFER_SAMPLER=0
ts "installed"
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
# ---------------------------------------------------------------- models
MD=/workspace/models; mkdir -p $MD
[ -n "${FAKE:-}" ] || timeout 120 python3 - <<'PY'
import json, os
def cfg(d, **kw):
    os.makedirs(d, exist_ok=True)
    c = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "rms_norm_eps": 1e-05, "hidden_act": "silu",
         "torch_dtype": "bfloat16", "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False}
    c.update(kw); json.dump(c, open(f"{d}/config.json", "w"), indent=1)
M = "/workspace/models"
tiny = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=1024, max_position_embeddings=2048)
cfg(f"{M}/tiny-llama", **tiny)
cfg(f"{M}/tiny-llama-bpe", **tiny)
# a 256k-vocabulary model (Gemma-3-style vocabulary on a Llama body), 32k context
cfg(f"{M}/llama-262k-vocab-32k", hidden_size=2048, intermediate_size=8192, num_hidden_layers=6, num_attention_heads=16,
    num_key_value_heads=4, vocab_size=262144, max_position_embeddings=32768, tie_word_embeddings=True, rope_theta=1000000.0)
# Llama-3.2-1B shape (the rollout model of an RLHF job)
cfg(f"{M}/llama-3.2-1b-shape", hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
    num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, tie_word_embeddings=True, rope_theta=500000.0,
    bos_token_id=128000, eos_token_id=128001)
from tokenizers import Tokenizer, models, trainers, pre_tokenizers, decoders
from transformers import PreTrainedTokenizerFast
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
text = [open(f, errors="ignore").read() for f in
        [os.path.join(os.path.dirname(json.__file__), n) for n in ("decoder.py", "encoder.py", "scanner.py", "__init__.py")]]
tr = trainers.BpeTrainer(vocab_size=1000, special_tokens=["<unk>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train_from_iterator(text * 4, tr)
PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>").save_pretrained(f"{M}/tiny-llama-bpe")
print("models:", sorted(os.listdir(M)), "bpe files:", sorted(os.listdir(f"{M}/tiny-llama-bpe")), "vocab", tok.get_vocab_size())
PY
ts "models ready"
VS="python3 -m vllm.entrypoints.cli.main serve"; [ -n "${FAKE:-}" ] && VS="python3 $D/fake_serve.py"
M=$MD/tiny-llama
SM="--load-format dummy --skip-tokenizer-init --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G"
used() { local s=0 f; for f in $Z/act/*; do [ -e "$f" ] && s=$((s + ${f##*.})); done; echo $s; }
J=""
launch() {  # launch WEIGHT NAME FUNC
  local w=$1 n=$2 fn=$3
  while [ $(( $(used) + w )) -gt $LIMIT ]; do sleep 2; done
  touch $Z/act/$n.$w; ts "launch $n (servers running: $(used))"
  ( $fn; rm -f $Z/act/$n.$w ) & J="$J $!"
}
stopwait() { local p=$1 s=$2 i; for i in $(seq $s); do kill -0 $p 2>/dev/null || break; sleep 1; done
  kill -INT $p 2>/dev/null; for i in $(seq 20); do kill -0 $p 2>/dev/null || break; sleep 1; done; kill -KILL $p 2>/dev/null; }
# serve NAME PORT LIMIT "ENV" "ARGS" "CLIENT ACTIONS" [ZQ env]: run one server with a client; the log has the command line
serve() { local name=$1 port=$2 lim=$3 env=$4 args=$5 ca=$6 zenv=${7:-}; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ ${env:+$env }vllm serve $args --port $port" >> $log
  env $env timeout -s INT -k 10 $lim $VS $args --port $port >> $log 2>&1 &
  local p=$!
  if [ -n "$ca" ]; then env $zenv python3 $D/zq.py $port $((lim - 20)) $ca >> $log 2>&1; sleep 2; kill -INT $p 2>/dev/null; fi
  stopwait $p $lim; wait $p; local rc=$?; fin $name $rc; }

# ---- A1 other (front end): --chat-template points at a ConfigMap file that is not mounted
j_chat() { serve h200-vllm026-chat-template-configmap-not-mounted 8301 90 "" \
  "$M $SM --chat-template /etc/vllm/templates/llama-3.1-chat.jinja" ""; }
# ---- A2 other (front end): tool parser name from an old blog post (llama3.1_json; vLLM has llama3_json)
j_tool() { serve h200-vllm026-tool-call-parser-llama3.1-json-not-registered 8302 90 "" \
  "$M $SM --enable-auto-tool-choice --tool-call-parser llama3.1_json" ""; }
# ---- A6 versions: the platform's auth middleware package is not installed in the new image
j_mw() { serve h200-vllm026-middleware-module-not-installed 8303 150 "" \
  "$M $SM --middleware acme_gateway.auth.TenantAuthMiddleware" ""; }
# ---- A3 resources: HF_HOME is a read-only volume (pre-populated cache); model with custom config code, --trust-remote-code
j_hfro() { local name=h200-vllm026-hf-home-read-only-volume-trust-remote-code; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  mkdir -p /data/hf-cache
  cat > $Z/hfro.sh <<S
mount -t tmpfs -o size=64m tmpfs /data/hf-cache || exit 7
A=/data/hf-cache/models/acme-llama-chat
mkdir -p /data/hf-cache/hub \$A
cat > \$A/config.json <<'C'
{"architectures": ["LlamaForCausalLM"], "model_type": "acme_llama", "auto_map": {"AutoConfig": "configuration_acme.AcmeLlamaConfig"},
 "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "vocab_size": 1024, "max_position_embeddings": 2048, "rms_norm_eps": 1e-05, "hidden_act": "silu", "torch_dtype": "bfloat16",
 "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": false}
C
cat > \$A/configuration_acme.py <<'C'
from transformers import LlamaConfig


class AcmeLlamaConfig(LlamaConfig):
    model_type = "acme_llama"
C
mount -o remount,ro /data/hf-cache || exit 8
echo "\$ mount | grep hf-cache"; mount | grep hf-cache
echo "\$ ls -la \$A"; ls -la \$A
echo "\$ HF_HOME=/data/hf-cache vllm serve \$A --trust-remote-code $SM --port 8304"
export HF_HOME=/data/hf-cache
exec timeout -s INT -k 10 100 $VS \$A --trust-remote-code $SM --port 8304
S
  unshare -m sh $Z/hfro.sh >> $log 2>&1 &
  local p=$!
  python3 $D/zq.py 8304 80 comp >> $log 2>&1; sleep 2; kill -INT $p 2>/dev/null
  stopwait $p 30; wait $p; fin $name $?; }
# ---- O1 resources: structured outputs with the outlines backend and its on-disk cache (VLLM_V1_USE_OUTLINES_CACHE=1)
#      on a small cache volume that earlier caches filled
j_ofull() { local name=h200-vllm026-structured-outputs-outlines-cache-volume-full; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  mkdir -p /var/cache/outlines
  local SO='{"backend": "outlines"}' MB=$MD/tiny-llama-bpe
  cat > $Z/ofull.sh <<S
mount -t tmpfs -o size=2m tmpfs /var/cache/outlines || exit 7
mkdir -p /var/cache/outlines/old-20261103
i=0; while dd if=/dev/urandom of=/var/cache/outlines/old-20261103/cache-\$i.db bs=64k count=4 2>/dev/null; do i=\$((i+1)); [ \$i -gt 64 ] && break; done
echo "\$ df -h /var/cache/outlines"; df -h /var/cache/outlines
echo "\$ VLLM_V1_USE_OUTLINES_CACHE=1 OUTLINES_CACHE_DIR=/var/cache/outlines vllm serve $MB --load-format dummy --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G --structured-outputs-config '$SO' --port 8305"
export VLLM_V1_USE_OUTLINES_CACHE=1 OUTLINES_CACHE_DIR=/var/cache/outlines
exec timeout -s INT -k 10 150 $VS $MB --load-format dummy --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G --structured-outputs-config '$SO' --port 8305
S
  unshare -m sh $Z/ofull.sh >> $log 2>&1 &
  local p=$!
  ZQ_MODEL=$MB python3 $D/zq.py 8305 130 text json sleep:2 json text >> $log 2>&1; sleep 2; kill -INT $p 2>/dev/null
  stopwait $p 30; wait $p; fin $name $?; }
# ---- H2 healthy: the same outlines set-up on a writable cache dir (WARNING 'unbounded on-disk cache')
j_ook() { mkdir -p /var/cache/outlines-ok; local MB=$MD/tiny-llama-bpe
  serve h200-vllm026-structured-outputs-outlines-disk-cache-warning-served-ok 8306 150 \
  "VLLM_V1_USE_OUTLINES_CACHE=1 OUTLINES_CACHE_DIR=/var/cache/outlines-ok" \
  "$MB --load-format dummy --enforce-eager --gpu-memory-utilization 0.05 --kv-cache-memory-bytes 1G --structured-outputs-config {\"backend\":\"outlines\"}" \
  "text json json text" "ZQ_MODEL=$MB"; }
# ---- H1 healthy: --api-key; unauthenticated probes (401), a TLS/junk port scanner, keyed clients (200);
#      A7 resources: then a second vllm serve in the same pod (embedding sidecar copied from the same template) on the same port
j_key() { local name=h200-vllm026-api-key-unauthenticated-probes-tls-scanner-served-ok; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "\$ VLLM_API_KEY=<secret> vllm serve $M $SM --port 8307" >> $log
  VLLM_API_KEY=sk-prod-7f3a91 timeout -s INT -k 10 150 $VS $M $SM --port 8307 >> $log 2>&1 &
  local p=$!
  ZQ_KEY=sk-prod-7f3a91 python3 $D/zq.py 8307 120 comp noauth:/v1/models tls junk noauth:/v1/models comp tls get:/v1/models comp \
    sh:"touch $Z/key-up" sleep:25 comp >> $log 2>&1; sleep 2; kill -INT $p 2>/dev/null
  stopwait $p 30; wait $p; fin $name $?; }
j_port2() { local t=0; while [ ! -e $Z/key-up ] && [ $t -lt 150 ]; do sleep 1; t=$((t+1)); done
  serve h200-vllm026-second-server-in-pod-same-port-8307 8307 60 "" "$M $SM --served-model-name embed-sidecar" ""; }
# ---- T1 resources (torch): training job as a service user whose nproc limit is 32 (limits.conf), DataLoader 16 workers
j_nproc() { local name=h200-torch-dataloader-16-workers-service-user-nproc-32; local log=$OUT/logs/$name.log
  echo "== $name  [t+$((SECONDS - T0))s]"
  mkdir -p /srv/train && cp $D/dl.py /srv/train/train.py && chmod -R a+rX /srv/train
  { echo "# service user svc-train (uid 65534); /etc/security/limits.conf: svc-train hard nproc 32"
    echo "\$ cd /srv/train && prlimit --nproc=32:32 setpriv --reuid=65534 --regid=65534 --clear-groups bash -c 'ulimit -u; exec python3 train.py'"; } > $log
  ( cd /srv/train && exec prlimit --nproc=32:32 setpriv --reuid=65534 --regid=65534 --clear-groups \
      env HOME=/tmp PYTHONPATH= timeout -k 5 90 bash -c 'ulimit -u; exec python3 train.py' ) >> $log 2>&1
  fin $name $?; }
# ---- V1 resources: 256k-vocab model at the default --gpu-memory-utilization 0.9, --max-num-batched-tokens 32768;
#      an eval harness sends a 30000-token loglikelihood request with prompt_logprobs while serving
j_plp() { serve h200-vllm026-serving-prompt-logprobs-30k-token-prompt-vocab-262k-engine-oom 8308 200 "" \
  "$MD/llama-262k-vocab-32k --load-format dummy --skip-tokenizer-init --enforce-eager --max-model-len 32768 --max-num-batched-tokens 32768" \
  "comp plp:30000 sleep:3 get:/health comp" "ZQ_MODEL=$MD/llama-262k-vocab-32k ZQ_VOCAB=262144"; }
# ---- V2 resources: RLHF-style colocation: the rollout server sleeps (level 1), the trainer step keeps the GPU memory
#      it took cached, then /wake_up
j_sleep() { local name=h200-vllm026-sleep-mode-wake-up-after-colocated-trainer-kept-gpu-memory; local log=$OUT/logs/$name.log
  local MS=$MD/llama-3.2-1b-shape; rm -f $Z/go-hog*
  echo "== $name  [t+$((SECONDS - T0))s]"
  echo "# colocated trainer process (same GPU, same pod): python3 trainer.py" >> $log
  python3 $D/hog.py $Z/go-hog $Z/stop-hog >> $log 2>&1 &
  local h=$!
  for i in $(seq 60); do [ -e $Z/go-hog.ready ] && break; sleep 0.5; done
  echo "\$ VLLM_SERVER_DEV_MODE=1 vllm serve $MS --load-format dummy --skip-tokenizer-init --enforce-eager --enable-sleep-mode --gpu-memory-utilization 0.5 --max-model-len 4096 --port 8309" >> $log
  VLLM_SERVER_DEV_MODE=1 timeout -s INT -k 10 200 $VS $MS --load-format dummy --skip-tokenizer-init --enforce-eager \
    --enable-sleep-mode --gpu-memory-utilization 0.5 --max-model-len 4096 --port 8309 >> $log 2>&1 &
  local p=$!
  ZQ_MODEL=$MS ZQ_VOCAB=128256 ZQ_TO=30 python3 $D/zq.py 8309 150 comp comp post:/sleep?level=1 get:/is_sleeping \
    sh:"touch $Z/go-hog" waitfile:$Z/go-hog.held sh:"nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv" \
    post:/wake_up get:/is_sleeping comp >> $log 2>&1
  sleep 2; kill -INT $p 2>/dev/null; stopwait $p 40; wait $p; local rc=$?
  touch $Z/stop-hog; wait $h; fin $name "$rc"; }

JOBS=${JOBS:-"nproc chat tool hfro ofull mw key port2 ook"}
for j in $JOBS; do
  case $j in nproc) ( j_nproc ) & J="$J $!" ;; port2) ( j_port2 ) & J="$J $!" ;; key) launch 2 key j_key ;; *) launch 1 $j j_$j ;; esac
done
ts "phase A launched; GPU apps: $(gpu_apps)"
pack
wait $J; J=""
ts "phase A done; GPU apps: $(gpu_apps)"
pack
JOBS2=${JOBS2:-plp sleep}
for j in $JOBS2; do
  ts "launch $j; GPU apps: $(gpu_apps)"
  j_$j
  pack
done
ts "all done; GPU apps: $(gpu_apps)"
pack && rm -rf $OUT/logs
ls -la $OUT
