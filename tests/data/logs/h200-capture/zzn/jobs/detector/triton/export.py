"""Write a Triton Inference Server model repository (<repo>/<name>/<version>/model.pt + config.pbtxt)."""
import os

CONFIG = """name: "{name}"
platform: "pytorch_libtorch"
max_batch_size: {max_batch}
input [ {{ name: "INPUT__0" data_type: TYPE_INT64 dims: [ -1 ] }} ]
output [ {{ name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ -1, {vocab} ] }} ]
instance_group [ {{ count: 1 kind: KIND_GPU }} ]
"""


def write_config_pbtxt(path, name, vocab, max_batch=8):
    with open(path, "w") as f:
        f.write(CONFIG.format(name=name, vocab=vocab, max_batch=max_batch))


def export_model_repository(scripted, repo, name, vocab, version=1):
    d = os.path.join(repo, name, str(version))
    os.makedirs(d, exist_ok=True)
    scripted.save(os.path.join(d, "model.pt"))
    write_config_pbtxt(os.path.join(repo, name, "config.pbtxt"), name, vocab)
    return d
