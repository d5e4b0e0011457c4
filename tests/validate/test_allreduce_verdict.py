"""The torch all-reduce result: parsing, verdicts, and the comparison with nccl-tests."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from vfix.errors import VfixError
from vfix.validate.allreduce_verdict import (
    AllreduceRow,
    HostAttempt,
    judge_allreduce,
    parse_allreduce,
)
from vfix.validate.compare import compare_busbw
from vfix.validate.nccl_output import parse_file
from vfix.validate.references import Reference
from vfix.vocabulary import Layer, Verdict

DATA = Path(__file__).resolve().parent.parent / "data"


def document(world_size: int = 2, nnodes: int = 2, backend: str = "gloo",
             device: str = "cpu", wrong: int = 0) -> str:
    ranks = [{"rank": r, "host": f"node{r % nnodes + 1}", "pid": 1, "device": device}
             for r in range(world_size)]
    factor = 2 * (world_size - 1) / world_size
    rows = [{"size": s, "count": s // 4, "type": "float", "redop": "sum", "time_us": 100.0,
             "algbw": s / 100e-6 / 1e9, "busbw": s / 100e-6 / 1e9 * factor, "nwrong": wrong}
            for s in (65536, 1048576)]
    return json.dumps({"tool": "vfix-allreduce", "schema": 1, "backend": backend,
                       "world_size": world_size, "nnodes": nnodes, "ranks": ranks,
                       "torch": "2.13.0+cpu", "nccl": None, "results": rows,
                       "wrong_total": wrong * len(rows)})


def test_a_healthy_two_node_run_passes_with_its_numbers():
    result = parse_allreduce(document())
    report = judge_allreduce([HostAttempt("node1", result), HostAttempt("node2", result)])
    for node in report.nodes:
        assert node.verdict is Verdict.PASS
        assert node.metrics["busbw_gbps"] == pytest.approx(10.48576)
        assert node.metrics["largest_bytes"] == 1048576 and node.metrics["nnodes"] == 2


def test_wrong_values_fail():
    [node] = judge_allreduce([HostAttempt("n", parse_allreduce(document(wrong=3)))]).nodes
    assert node.verdict is Verdict.FAIL and node.findings[0].check == "allreduce[wrong-values]"


def test_a_host_that_did_not_join_and_its_peers_both_fail():
    lonely = parse_allreduce(document(world_size=1, nnodes=1))
    stderr = "torch.distributed.DistNetworkError: The client socket has timed out"
    report = judge_allreduce([HostAttempt("node1", lonely),
                              HostAttempt("node2", None, rc=1, stderr=stderr)])
    nodes = {n.host: n for n in report.nodes}
    assert nodes["node1"].findings[0].check == "allreduce[missing-nodes]"
    [missing] = nodes["node2"].findings
    assert missing.check == "allreduce[did-not-run]" and missing.layer is Layer.NETWORK
    assert stderr in missing.evidence[0].lines


def test_nccl_backend_below_the_reference_warns():
    doc = parse_allreduce(document(world_size=8, nnodes=1, backend="nccl",
                                   device="NVIDIA H200"))
    floor = Reference("H200", 8, "all_reduce_perf", 431.0, "16G", "test")
    [node] = judge_allreduce([HostAttempt("n", doc)], [floor]).nodes
    assert node.verdict is Verdict.WARN
    assert node.findings[0].check == "allreduce[below-reference]"


@pytest.mark.parametrize("text", ["{}", "[]", '{"tool": "vfix-allreduce"}', "nope"])
def test_malformed_results_are_one_clear_error(text):
    with pytest.raises(VfixError):
        parse_allreduce(text, "x.json")


def test_compare_with_nccl_tests_in_place_at_the_largest_common_size():
    _, nccl = parse_file(DATA / "nccl-tests" / "v100x12-dgx2-old-error-column.txt")
    torch = replace(parse_allreduce(document(world_size=12, nnodes=1)),
                    rows=[AllreduceRow(8589934592, 127000.0, 67.6, 118.0, 0)])
    result = compare_busbw(nccl, torch)
    assert result.comparable and result.size == 8589934592
    assert result.nccl_busbw == 123.57 and result.ratio == pytest.approx(118.0 / 123.57)
    assert result.within_tolerance
    slow = replace(torch, rows=[AllreduceRow(8589934592, 127000.0, 50.0, 100.0, 0)])
    assert compare_busbw(nccl, slow).within_tolerance is False


def test_compare_at_world_size_one_says_why_not():
    [nccl] = parse_file(DATA / "nccl-tests" / "h200x1-all_reduce-2.19.6.txt")
    torch = replace(parse_allreduce(document(world_size=1, nnodes=1)),
                    rows=[AllreduceRow(1073741824, 30.0, 35791.0, 0.0, 0)])
    result = compare_busbw(nccl, torch)
    assert not result.comparable and "0 for both by definition" in result.reason
    assert result.nccl_busbw == 0.0 and result.torch_busbw == 0.0
