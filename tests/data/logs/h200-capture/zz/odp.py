# odp.py: offline data-parallel generation as in vLLM's examples/offline_inference/data_parallel.py
#   (each DP rank is its own process; VLLM_DP_RANK / VLLM_DP_SIZE / VLLM_DP_MASTER_IP / VLLM_DP_MASTER_PORT from the launcher)
import os
from vllm import LLM, SamplingParams
rank, size = int(os.environ["VLLM_DP_RANK"]), int(os.environ["VLLM_DP_SIZE"])
prompts = [{"prompt_token_ids": [5 + i, 17, 99, 300, 512]} for i in range(8)][rank::size]
print(f"DP rank {rank}/{size}: {len(prompts)} prompts", flush=True)
llm = LLM(model=os.environ.get("ODP_MODEL", "/workspace/models/tiny-llama"), load_format="dummy", skip_tokenizer_init=True,
          enforce_eager=True, gpu_memory_utilization=0.08, kv_cache_memory_bytes=1 << 30)
outs = llm.generate(prompts, SamplingParams(max_tokens=8, detokenize=False))
for o in outs:
    print(f"DP rank {rank}: {o.prompt_token_ids} -> {o.outputs[0].token_ids}", flush=True)
