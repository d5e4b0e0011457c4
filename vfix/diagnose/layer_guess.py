"""The layer of a failure no signature explains, guessed from the words of its failing lines.

An `unknown` still tells the operator where to look first: "a communication failure" sends
them to NCCL and the fabric, "a versions failure" to the package matrix. The words are data
(layer_words.yaml); a line with none of them leaves the layer to `other`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib import resources

import yaml

from vfix.diagnose.model import Evidence
from vfix.vocabulary import Layer


@cache
def _layer_words() -> dict[Layer, re.Pattern[str]]:
    text = resources.files("vfix.diagnose").joinpath("layer_words.yaml").read_text()
    raw: dict[str, list[str]] = yaml.safe_load(text)
    return {Layer(name): re.compile("|".join(f"(?:{word})" for word in words), re.IGNORECASE)
            for name, words in raw.items()}


# Where a logger was called ("[mooncake_connector.py:1899]" in vLLM's prefix) names the module
# that logged, on every line of its traceback, not what failed.
_LOGGER_LOCATION = re.compile(r"\[[\w./-]+\.py:\d+\]")


def guess_layer(failing: Sequence[Evidence], first_exception: Evidence | None) -> Layer:
    """The layer whose words the failing lines use most; the first exception counts twice
    (it is where the failure began), and a tie goes to the layer named first in the log."""
    score: dict[Layer, int] = {}
    first_seen: dict[Layer, int] = {}
    for evidence in failing:
        weight = 2 if first_exception and evidence.line == first_exception.line else 1
        for layer, words in _layer_words().items():
            if words.search(_LOGGER_LOCATION.sub("", evidence.text)):
                score[layer] = score.get(layer, 0) + weight
                first_seen.setdefault(layer, evidence.line)
    if not score:
        return Layer.OTHER
    return max(score, key=lambda layer: (score[layer], -first_seen[layer]))
