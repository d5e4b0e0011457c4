# prep.py: model directories (config.json only, weights are --load-format dummy), two LoRA adapters
# (one valid, one half-copied), and a leftover vLLM general plugin from an old image.  Pure Python.
import json, os, random, struct, sys

R = os.environ.get("Z90_ROOT", "")
M = R + "/workspace/models"
def cfg(d, c):
    os.makedirs(d, exist_ok=True)
    json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=2)

TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
cfg(f"{M}/tiny-llama", TINY)
# Llama-3-8B shape (bf16 weights ~16 GB)
L8 = dict(TINY); L8.update(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                           num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0,
                           bos_token_id=128000, eos_token_id=128001)
cfg(f"{M}/llama-3-8b-instruct", L8)
# Llama-3.2-1B shape
L1 = dict(TINY); L1.update(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                           num_key_value_heads=8, head_dim=64, vocab_size=128256, max_position_embeddings=131072,
                           rope_theta=500000.0, tie_word_embeddings=True, bos_token_id=128000, eos_token_id=128001,
                           rope_scaling=dict(factor=32.0, high_freq_factor=4.0, low_freq_factor=1.0,
                                             original_max_position_embeddings=8192, rope_type="llama3"))
cfg(f"{M}/llama-3.2-1b-instruct", L1)
# Qwen1.5-1.8B-Chat-AWQ shape (intermediate_size 5504, AWQ 4-bit, group 128)
QA = dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=2048, intermediate_size=5504,
          num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16, vocab_size=151936,
          max_position_embeddings=32768, max_window_layers=21, rms_norm_eps=1e-6, rope_theta=1000000.0,
          hidden_act="silu", torch_dtype="float16", tie_word_embeddings=False, use_sliding_window=False,
          bos_token_id=151643, eos_token_id=151645,
          quantization_config=dict(quant_method="awq", bits=4, group_size=128, zero_point=True, version="gemm"))
cfg(f"{M}/qwen1.5-1.8b-chat-awq", QA)

# ---- LoRA adapters (PEFT layout) for tiny-llama
def safetensors(path, tensors):
    hdr, blobs, off = {}, [], 0
    for name, shape in tensors:
        n = 1
        for s in shape: n *= s
        b = struct.pack(f"<{n}f", *[random.uniform(-0.02, 0.02) for _ in range(n)])
        hdr[name] = dict(dtype="F32", shape=list(shape), data_offsets=[off, off + len(b)])
        blobs.append(b); off += len(b)
    hdr["__metadata__"] = {"format": "pt"}
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h))); f.write(h)
        for b in blobs: f.write(b)

def adapter(d, r, modules):
    os.makedirs(d, exist_ok=True)
    json.dump(dict(peft_type="LORA", base_model_name_or_path=f"{M}/tiny-llama", r=r, lora_alpha=2 * r,
                   lora_dropout=0.05, target_modules=modules, bias="none", task_type="CAUSAL_LM",
                   fan_in_fan_out=False, modules_to_save=None, use_rslora=False, use_dora=False),
              open(os.path.join(d, "adapter_config.json"), "w"), indent=2)
    dims = dict(q_proj=(256, 256), k_proj=(256, 128), v_proj=(256, 128), o_proj=(256, 256),
                gate_proj=(256, 512), up_proj=(256, 512), down_proj=(512, 256))
    ts = []
    for layer in range(TINY["num_hidden_layers"]):
        for m in modules:
            blk = "mlp" if m in ("gate_proj", "up_proj", "down_proj") else "self_attn"
            i, o = dims[m]
            p = f"base_model.model.model.layers.{layer}.{blk}.{m}"
            ts += [(f"{p}.lora_A.weight", (r, i)), (f"{p}.lora_B.weight", (o, r))]
    safetensors(os.path.join(d, "adapter_model.safetensors"), ts)
    return os.path.getsize(os.path.join(d, "adapter_model.safetensors"))

L = R + "/workspace/lora"
adapter(f"{L}/sql-r8", 8, ["q_proj", "v_proj"])
full = adapter(f"{L}/support-r16", 16, ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
# the sync from object storage was still running: the file is only 58% there
p = f"{L}/support-r16/adapter_model.safetensors"
with open(p, "r+b") as f: f.truncate(int(full * 0.58))
print(f"support-r16 adapter_model.safetensors: {os.path.getsize(p)} of {full} bytes")

# ---- a leftover general plugin from an image built for vLLM 0.6 (pip install --target /opt/acme-plugins ...)
P = R + "/opt/acme-plugins"
os.makedirs(f"{P}/acme_vllm_ext", exist_ok=True)
open(f"{P}/acme_vllm_ext/__init__.py", "w").write(
    '"""ACME request-tagging and sampler hooks for vLLM (built against vllm 0.6.x)."""\n'
    "from vllm.model_executor.layers.sampler import Sampler, SamplerOutput  # noqa: F401\n\n"
    "from .hooks import register  # noqa: F401\n")
open(f"{P}/acme_vllm_ext/hooks.py", "w").write("def register():\n    pass\n")
di = f"{P}/acme_vllm_ext-0.3.1.dist-info"
os.makedirs(di, exist_ok=True)
open(f"{di}/METADATA", "w").write("Metadata-Version: 2.1\nName: acme-vllm-ext\nVersion: 0.3.1\nRequires-Dist: vllm<0.7\n")
open(f"{di}/entry_points.txt", "w").write("[vllm.general_plugins]\nacme_sampler_hooks = acme_vllm_ext:register\n")
open(f"{di}/top_level.txt", "w").write("acme_vllm_ext\n")
open(f"{di}/INSTALLER", "w").write("pip\n")
open(f"{di}/RECORD", "w").write("")
print("models:", sorted(os.listdir(M)), "lora:", sorted(os.listdir(L)))
