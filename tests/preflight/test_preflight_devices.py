"""CUDA_VISIBLE_DEVICES parsing and resolution against the real H200's facts."""

from __future__ import annotations

from preflight_helpers import h200

from vfix.preflight.devices import parse_visible_devices, resolve

H200_UUID = "GPU-5027c4df-2cb2-df68-ec7e-94814f2a5db7"


def test_kinds() -> None:
    parsed = parse_visible_devices(
        f"0, {H200_UUID},MIG-GPU-5027c4df-2cb2-df68-ec7e-94814f2a5db7/1/0,"
        f"MIG-4f6e1bd5-5a1c-5c5e-9f3b-0123456789ab,abc")
    assert [t.kind for t in parsed.tokens] == ["index", "uuid", "mig", "mig", "invalid"]
    assert parsed.has_mig


def test_invalid_entry_hides_the_rest() -> None:
    parsed = parse_visible_devices("0,x,1")
    assert [t.text for t in parsed.effective] == ["0"]
    assert [t.text for t in parsed.ignored] == ["x", "1"]


def test_index_and_uuid_prefix_resolve_on_the_h200() -> None:
    gpus = list(h200().gpus)
    assert [g.index for g in resolve(parse_visible_devices("0"), gpus).gpus] == [0]
    by_prefix = resolve(parse_visible_devices("GPU-5027c4df"), gpus)
    assert [g.uuid for g in by_prefix.gpus] == [H200_UUID] and not by_prefix.problems


def test_problems_are_reported() -> None:
    gpus = list(h200().gpus)
    assert "index 1 is not a GPU" in resolve(parse_visible_devices("0,1"), gpus).problems[0]
    assert "twice" in resolve(parse_visible_devices(f"0,{H200_UUID}"), gpus).problems[0]
    assert "matches 0 GPUs" in resolve(parse_visible_devices("GPU-ffff"), gpus).problems[0]
    assert "CUDA ignores it" in resolve(parse_visible_devices("0,,"), gpus).problems[0]


def test_visible_devices_without_facts() -> None:
    from preflight_helpers import model

    from vfix.preflight import Plan, run_preflight
    from vfix.vocabulary import Verdict

    tiny = model("tiny-llama-vllm-h200")
    short = run_preflight(tiny, Plan(tp=2, cuda_visible_devices="3,x,5"), [])
    assert short.result("cuda-visible-devices").verdict is Verdict.FAIL
    assert "leaves 1 GPU(s)" in short.result("gpu-count").reason
    ok = run_preflight(tiny, Plan(tp=2, cuda_visible_devices="3,5"), [])
    assert ok.verdict is Verdict.PASS
    assert ok.suggestion.env == {"CUDA_VISIBLE_DEVICES": "3,5"}
