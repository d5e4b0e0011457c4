"""nccl-tests parsers on real outputs: H200 (2.19.6, #wrong and -J JSON), DGX-2 V100 x12 and
K80 x4 (older float `error` column, with and without `redop`)."""

from pathlib import Path

import pytest

from vfix.errors import VfixError
from vfix.validate.nccl_output import parse_file, parse_text

DATA = Path(__file__).resolve().parent.parent / "data" / "nccl-tests"


def test_h200_plain_wrong_column_judges_the_largest_size():
    [run] = parse_file(DATA / "h200x1-all_reduce-2.19.6.txt")
    assert run.form == "plain-wrong"
    assert run.collective == "all_reduce_perf"
    assert run.tests_version == "2.19.6" and run.nccl_version == "2.28.9"
    assert run.world_size == 1 and run.ranks[0].name == "NVIDIA H200"
    assert len(run.results) == 28 and run.out_of_bounds == 0 and run.avg_busbw == 0.0
    largest = run.largest
    assert largest is not None and largest.size == 1073741824
    assert largest.out_of_place.time_us == 505.60 and largest.out_of_place.algbw == 2123.7
    assert largest.in_place.algbw == 1e6  # nccl-tests prints "1e+06" when the column overflows


def test_h200_json_form():
    [run] = parse_file(DATA / "h200x1-all_reduce-2.19.6.json")
    assert run.form == "json" and run.collective == "all_reduce_perf"
    assert run.nccl_version == "2.28.9" and run.world_size == 1
    assert run.out_of_bounds == 0 and len(run.results) == 25
    assert run.largest is not None and run.largest.size == 134217728


def test_debug_output_with_nccl_info_lines_still_parses():
    [run] = parse_file(DATA / "h200x1-all_reduce-2.19.6-debug.txt")
    assert [r.size for r in run.results] == [8388608, 16777216, 33554432, 67108864]


def test_old_error_column_two_runs_in_one_file():
    gather, reduce = parse_file(DATA / "v100x12-dgx2-old-error-column.txt")
    assert gather.form == reduce.form == "plain-error"
    assert gather.collective == "all_gather_perf" and reduce.collective == "all_reduce_perf"
    assert gather.world_size == 12 and gather.ngpus_per_thread == 12
    assert gather.out_of_bounds == 4 and gather.avg_busbw == 30.2993
    assert reduce.out_of_bounds == 0 and reduce.avg_busbw == 42.5578
    assert reduce.largest is not None and reduce.largest.out_of_place.busbw == 123.56
    assert reduce.largest.out_of_place.wrong == 2e-07  # the old column is a float error


def test_old_format_without_table_root_and_interleaved_info_line():
    [run] = parse_file(DATA / "k80x4-azureml-old-error-column.txt")
    assert run.world_size == 4 and len(run.results) == 7
    assert run.largest is not None and run.largest.in_place.busbw == 2.56
    assert run.avg_busbw == 2.54225


def test_a_run_cut_short_has_no_summary():
    text = (DATA / "h200x1-all_reduce-2.19.6.txt").read_text().split("# Out of bounds")[0]
    [run] = parse_text(text)
    assert run.out_of_bounds is None and len(run.results) == 28


@pytest.mark.parametrize("text", ["", "hello\n", "{not json", '{"results": [{"size": 1}]}'])
def test_garbage_is_one_clear_error(text):
    with pytest.raises(VfixError):
        parse_text(text, "x.txt")
