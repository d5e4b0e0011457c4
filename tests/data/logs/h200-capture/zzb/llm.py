# llm.py MODE (Z153): offline vllm.LLM jobs
#   maxlen : LLM(max_model_len=8192) on /workspace/models/llama-32k-ft (a 32k fine-tune)
#   gen    : LLM on the tiny model, generate (the service's batch job)
import sys, time
mode = sys.argv[1]
print(f"[llm.py] python {sys.executable} {sys.version.split()[0]}", flush=True)
from vllm import LLM, SamplingParams
if mode == "maxlen":
    llm = LLM(model="/workspace/models/llama-32k-ft", load_format="dummy", skip_tokenizer_init=True, enforce_eager=True,
              gpu_memory_utilization=0.08, kv_cache_memory_bytes=2 << 30, max_model_len=8192)
else:
    llm = LLM(model="/workspace/models/tiny-llama", load_format="dummy", skip_tokenizer_init=True, enforce_eager=True,
              gpu_memory_utilization=0.08, kv_cache_memory_bytes=1 << 30)
sp = SamplingParams(max_tokens=16, detokenize=False)
out = llm.generate([{"prompt_token_ids": [5, 17, 99, 300, 512, 7, 8, 9]}], sp)
print("[llm.py] generated token ids:", out[0].outputs[0].token_ids, flush=True)
