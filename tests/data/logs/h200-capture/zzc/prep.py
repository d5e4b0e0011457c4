# prep.py (Z161): model directories (config.json + files an operator got wrong; weights via --load-format dummy)
import json, os
def put(d, name, obj):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj, indent=2))
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
def tokenizer(d, nwords, chat_template=None):
    words = ["<unk>", "<s>", "</s>"] + [f"w{i}" for i in range(3, nwords)]
    added = [dict(id=i, content=w, single_word=False, lstrip=False, rstrip=False, normalized=False, special=True)
             for i, w in enumerate(words[:3])]
    tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
           "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
           "model": {"type": "WordLevel", "vocab": {w: i for i, w in enumerate(words)}, "unk_token": "<unk>"}}
    put(d, "tokenizer.json", tok)
    tc = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
          "model_max_length": 2048, "clean_up_tokenization_spaces": False}
    if chat_template:
        tc["chat_template"] = chat_template
    put(d, "tokenizer_config.json", tc)
put("/workspace/models/tiny-llama", "config.json", TINY)
# chat fine-tune: tokenizer_config.json chat_template hand-edited, the closing "%}" of the last tag lost
d = "/workspace/models/tiny-chat-ft"
put(d, "config.json", TINY)
tokenizer(d, 1000, "{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}</s>\n{% endfor %}"
                   "{% if add_generation_prompt %}<|assistant|>\n{% endif")
# generation_config.json shipped with a fine-tune: top_p 0.0 (meant as "off")
d = "/workspace/models/tiny-gen-topp0"
put(d, "config.json", TINY)
put(d, "generation_config.json", {"bos_token_id": 1, "eos_token_id": 2, "do_sample": True, "temperature": 0.7,
                                  "top_p": 0.0, "transformers_version": "4.57.1"})
# healthy: generation_config.json with sampling defaults from the model creator
d = "/workspace/models/tiny-gen-defaults"
put(d, "config.json", TINY)
put(d, "generation_config.json", {"bos_token_id": 1, "eos_token_id": 2, "do_sample": True, "temperature": 0.6,
                                  "top_p": 0.9, "top_k": 40, "repetition_penalty": 1.1, "max_new_tokens": 32,
                                  "transformers_version": "4.57.1"})
# an FP8 checkpoint (quantization_config in config.json)
c = dict(TINY); c["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3"}
put("/workspace/models/tiny-fp8", "config.json", c)
# model dir whose tokenizer files were copied from another model (4096-word vocab; the model has 1024 rows)
d = "/workspace/models/tiny-llama-tok-from-other"
put(d, "config.json", TINY)
tokenizer(d, 4096)
# a 262k-vocab model with 64k context (Gemma-3-like vocab, small layers)
c = dict(TINY); c.update(vocab_size=262144, max_position_embeddings=65536, rope_theta=1000000.0)
put("/workspace/models/llama-vocab262k-64k", "config.json", c)
print("models:", sorted(os.listdir("/workspace/models")))
