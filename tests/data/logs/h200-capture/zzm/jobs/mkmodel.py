# mkmodel.py OUT PRESET FORMAT [TP] [SEED]: write a model directory for tinyserve: config.json and, per FORMAT,
#   pt    OUT/tp{TP}/rank{r:02d}.pt           one torch.save'd dict of this rank's shard (bfloat16)
#   npmm  OUT/tp{TP}/rank{r:02d}/*.bin         raw float16 arrays + index.json (memory-mapped by the server)
#   none  config.json only
import json, os, sys
import numpy as np
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tp_shard import full_weights, shard

PRESETS = {
    # a small chat model (Llama-style)
    "tinyllama-chat": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512,
                       "num_attention_heads": 8, "num_key_value_heads": 8, "intermediate_size": 1536,
                       "num_hidden_layers": 4, "vocab_size": 8192, "max_position_embeddings": 2048,
                       "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16"},
    # the same with a 32000-entry vocabulary (Llama-2 tokenizer)
    "tinyllama-32k": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512,
                      "num_attention_heads": 8, "num_key_value_heads": 8, "intermediate_size": 1536,
                      "num_hidden_layers": 4, "vocab_size": 32000, "max_position_embeddings": 4096,
                      "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16"},
    # a small model whose heads, KV heads, intermediate size and vocabulary split over TP 3
    "tinyllama-tp3": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 576,
                      "num_attention_heads": 9, "num_key_value_heads": 3, "intermediate_size": 1536,
                      "num_hidden_layers": 4, "vocab_size": 24576, "max_position_embeddings": 2048,
                      "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16"},
    # bigcode/starcoder2-15b's config.json (the fields tinyserve reads)
    "starcoder2-15b": {"architectures": ["Starcoder2ForCausalLM"], "model_type": "starcoder2", "hidden_size": 6144,
                       "num_attention_heads": 48, "num_key_value_heads": 4, "intermediate_size": 24576,
                       "num_hidden_layers": 40, "vocab_size": 49152, "max_position_embeddings": 16384,
                       "rms_norm_eps": 1e-5, "torch_dtype": "bfloat16"},
}

out, preset, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
tp = int(sys.argv[4]) if len(sys.argv) > 4 else 1
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
cfg = PRESETS[preset]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "config.json"), "w") as f:
    json.dump(cfg, f, indent=2)
if fmt == "none":
    print(f"wrote {out}/config.json ({preset})")
    sys.exit(0)
full = full_weights(cfg, seed)
total = 0
for r in range(tp):
    sd = shard(full, cfg, tp, r)
    if fmt == "pt":
        d = os.path.join(out, f"tp{tp}")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, f"rank{r:02d}.pt")
        torch.save({k: v.to(torch.bfloat16) for k, v in sd.items()}, path)
        total += os.path.getsize(path)
    elif fmt == "npmm":
        d = os.path.join(out, f"tp{tp}", f"rank{r:02d}")
        os.makedirs(d, exist_ok=True)
        index = {"format": "tinyserve-npmm-1", "tp": tp, "rank": r, "weights": {}}
        for k, v in sd.items():
            fn = k.replace("model.", "", 1).replace(".weight", "") + ".bin"
            a = v.to(torch.float16).numpy()
            a.tofile(os.path.join(d, fn))
            index["weights"][k] = {"file": fn, "dtype": "float16", "shape": list(a.shape)}
            total += a.nbytes
        with open(os.path.join(d, "index.json"), "w") as f:
            json.dump(index, f, indent=1)
    else:
        sys.exit(f"unknown format {fmt}")
print(f"wrote {out} ({preset}, {fmt}, tp {tp}, {total / 2**20:.1f} MiB)")
