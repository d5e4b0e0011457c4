# prep.py (Z186): model folders (config.json, tokenizer files; weights via --load-format dummy) and a logging config
import json, os
def put(d, name, obj):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj, indent=2))
TINY = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=256, intermediate_size=512,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
            max_position_embeddings=2048, rms_norm_eps=1e-5, hidden_act="silu", torch_dtype="bfloat16",
            bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
def tokenizer(d, nwords, chat_template=None):   # (from zzc/prep.py) a WordLevel tokenizer: <unk> <s> </s> w3 .. wN
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
# tiny model with a tokenizer (healthy text-prompt server)
put("/workspace/models/tiny-llama-tok", "config.json", TINY)
tokenizer("/workspace/models/tiny-llama-tok", 1024)
# chat fine-tune whose tokenizer_config.json carries a Gemma/Mistral-style chat template: no system role, strict alternation
d = "/workspace/models/tiny-chat-strict-template"
put(d, "config.json", TINY)
tokenizer(d, 1024,
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'assistant' %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}")
# Qwen2.5-0.5B-Instruct shape (14 heads, 2 KV heads, head_dim 64) with an FP8 128x128 block-quantisation config
put("/workspace/models/Qwen2.5-0.5B-Instruct-FP8-block", "config.json", dict(
    architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=896, intermediate_size=4864,
    num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2, vocab_size=151936,
    max_position_embeddings=32768, max_window_layers=21, rms_norm_eps=1e-6, rope_theta=1000000.0,
    hidden_act="silu", torch_dtype="bfloat16", bos_token_id=151643, eos_token_id=151645,
    tie_word_embeddings=True, use_sliding_window=False, sliding_window=32768,
    quantization_config={"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                         "weight_block_size": [128, 128]}))
# a checkpoint of a model family newer than the installed transformers (model_type unknown to it)
c = dict(TINY); c.update(architectures=["Llama5ForCausalLM"], model_type="llama5", transformers_version="5.31.0.dev0")
put("/workspace/models/Llama-5-mini-preview", "config.json", c)
# 262k vocabulary, 262k positions (Gemma-3-like vocab on small layers) for the long prompt_logprobs job
c = dict(TINY); c.update(vocab_size=262144, max_position_embeddings=262144, rope_theta=1000000.0)
put("/workspace/models/llama-vocab262k-256k", "config.json", c)
# logging config of the serving image: console INFO + a DEBUG file handler on /var/log/vllm (its own small volume)
put("/workspace/config", "vllm-logging.json", {
    "version": 1, "disable_existing_loggers": False,
    "formatters": {"vllm": {"class": "vllm.logging_utils.NewLineFormatter", "datefmt": "%m-%d %H:%M:%S",
                            "format": "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "vllm", "level": "INFO",
                             "stream": "ext://sys.stdout"},
                 "file": {"class": "logging.FileHandler", "formatter": "vllm", "level": "DEBUG",
                          "filename": "/var/log/vllm/vllm-server.log"}},
    "loggers": {"vllm": {"handlers": ["console", "file"], "level": "DEBUG", "propagate": False}}})
print("models:", sorted(os.listdir("/workspace/models")))
