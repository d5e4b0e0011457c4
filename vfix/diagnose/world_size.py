"""A world smaller than the model-parallel size it must be divisible by: too few GPUs.

"world_size (4) is not divisible by 8" (Megatron, DeepSpeed and others check world size %
(TP x PP) == 0) reads as a layout to change, but when the world is smaller than the model's
parallel size, no layout helps: the job needs more GPUs (more nodes, or all GPUs visible).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vfix.diagnose.model import Candidate, Evidence

_NOT_DIVISIBLE = re.compile(r"(?i)world[ _]?size\W{0,3}(?P<world>\d+)\W{0,3}is not divisible by"
                            r"\D{0,60}?(?P<model>\d+)")


def short_of_model_parallel(failing: Sequence[Candidate],
                            failing_lines: Sequence[Evidence]) -> Candidate | None:
    """gpu_count_insufficient when the top candidate (or, with none, a failing line) says the
    world size is not divisible by a larger model-parallel size; None otherwise."""
    evidence = failing[0].evidence if failing else failing_lines
    for line in evidence:
        found = _NOT_DIVISIBLE.search(line.text)
        if found is None:
            continue
        world, model = int(found["world"]), int(found["model"])
        if world >= model:
            return None
        return Candidate.rule_cause(
            "world-smaller-than-model-parallel", "visibility", "gpu_count_insufficient", 0.85,
            (line,),
            explanation=(f"The job has {world} processes (one per GPU) but its model-parallel "
                         f"size (tensor x pipeline parallel) is {model}: the world must be a "
                         "multiple of it, and no layout of fewer GPUs can be."),
            fix=(f"Start the job on at least {model} GPUs (more nodes, or every GPU visible), "
                 "or lower the tensor/pipeline parallel sizes so their product divides "
                 f"{world}."),
            check="nvidia-smi -L on each node and --nnodes x --nproc_per_node against TP x PP")
    return None
