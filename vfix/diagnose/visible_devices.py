"""A CUDA_VISIBLE_DEVICES list longer than the GPUs the process then saw: a device named that
does not exist.

CUDA enumerates CUDA_VISIBLE_DEVICES up to its first entry that names no device and ignores the
rest, so "CUDA_VISIBLE_DEVICES=2,3,4,5" on a node of four GPUs gives two. The parallel size is
then refused as too large for the GPUs ("World size (4) is larger than the number of available
GPUs (2)"), which reads as a node with too few GPUs; but the node has them, and the list (copied
from another node's unit file, a runbook) is what to fix.
"""

from __future__ import annotations

import re

from vfix.diagnose.model import Candidate

# Lines that may set the list; the scanner only hands over lines holding one of these.
KEYWORDS = ("CUDA_VISIBLE_DEVICES=",)
# "Environment=CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,9", "export CUDA_VISIBLE_DEVICES=\"2,3\"";
# not a list left empty or unset ("CUDA_VISIBLE_DEVICES= ")
_LIST = re.compile(r"\bCUDA_VISIBLE_DEVICES=[\"']?(?P<list>[\w-]+(?:,[\w-]+)*)")
# the count a refusal gives: vLLM's "... than the number of available GPUs (2) in this node",
# "... to less than max local gpu count (7)", "... the number of visible devices (1)"
_SEEN = re.compile(r"(?:number of available GPUs|max local gpu count|number of visible devices)"
                   r" \((?P<seen>\d+)\)")


def listed(text: str) -> int:
    """How many devices a line sets CUDA_VISIBLE_DEVICES to (0: it sets none)."""
    found = _LIST.search(text)
    return len(found["list"].split(",")) if found else 0


def named_missing(top: Candidate, listed_devices: int) -> Candidate | None:
    """cuda_visible_devices_invalid when the GPU-count refusal of `top` counts fewer GPUs than
    the CUDA_VISIBLE_DEVICES list of the log names (at least one); None otherwise."""
    if top.root_cause != "gpu_count_insufficient":
        return None
    for line in top.evidence:
        found = _SEEN.search(line.text)
        if found and 0 < int(found["seen"]) < listed_devices:
            seen = int(found["seen"])
            return Candidate.rule_cause(
                "visible-devices-name-missing-gpu", "visibility", "cuda_visible_devices_invalid",
                0.85, (line,),
                explanation=(f"CUDA_VISIBLE_DEVICES names {listed_devices} devices but the "
                             f"process saw {seen}: CUDA stops at the first entry that names no "
                             "GPU of this node, so the rest are lost. The node may well have the "
                             "GPUs; the list (copied from another node?) is wrong."),
                fix=("Set CUDA_VISIBLE_DEVICES to indices or UUIDs this node has "
                     "(nvidia-smi -L), or unset it."),
                check=("nvidia-smi -L against the CUDA_VISIBLE_DEVICES of the service "
                       "(systemctl cat, the pod's env)"))
    return None
