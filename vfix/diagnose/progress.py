"""Whether a training run went on after its failures: the steps it logged at the end of the log.

An elastic restart after a node was drained, a job requeued and resumed from its checkpoint, a
rank's collective that timed out while a peer was replaced: the log holds failures, then the
run trains on. What it logged last (step counters beside a loss) says it recovered; the last
bytes of the input are enough to tell, so this costs nothing while the log is scanned.
"""

from __future__ import annotations

import re

TAIL_BYTES = 64 << 10  # of the input's end that are looked at

# A training step with its loss, as trainers print it: "step 18201 | loss 1.397",
# " iteration    12490/   50000 | ... | lm loss: 2.1", "Epoch 12:  52%|...| 2601/5004 [...,
# loss=2.064]", "{'loss': 1.93, ..., 'epoch': 0.4}".
_STEP = re.compile(rb"(?i)\b(?:step|iteration|iter|global_step|epoch)\b\W{0,8}\d"
                   rb"[^\n]{0,300}?\bloss\b")


def step_lines(tail: bytes, last_line: int) -> list[int]:
    """The line numbers of the training steps in `tail`, the input's end whose last line is
    `last_line` (a first line cut by the window is left out)."""
    lines = tail.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    first = last_line - len(lines) + 1
    return [first + number for number, line in enumerate(lines)
            if number and _STEP.search(line)]
