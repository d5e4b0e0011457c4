# preload.py: a data-prep step that loads the tokenized corpus into host memory before training on the GPU.
import os, time, torch
dev = torch.device("cuda", 0)
print(f"torch {torch.__version__}, cuda {torch.version.cuda}, device {torch.cuda.get_device_name(dev)}", flush=True)
w = torch.randn(4096, 4096, device=dev)
print(f"GPU ready: {torch.cuda.mem_get_info(dev)[0] / 2**30:.1f} GiB free", flush=True)
n_tokens = 3 * 2**30                      # 3 Gi tokens, int32
print(f"loading {n_tokens} tokens ({n_tokens * 4 / 2**30:.0f} GiB) into host memory ...", flush=True)
corpus = torch.empty(n_tokens, dtype=torch.int32)
corpus.fill_(7)
print("corpus loaded", corpus.shape, flush=True)
