# offline batch generation with the fine-tuned checkpoint
import sys
from vllm import LLM, SamplingParams

model = sys.argv[1] if len(sys.argv) > 1 else "/workspace/models/llama-sft-merged"
llm = LLM(model=model, skip_tokenizer_init=True, enforce_eager=True, gpu_memory_utilization=0.1, max_model_len=1024)
prompts = [{"prompt_token_ids": [1, 15, 27, 99, 310, 42]}, {"prompt_token_ids": [1, 7, 8, 9]}]
for out in llm.generate(prompts, SamplingParams(max_tokens=16, temperature=0.0)):
    print(out.outputs[0].token_ids)
