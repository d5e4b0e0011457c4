"""Messages that dcgmi's tables wrap over several rows are read whole."""

from __future__ import annotations

from vfix.diagnose import diagnose_text
from vfix.diagnose.tables import join_wrapped_cells

# dcgmi diag -r 3 as DCGM 4 prints it (tests/data/source-messages/cuda-libs-errors-dec-2026)
WRAPPED = (
    b"|                           | GPU5: Pass                                     |\n"
    b"| Warning: GPU6             | API call cuMemcpyHtoD failed for GPU 6: 'uncor |\n"
    b"|                           | rectable ECC error encountered' Check DCGM and |\n"
    b"|                           |  system logs for errors. Reset GPU. Restart DC |\n"
    b"|                           | GM. Rerun diagnostics.                         |\n"
    b"|                           | GPU7: Pass                                     |\n"
    b"+---------------------------+------------------------------------------------+\n"
)


def test_a_wrapped_message_is_written_whole_into_its_first_row() -> None:
    joined = join_wrapped_cells(WRAPPED, 0, len(WRAPPED))
    assert joined is not None
    rows = joined.split(b"\n")
    assert rows[1] == (b"| Warning: GPU6             | API call cuMemcpyHtoD failed for GPU 6: "
                       b"'uncorrectable ECC error encountered' Check DCGM and system logs for "
                       b"errors. Reset GPU. Restart DCGM. Rerun diagnostics. |")
    # every other row as it was, so each line keeps its number
    assert rows[:1] + rows[2:] == WRAPPED.split(b"\n")[:1] + WRAPPED.split(b"\n")[2:]


def test_rows_of_short_results_are_not_joined() -> None:
    table = (b"| memtest                   | Fail                                           |\n"
             b"|                           | GPU0: Pass                                     |\n")
    assert join_wrapped_cells(table, 0, len(table)) is None


def test_the_whole_message_is_diagnosed_on_its_first_row() -> None:
    result = diagnose_text(b"$ dcgmi diag -r 3\n" + WRAPPED)
    assert result.root_cause == "gpu_hardware_fault"
    assert result.candidates[0].evidence[0].line == 3
    assert (result.lines, result.bytes) == (8, len(WRAPPED) + len(b"$ dcgmi diag -r 3\n"))
