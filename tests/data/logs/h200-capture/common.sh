# Sourced by the capture runs: vLLM 0.26.0 installed in /tmp/site (see install.sh), logs to $OUT/logs.
export LC_ALL=C.UTF-8 LANG=C.UTF-8 PYTHONPATH=/tmp/site VLLM_USE_FLASHINFER_SAMPLER=0
mkdir -p "$OUT/logs"
TINY_ARGS="--load-format dummy --skip-tokenizer-init --enforce-eager"

# serve NAME TIMEOUT_S ARGS...: one `vllm serve` run, its whole output kept as logs/NAME.log
serve() {
  local name=$1 limit=$2; shift 2
  echo "== $name: vllm serve $*"
  timeout -s INT "$limit" python3 -m vllm.entrypoints.cli.main serve "$@" > "$OUT/logs/$name.log" 2>&1
  echo "   rc $?  lines $(wc -l < "$OUT/logs/$name.log")"
  tail -n 3 "$OUT/logs/$name.log" | cut -c1-200
}
