"""`vfix preflight` end to end: exit codes, formats, suggested command, facts from a run dir."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from preflight_helpers import DATA, h200, model, multi_gpu_host

from vfix.cli import main
from vfix.facts.model import HostFacts, ListeningPort, Processes
from vfix.preflight import Plan, run_preflight
from vfix.vocabulary import Verdict


def vfix(*args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process: exit code, stdout and stderr as an operator sees them."""
    return subprocess.run([sys.executable, "-m", "vfix", "preflight", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def vfix_here(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The same entry point (vfix.cli.main) in this process, which is much quicker."""
    with pytest.raises(SystemExit) as exit_info:
        main(["preflight", *args])
    captured = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 1), captured.out, captured.err


def facts_dir(tmp_path: Path, *hosts: HostFacts) -> Path:
    for facts in hosts:
        (tmp_path / f"{facts.host}.json").write_text(facts.model_dump_json())
    return tmp_path


def test_model_only_json_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = vfix_here(capsys, "--model", str(model("llama-3.1-70b")), "--tp", "8",
                               "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["verdict"] == "PASS"
    assert "--tensor-parallel-size" in report["suggestion"]["command"]
    assert any(s["check"] == "memory-fit" for s in report["skipped"])

    code, out, err = vfix_here(capsys, "--model", str(model("phi-4")), "--tp", "4",
                               "--format", "json")
    assert code == 1
    report = json.loads(out)
    failed = {r["check"]: r for r in report["results"] if r["verdict"] == "FAIL"}
    assert failed["tp-kv-heads"]["layer"] == "partitioning"
    assert "vllm/model_executor/layers/linear.py" in failed["tp-kv-heads"]["source"]
    assert report["suggestion"]["command"][3:5] == ["--tensor-parallel-size", "2"]


def test_garbled_config_is_one_line_exit_2_from_the_real_cli(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json")
    result = vfix("--model", str(tmp_path), "--tp", "2")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "config.json is not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("content", [None, "[]", '{"hidden_size": "big"}'])
def test_unusable_config_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            content: str | None) -> None:
    if content is not None:
        (tmp_path / "config.json").write_text(content)
    code, out, err = vfix_here(capsys, "--model", str(tmp_path), "--tp", "2")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "config.json" in err and err.startswith("vfix: error:")


def test_bad_option_value_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = vfix_here(capsys, "--model", str(model("phi-4")),
                             "--gpu-memory-utilization", "1.5")
    assert code == 2 and "gpu-memory-utilization" in err


def test_h200_run_directory_tiny_model(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    run = facts_dir(tmp_path, h200())
    code, out, err = vfix_here(capsys, "--model", str(model("tiny-llama-vllm-h200")),
                               "--facts", str(run), "--format", "markdown")
    assert code == 0, out + err
    assert "| PASS | resources | memory-fit | - |" in out
    assert "CUDA_VISIBLE_DEVICES=0 vllm serve" in out

    code, out, _ = vfix_here(capsys, "--model", str(model("tiny-llama-vllm-h200")),
                             "--facts", str(run), "--tp", "2", "--format", "table")
    assert code == 1
    assert "gpu-count" in out and "FAIL" in out


def test_llama70b_on_one_h200_fails_memory_and_suggests_more_gpus() -> None:
    report = run_preflight(model("llama-3.1-70b"), Plan(tp=1), [h200()])
    fit = report.result("memory-fit")
    assert fit.verdict is Verdict.FAIL and "no room for the KV cache" in fit.reason
    assert any("do not fit" in note for note in report.suggestion.notes)


def test_max_model_len_is_lowered_to_what_fits() -> None:
    # Llama-3.1-70B at TP=8 on 24 GiB GPUs: 16.4 GiB of weights per GPU leave about 1 GiB of
    # KV cache, short of the 5 GiB a 131072-token request needs at 40 KiB/token; TP=8 is the
    # largest size considered without facts, so the context is what gives.
    plan = Plan(tp=8, gpu_memory_gib=24.0)
    report = run_preflight(model("llama-3.1-70b"), plan, [])
    fit = report.result("memory-fit")
    assert fit.verdict is Verdict.FAIL and "largest max-model-len that fits" in fit.reason
    argv = list(report.suggestion.argv)
    suggested = int(argv[argv.index("--max-model-len") + 1])
    assert 0 < suggested < 131072 and suggested % 1024 == 0
    assert run_preflight(model("llama-3.1-70b"), Plan(tp=8, gpu_memory_gib=24.0,
                                                      max_model_len=suggested),
                         []).result("memory-fit").verdict is Verdict.PASS


def test_port_in_use_and_busy_gpu_fail() -> None:
    facts = h200()
    busy_port = facts.model_copy(update={"processes": Processes(listening=[
        ListeningPort(port=8000, address="0.0.0.0", pid=42, process="python3")])})
    report = run_preflight(model("tiny-llama-vllm-h200"), Plan(), [busy_port])
    assert report.result("port").verdict is Verdict.FAIL
    gpu = facts.gpus[0].model_copy(update={"memory_used_mib": 60000})
    busy_gpu = facts.model_copy(update={"gpus": [gpu]})
    free = run_preflight(model("tiny-llama-vllm-h200"), Plan(), [busy_gpu]).result(
        "gpu-free-memory")
    assert free.verdict is Verdict.FAIL and "GPU 0" in free.reason


def test_eight_gpu_nvlink_node_deepseek_style_moe() -> None:
    host = multi_gpu_host(h200(), "h100-8gpu-nv18-8nic.txt", memory_mib=143771)
    report = run_preflight(model("qwen3-30b-a3b-fp8"), Plan(tp=4), [host])
    assert report.result("quant-shards").verdict is Verdict.FAIL
    assert report.verdict is Verdict.FAIL
    assert "--enable-expert-parallel" in report.suggestion.argv  # what makes TP=4 work
    assert report.suggestion.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"
    assert report.result("tp-topology").verdict is Verdict.PASS


def test_small_shm_fails_for_multi_gpu(tmp_path: Path) -> None:
    host = multi_gpu_host(h200(), "rtx6000ada-4gpu-pcie-4nic.txt")
    shm = host.system.shm.model_copy(update={"size_bytes": 64 * 1024**2})
    docker_like = host.model_copy(update={"system": host.system.model_copy(update={"shm": shm})})
    report = run_preflight(model("qwen2.5-72b-instruct"), Plan(tp=4, gpu_memory_gib=48),
                           [docker_like])
    assert report.result("shm").verdict is Verdict.FAIL
    assert report.result("tp-topology").verdict is Verdict.WARN  # 4 GPUs span two sockets


def test_topo_data_present() -> None:
    assert (DATA / "topo" / "h100-8gpu-nv18-8nic.txt").is_file()


def test_two_eight_gpu_nodes_deepseek_v3_tp8_pp2() -> None:
    nodes = [multi_gpu_host(h200(), "h100-8gpu-nv18-8nic.txt", memory_mib=143771,
                            host=f"node{i}") for i in range(2)]
    report = run_preflight(model("deepseek-v3"), Plan(tp=8, pp=2, max_model_len=32768), nodes)
    assert report.verdict is Verdict.PASS, [r for r in report.results
                                            if r.verdict is not Verdict.PASS]
    assert report.result("pp-layers").reason.startswith("61 layers over PP=2: [31, 30]")
    assert "--pipeline-parallel-size" in report.suggestion.argv
    assert any("Ray" in note for note in report.suggestion.notes)
    # TP=16 over the same two nodes: valid for the model, but the all-reduce crosses nodes.
    wide = run_preflight(model("deepseek-v3"), Plan(tp=16, max_model_len=32768), nodes)
    assert wide.result("nodes").verdict is Verdict.WARN


def test_every_format_renders(tmp_path: Path) -> None:
    from vfix.preflight.render import Format, render

    report = run_preflight(model("phi-4"), Plan(tp=4, gpu_memory_gib=80), [h200()])
    texts = {fmt: render(report, fmt) for fmt in Format}
    assert json.loads(texts[Format.JSON])["verdict"] == "FAIL"
    assert "| FAIL | partitioning | tp-kv-heads |" in texts[Format.MARKDOWN]
    assert "tp-kv-heads" in texts[Format.TABLE] and "suggested: " in texts[Format.TABLE]


@pytest.mark.slow
def test_live_gather_of_this_machine(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """-i runs the real gather (Ansible, local connection) and judges what it found."""
    monkeypatch.chdir(tmp_path)  # the run directory gather writes lands here
    code, out, err = vfix_here(capsys, "--model", str(model("tiny-llama-vllm-h200")),
                               "-i", str(DATA.parent.parent / "inventories" / "local"),
                               "--format", "json")
    report = json.loads(out)
    hosts = {r["host"] for r in report["results"] if r["host"]}
    assert hosts == {"localhost"}, err
    count = next(r for r in report["results"] if r["check"] == "gpu-count")
    visible = int(count["reason"].split(" GPU(s) visible")[0])
    assert (count["verdict"] == "PASS") == (visible >= 1)
    assert code == (0 if report["verdict"] != "FAIL" else 1)
    assert list(tmp_path.glob(".vfix/runs/*/localhost.json"))  # the evidence was kept


def test_tp_is_raised_until_the_context_fits() -> None:
    # Llama-3.1-70B on 80 GiB GPUs: TP=1 has no room, TP=2 leaves ~2 GiB of KV cache (under the
    # 20 GiB a 131072-token request needs at 160 KiB/token), TP=4 holds it.
    report = run_preflight(model("llama-3.1-70b"), Plan(tp=1, gpu_memory_gib=80), [])
    assert report.result("memory-fit").verdict is Verdict.FAIL
    argv = list(report.suggestion.argv)
    assert argv[argv.index("--tensor-parallel-size") + 1] == "4"
    assert "--max-model-len" not in argv  # the model's own 131072 fits at TP=4


def test_regrouped_devices_follow_the_raised_tp() -> None:
    host = multi_gpu_host(h200(), "rtx6000ada-4gpu-pcie-4nic.txt", memory_mib=49140)
    report = run_preflight(model("qwen3-32b-fp8"), Plan(tp=1), [host])
    argv = list(report.suggestion.argv)
    tp = int(argv[argv.index("--tensor-parallel-size") + 1])
    assert tp == 2  # 32 GiB of fp8 weights + a 40960-token KV cache need two 48 GiB GPUs
    assert report.suggestion.env["CUDA_VISIBLE_DEVICES"] == "0,1"  # the NUMA-local pair


def test_concurrency_and_uneven_nodes() -> None:
    # Llama-3.1-8B on one 80 GiB GPU: ~54 GiB of KV cache at 128 KiB/token holds three full
    # 131072-token requests, not 16.
    report = run_preflight(model("llama-3.1-8b"), Plan(max_num_seqs=16, gpu_memory_gib=80), [])
    concurrency = report.result("kv-concurrency")
    assert concurrency.verdict is Verdict.WARN and "holds 3 full-length" in concurrency.reason
    assert report.verdict is Verdict.WARN and report.exit_code == 0
    nodes = [multi_gpu_host(h200(), "h100-8gpu-nv18-8nic.txt", host=f"n{i}") for i in range(2)]
    uneven = run_preflight(model("tiny-llama-vllm-h200"), Plan(tp=1, pp=3), nodes)
    assert uneven.result("nodes").verdict is Verdict.FAIL
