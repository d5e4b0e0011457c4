"""`vfix validate ... --results DIR` re-judges saved outputs; bad input is one line, exit 2."""

import json
import shutil
from pathlib import Path

import pytest

from vfix.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_nccl_results_dir_fails_the_node_with_wrong_values(tmp_path, capsys):
    for host, name in (("dgx2", "v100x12-dgx2-old-error-column.txt"),
                       ("h200", "h200x1-all_reduce-2.19.6.txt")):
        (tmp_path / host).mkdir()
        shutil.copy(DATA / "nccl-tests" / name, tmp_path / host / "all_reduce_perf-1.txt")
    code, out, _ = run(["validate", "nccl", "--results", str(tmp_path), "-f", "json"], capsys)
    doc = json.loads(out)
    assert code == 1
    assert {n["host"]: n["verdict"] for n in doc["nodes"]} == {"dgx2": "FAIL", "h200": "PASS"}


def test_vllm_results_dir_from_the_smoke_driver(tmp_path, capsys):
    host = tmp_path / "gpu1"
    host.mkdir()
    run_doc = {"tp": 1, "ready": False, "reason": "server exited with 1",
               "log": "/tmp/x/serve-fail-missing-flashinfer.log", "ranks": {}, "teardown": {}}
    (host / "result.json").write_text(json.dumps({"tool": "vfix-vllm-smoke", "tp": 1,
                                                  "runs": [run_doc]}))
    shutil.copy(DATA / "vllm" / "serve-fail-missing-flashinfer.log", host)
    code, out, _ = run(["validate", "vllm", "--results", str(tmp_path), "-f", "markdown"],
                       capsys)
    assert code == 1 and "vllm-smoke[not-ready]" in out and "flashinfer" in out


@pytest.mark.parametrize("argv", [
    ["validate", "nccl", "--results", "/nonexistent/dir"],
    ["validate", "vllm"],
    ["validate", "allreduce", "--backend", "mpi"],
    ["validate", "allreduce", "--var", "novalue"],
    ["validate", "allreduce", "--min-bytes", "4096", "--max-bytes", "1024"],
])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and err.startswith("vfix: error: ") and err.count("\n") == 1
