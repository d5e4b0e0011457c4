# llm.py MODEL (Z161): the team's offline batch job: vllm.LLM on a model directory, text prompts from a file
import sys
from vllm import LLM, SamplingParams
model = sys.argv[1]
prompts = ["w12 w907 w33 w2048 w15", "w3071 w88 w4000 w19", "w7 w8 w9 w10"]
print(f"[batch] LLM({model!r}); {len(prompts)} prompts", flush=True)
llm = LLM(model=model, load_format="dummy", enforce_eager=True, gpu_memory_utilization=0.08, kv_cache_memory_bytes=1 << 30)
outs = llm.generate(prompts, SamplingParams(max_tokens=8, temperature=0.0))
for o in outs:
    print(f"[batch] {o.prompt!r} -> {o.outputs[0].text!r}", flush=True)
