# SPMD offline inference: one vLLM engine per torchrun rank, TP across the ranks
import os
import torch.distributed as dist
from vllm import LLM, SamplingParams

llm = LLM(model="/workspace/models/tiny-llama", tensor_parallel_size=int(os.environ["WORLD_SIZE"]),
          distributed_executor_backend="external_launcher", load_format="dummy", skip_tokenizer_init=True,
          enforce_eager=True, gpu_memory_utilization=0.1, max_model_len=1024, seed=0)
outs = llm.generate([{"prompt_token_ids": [1, 2, 3, 4, 5]}] * 4, SamplingParams(max_tokens=8, temperature=0.0))
if dist.get_rank() == 0:
    for o in outs:
        print(o.outputs[0].token_ids)
