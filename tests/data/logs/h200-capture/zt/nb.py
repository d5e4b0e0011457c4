# nb.py: the cells of an evaluation notebook, exported as a script and run top to bottom, as the kernel
# would run them when the user re-runs the "load model" cell after changing max_model_len.
import time
from vllm import LLM, SamplingParams

MODEL = "/workspace/models/llama-3.2-1b-instruct"
prompts = [{"prompt_token_ids": [128000, 791, 6864, 315, 9822, 374]},
           {"prompt_token_ids": [128000, 40, 1093, 311, 1518, 264, 5818]}]
sp = SamplingParams(max_tokens=16, temperature=0.0, detokenize=False)

print("In [2]: load model (max_model_len=4096)", flush=True)
llm = LLM(MODEL, load_format="dummy", skip_tokenizer_init=True, enforce_eager=True,
          gpu_memory_utilization=0.5, max_model_len=4096)

print("In [3]: generate", flush=True)
t = time.time()
for o in llm.generate(prompts, sp):
    print(o.request_id, o.outputs[0].token_ids, flush=True)
print(f"{len(prompts)} prompts in {time.time() - t:.2f}s", flush=True)

print("In [2]: load model (max_model_len=16384), cell edited and re-run", flush=True)
llm = LLM(MODEL, load_format="dummy", skip_tokenizer_init=True, enforce_eager=True,
          gpu_memory_utilization=0.5, max_model_len=16384)

print("In [3]: generate", flush=True)
for o in llm.generate(prompts, sp):
    print(o.request_id, o.outputs[0].token_ids, flush=True)
