"""Cross-check preflight's config reading against vLLM's own functions (not a pytest test).

    python3 tests/preflight/crosscheck_vllm.py /path/to/unpacked/vllm-wheel

The vLLM source is read from the given directory (an unpacked `vllm-*.whl`), never from this
repository. The functions preflight re-implements are taken out of it with `ast` and run on
every tests/data/models/*/config.json, with the config as plain attributes (vLLM itself wraps
it in a transformers PretrainedConfig, which only adds defaults for keys that are absent):
`ModelArchConfigConvertorBase` (layers, heads, KV heads, head size, vocab, experts, max-length
key), `pad_vocab_size` and `get_pp_indices`. Exit 1 on any difference.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from vfix.preflight.model_config import load_model  # noqa: E402
from vfix.preflight.partitioning import padded_vocab, pp_partition  # noqa: E402

CONVERTOR_METHODS = {
    "get_num_hidden_layers", "get_total_num_attention_heads", "get_vocab_size",
    "get_hidden_size", "get_head_size", "_get_qk_rope_head_dim", "get_total_num_kv_heads",
    "get_num_experts_from_block_configs", "get_num_experts", "is_deepseek_mla",
    "derive_max_model_len_and_key", "__init__",
}


def _functions(path: Path, names: set[str]) -> list[ast.stmt]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in names]


def _convertor_class(path: Path) -> ast.ClassDef:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body
               if isinstance(n, ast.ClassDef) and n.name == "ModelArchConfigConvertorBase")
    cls.body = [n for n in cls.body
                if isinstance(n, ast.FunctionDef) and n.name in CONVERTOR_METHODS]
    for method in cls.body:
        method.decorator_list = []
    return cls


class _Logger:
    def info(self, *args: object) -> None:
        pass

    warning_once = warning = debug = info


def load_vllm(root: Path) -> dict[str, Any]:
    namespace: dict[str, Any] = {
        "Any": Any, "logger": _Logger(),
        "envs": SimpleNamespace(VLLM_MLA_DISABLE=False, VLLM_PP_LAYER_PARTITION=None),
        "DEFAULT_VOCAB_PADDING_SIZE": 64,
    }
    module = ast.Module(body=[
        *_functions(root / "vllm/config/utils.py", {"getattr_iter"}),
        *_functions(root / "vllm/model_executor/layers/vocab_parallel_embedding.py",
                    {"pad_vocab_size"}),
        *_functions(root / "vllm/distributed/utils.py", {"get_pp_indices"}),
        _convertor_class(root / "vllm/transformers_utils/model_arch_config_convertor.py"),
    ], type_ignores=[])
    exec(compile(module, "vllm-extract", "exec"), namespace)  # runs vLLM's own functions
    return namespace


def compare(vllm: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    for config in sorted((HERE.parent / "data" / "models").glob("*/config.json")):
        raw = json.loads(config.read_text())
        ns = SimpleNamespace(**raw)
        ns.name_or_path = ""
        conv = vllm["ModelArchConfigConvertorBase"](ns, ns)
        shape = load_model(config)
        theirs = {
            "layers": conv.get_num_hidden_layers(),
            "heads": conv.get_total_num_attention_heads(),
            "kv_heads": conv.get_total_num_kv_heads(),
            "head_size": conv.get_head_size(),
            "vocab": conv.get_vocab_size(),
            "experts": conv.get_num_experts(),
            "mla": conv.is_deepseek_mla(),
            "max_len_key": conv.derive_max_model_len_and_key()[1],
            "padded_vocab": vllm["pad_vocab_size"](conv.get_vocab_size()),
        }
        ours = {
            "layers": shape.num_layers, "heads": shape.num_heads,
            "kv_heads": shape.num_kv_heads, "head_size": shape.kv_head_dim,
            "vocab": shape.vocab_size, "experts": shape.num_experts, "mla": shape.is_mla,
            "max_len_key": shape.max_len_key, "padded_vocab": padded_vocab(shape.vocab_size),
        }
        differ = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
        name = config.parent.name
        print(f"{name:28} {'match' if not differ else 'DIFFERS'} "
              + " ".join(f"{k}={v}" for k, v in theirs.items()))
        problems += [f"{name}: {k}: preflight {a!r} vs vLLM {b!r}" for k, (a, b) in differ.items()]
    for layers in (2, 32, 61, 80, 10):
        for pp in (1, 2, 3, 4, 8):
            if layers < pp:
                continue
            theirs_split = [e - s for s, e in (vllm["get_pp_indices"](layers, r, pp)
                                               for r in range(pp))]
            if theirs_split != pp_partition(layers, pp):
                problems.append(f"pp split {layers}/{pp}: {pp_partition(layers, pp)} vs "
                                f"{theirs_split}")
    print("get_pp_indices: " + ("match" if not any("pp split" in p for p in problems)
                                else "DIFFERS"))
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = compare(load_vllm(Path(sys.argv[1])))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
