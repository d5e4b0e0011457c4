"""Reading real config.json files into the numbers vLLM's rules use."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from preflight_helpers import model

from vfix.errors import VfixError
from vfix.preflight.model_config import load_model
from vfix.preflight.params import count_params

# Published parameter counts: Llama-3.1 model cards (8,030,261,248 / 70,553,706,496);
# Qwen2.5-72B-Instruct summed from its safetensors files (tests/data/models/SOURCES.md).
EXACT_PARAMS = {
    "llama-3.1-8b": 8_030_261_248,
    "llama-3.1-70b": 70_553_706_496,
    "qwen2.5-72b-instruct": 72_706_203_648,
}
# Rounded figures the model cards state, in billions.
CARD_BILLIONS = {"mixtral-8x7b": 46.7, "deepseek-v3": 671, "phi-4": 14.7,
                 "qwen3-30b-a3b": 30.5, "qwen3-235b-a22b-fp8": 235, "qwen3-32b-fp8": 32.8}


@pytest.mark.parametrize(("name", "expected"), EXACT_PARAMS.items())
def test_parameter_count_matches_the_published_exact_count(name: str, expected: int) -> None:
    assert count_params(load_model(model(name))).total == expected


@pytest.mark.parametrize(("name", "billions"), CARD_BILLIONS.items())
def test_parameter_count_matches_the_model_card(name: str, billions: float) -> None:
    total = count_params(load_model(model(name))).total / 1e9
    assert total == pytest.approx(billions, rel=0.005)


def test_deepseek_v3_is_mla_with_a_576_wide_latent_and_yarn_length() -> None:
    shape = load_model(model("deepseek-v3"))
    assert shape.is_mla and shape.kv_head_dim == 512 + 64
    assert shape.num_experts == 256 and shape.expert_intermediate_size == 2048
    assert shape.first_dense_layers == 3
    # yarn: original_max_position_embeddings 4096 x factor 40 (vLLM _get_and_verify_max_len)
    assert shape.derived_max_len == 163840
    assert shape.quantization is not None and shape.quantization.block == (128, 128)


def test_llama3_rope_scaling_keeps_max_position_embeddings() -> None:
    shape = load_model(model("llama-3.1-8b"))  # rope_type llama3 is not multiplied
    assert (shape.derived_max_len, shape.max_len_key) == (131072, "max_position_embeddings")


def test_mixtral_experts_use_intermediate_size() -> None:
    shape = load_model(model("mixtral-8x7b"))
    assert shape.num_experts == 8 and shape.expert_intermediate_size == 14336


def test_config_file_path_and_directory_are_the_same(tmp_path: Path) -> None:
    by_dir = load_model(model("phi-4"))
    by_file = load_model(model("phi-4") / "config.json")
    assert by_dir.num_kv_heads == by_file.num_kv_heads == 10


def test_missing_config_is_named(tmp_path: Path) -> None:
    with pytest.raises(VfixError, match=r"model config .*config\.json not found"):
        load_model(tmp_path)


def test_garbled_config_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"hidden_size": 4096,\n "num_attention_heads": }')
    with pytest.raises(VfixError, match=r"config\.json is not valid JSON: line 2"):
        load_model(tmp_path)


def test_config_without_heads_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 4096}))
    with pytest.raises(VfixError, match="lacks a positive integer 'num_attention_heads'"):
        load_model(tmp_path)


def test_safetensors_index_total_size_is_the_checkpoint_size(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(model("llama-3.1-8b").joinpath("config.json")
                                          .read_text())
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": 16060522496}, "weight_map": {}}))
    shape = load_model(tmp_path)
    assert shape.checkpoint_bytes == 16060522496
    assert shape.checkpoint_source is not None and "total_size" in shape.checkpoint_source


def test_safetensors_headers_are_summed_without_reading_weights(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(model("tiny-llama-vllm-h200").joinpath("config.json")
                                          .read_text())
    header = {"a": {"dtype": "BF16", "shape": [256, 1024], "data_offsets": [0, 524288]},
              "b": {"dtype": "BF16", "shape": [256], "data_offsets": [524288, 524800]},
              "__metadata__": {"format": "pt"}}
    raw = json.dumps(header).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw)
    assert load_model(tmp_path).checkpoint_bytes == 524800
