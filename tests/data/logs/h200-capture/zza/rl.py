# rl.py MODE: vllm.LLM on a running Ray cluster (RAY_ADDRESS), distributed_executor_backend="ray", tiny dummy model.
#   ok  : ray.init(runtime_env={"env_vars": {...}}) as the team's launcher does, then generate
#   pip : ray.init(runtime_env={"pip": [...]}) from the notebook template written for a cluster with internet access
import os, sys, ray
mode = sys.argv[1]
if mode == "ok":
    renv = {"env_vars": {"VLLM_USE_FLASHINFER_SAMPLER": "0", "NCCL_DEBUG": "WARN", "HF_HUB_OFFLINE": "1"}}
else:
    renv = {"pip": ["vllm==0.26.0", "flash-attn==2.8.3"]}
print(f"ray.init(address={os.environ.get('RAY_ADDRESS')!r}, runtime_env={renv!r})", flush=True)
ray.init(runtime_env=renv)
from vllm import LLM, SamplingParams
llm = LLM(model="/workspace/models/tiny-llama", load_format="dummy", skip_tokenizer_init=True, enforce_eager=True,
          gpu_memory_utilization=0.08, kv_cache_memory_bytes=1 << 30, distributed_executor_backend="ray")
outs = llm.generate([{"prompt_token_ids": [5 + i, 17, 99, 300, 512]} for i in range(4)], SamplingParams(max_tokens=8, detokenize=False))
for o in outs:
    print(f"{o.prompt_token_ids} -> {o.outputs[0].token_ids}", flush=True)
print("generate done", flush=True)
