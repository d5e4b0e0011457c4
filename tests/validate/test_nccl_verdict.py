"""Verdicts on nccl-tests runs: wrong values, the reference floor, the fleet median, repeats."""

from dataclasses import replace
from pathlib import Path

from vfix.validate.nccl_output import Measurement, NcclRun, parse_file
from vfix.validate.nccl_verdict import NcclPolicy, judge_nccl
from vfix.validate.references import Reference, load_references
from vfix.vocabulary import Layer, Verdict

DATA = Path(__file__).resolve().parent.parent / "data" / "nccl-tests"


def v100_runs() -> tuple[NcclRun, NcclRun]:
    gather, reduce = parse_file(DATA / "v100x12-dgx2-old-error-column.txt")
    return gather, reduce


def with_busbw(run: NcclRun, busbw: float) -> NcclRun:
    """The same run with the largest size's out-of-place busbw set (a slower repeat/node)."""
    rows = list(run.results)
    last = rows[-1]
    rows[-1] = replace(last, out_of_place=Measurement(last.out_of_place.time_us,
                                                      busbw / 2, busbw, 0.0))
    return replace(run, results=rows)


V100_FLOOR = Reference(gpu="V100", gpus=12, collective="all_reduce_perf", busbw_gbps=120.0,
                       size="8G", source="test row")


def test_shipped_reference_rows_each_cite_a_source():
    rows = {(r.gpu, r.gpus): r for r in load_references()}
    assert rows[("H100", 8)].busbw_gbps == 460.0 and rows[("H200", 8)].busbw_gbps == 431.0
    assert rows[("A100", 8)].busbw_gbps == 228.0
    assert all("azurehpc-health-checks" in r.source for r in rows.values())


def test_out_of_bounds_values_fail_the_node():
    gather, _ = v100_runs()
    [node] = judge_nccl({"dgx2": [gather]}).nodes
    assert node.verdict is Verdict.FAIL
    [finding] = [f for f in node.findings if f.check == "nccl-tests[out-of-bounds]"]
    assert finding.layer is Layer.COMMUNICATION and finding.observed == "4"
    assert "Out of bounds values : 4 FAILED" in finding.evidence[0].lines[0]


def test_largest_size_not_the_average_is_judged():
    _, reduce = v100_runs()
    policy = NcclPolicy(references=[V100_FLOOR])
    [node] = judge_nccl({"dgx2": [reduce]}, policy).nodes
    # Avg bus bandwidth is 42.6 GB/s, far below the floor; the largest size's 123.56 passes.
    assert node.verdict is Verdict.PASS
    assert node.metrics["all_reduce_perf.busbw_gbps"] == 123.56
    assert node.metrics["all_reduce_perf.reference_gbps"] == 120.0


def test_below_reference_fails_only_when_every_repeat_is_below():
    _, reduce = v100_runs()
    policy = NcclPolicy(references=[V100_FLOOR])
    slow = with_busbw(reduce, 100.0)
    [noisy] = judge_nccl({"n": [slow, reduce]}, policy).nodes
    assert noisy.verdict is Verdict.PASS and noisy.metrics["all_reduce_perf.repeats"] == 2
    [bad] = judge_nccl({"n": [slow, with_busbw(reduce, 110.0)]}, policy).nodes
    assert bad.verdict is Verdict.FAIL
    [finding] = bad.findings
    assert finding.check == "nccl-tests[below-reference]" and finding.observed == "110.0 GB/s"
    assert "test row" in (finding.expected or "")


def test_node_far_below_the_fleet_median_warns():
    _, reduce = v100_runs()
    fleet = {"a": [reduce], "b": [reduce], "c": [with_busbw(reduce, 90.0)]}
    nodes = {n.host: n for n in judge_nccl(fleet, NcclPolicy(references=[])).nodes}
    assert nodes["a"].verdict is Verdict.PASS and nodes["b"].verdict is Verdict.PASS
    assert nodes["c"].verdict is Verdict.WARN
    assert nodes["c"].findings[0].check == "nccl-tests[below-fleet-median]"
    assert nodes["a"].metrics["all_reduce_perf.fleet_median_gbps"] == 123.56
    assert any("no reference" in note for note in nodes["a"].notes)


def test_one_gpu_judges_correctness_only():
    [run] = parse_file(DATA / "h200x1-all_reduce-2.19.6.txt")
    [node] = judge_nccl({"h200": [run]}).nodes
    assert node.verdict is Verdict.PASS
    assert any("busbw is 0 by definition" in note for note in node.notes)


def test_a_run_without_summary_or_any_output_fails():
    [run] = parse_file(DATA / "h200x1-all_reduce-2.19.6.txt")
    cut = replace(run, out_of_bounds=None)
    nodes = {n.host: n for n in judge_nccl({"cut": [cut], "none": []}).nodes}
    assert [f.check for f in nodes["cut"].findings] == ["nccl-tests[did-not-finish]"]
    assert [f.check for f in nodes["none"].findings] == ["nccl-tests[no-output]"]
    assert nodes["cut"].verdict is nodes["none"].verdict is Verdict.FAIL
