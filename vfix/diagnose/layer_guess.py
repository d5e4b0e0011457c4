"""The layer of a failure no signature explains, guessed from the words of its failing lines.

An `unknown` still tells the operator where to look first: "a communication failure" sends
them to NCCL and the fabric, "a versions failure" to the package matrix. Two kinds of data say
where:
- the layer words (layer_words.yaml, written from what each layer is): the layer whose words
  the failing lines use most;
- when the failing lines use none of them, the labelled failures of the corpus
  (layer_examples.txt, one failure a line, rebuilt by scripts/build_layer_examples.py): the five
  whose failing lines share the most rare words with these vote for their layers, by similarity;
  a layer needs most of the vote (`MIN_VOTE_SHARE`) to win, unless one of them is worded nearly
  the same (`NEAR_DUPLICATE`): the same message seen before.
With neither, the layer is `other`: a program's or a configuration's own error (an argument it
refuses, a bug), which is what a failure no layer word names most often is.
The words go first because, checked on the blind rounds with examples built from the rounds
before them, they placed more unknown failures in the right layer than a vote where neighbours
could outweigh them: of the 72 unknowns of rounds 70-131, 44 against 38 (and 37 for the words
alone, with no neighbours). Neighbours that split their vote name the wrong layer more often than
`other` does: checked in session 24 leave-one-split-out over both corpora (each split's failures
guessed with examples from the other splits only), keeping only a vote of 70% or more (or a near
duplicate) placed 52.8% of the 1806 failures diagnosed unknown in the right layer, against 49.4%
for the plain vote (37.5% against 35.6% on the newest sweeps' 104).
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from vfix.diagnose.model import Evidence
from vfix.vocabulary import Layer

NEIGHBOURS = 5
MIN_SIMILARITY = 0.15  # cosine of the rare words: below it, a failure only shares common ones
MIN_SHARED_WORDS = 2  # one word in common ("KeyError") does not make two failures alike
MIN_VOTE_SHARE = 0.7  # of the neighbours' vote, for their layer to be the guess
NEAR_DUPLICATE = 0.8  # a labelled failure this similar is the same message: its layer goes
_WORD = re.compile(r"[A-Za-z_]{3,}")
# Words of English and of every traceback that say nothing about where a failure is.
_COMMON_WORDS = ("the and for with from that this was were not are has have but you your can will "
                 "into been its all any one per out use too found traceback most recent call last "
                 "file line module")
_COMMON = frozenset(_COMMON_WORDS.split())
# Where a logger was called ("[mooncake_connector.py:1899]" in vLLM's prefix) names the module
# that logged, on every line of its traceback, not what failed.
_LOGGER_LOCATION = re.compile(r"\[[\w./-]+\.py:\d+\]")


def failure_words(lines: Iterable[str]) -> frozenset[str]:
    """The words (lower case, three letters or more) of failing lines, as the examples hold them."""
    return frozenset(word.lower() for line in lines
                     for word in _WORD.findall(_LOGGER_LOCATION.sub("", line))
                     if word.lower() not in _COMMON)


@dataclass(frozen=True)
class _Examples:
    layers: tuple[Layer, ...]  # of each example
    weights: dict[str, list[tuple[int, float]]]  # word -> (example, its normalised weight there)
    rarity: dict[str, float]  # word -> inverse document frequency


@cache
def _examples() -> _Examples:
    text = resources.files("vfix.diagnose").joinpath("layer_examples.txt").read_text()
    return index_examples([line.split("\t") for line in text.splitlines()
                           if line and not line.startswith("#")])


def index_examples(rows: Sequence[Sequence[str]]) -> _Examples:
    """Labelled failures, (layer, their words joined by spaces) each, indexed by word."""
    documents = Counter(word for _, words in rows for word in words.split())
    rarity = {word: math.log(len(rows) / (1 + count)) for word, count in documents.items()}
    weights: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for number, (_, words) in enumerate(rows):
        norm = math.sqrt(sum(rarity[word] ** 2 for word in words.split())) or 1.0
        for word in words.split():
            weights[word].append((number, rarity[word] / norm))
    return _Examples(tuple(Layer(layer) for layer, _ in rows), dict(weights), rarity)


def nearest_failures(words: frozenset[str]) -> list[tuple[float, Layer]]:
    """The labelled failures nearest to these words (at most `NEIGHBOURS`, nearest first): their
    similarity and layer; empty when no failure is alike enough."""
    examples = _examples()
    unseen = math.log(len(examples.layers) or 1)  # the rarity of a word no failure holds
    norm = math.sqrt(sum(examples.rarity.get(word, unseen) ** 2 for word in words)) or 1.0
    similarity: dict[int, float] = defaultdict(float)
    shared: Counter[int] = Counter()
    for word in words:
        for number, weight in examples.weights.get(word, ()):
            similarity[number] += examples.rarity[word] / norm * weight
            shared[number] += 1
    alike = ((number, score) for number, score in similarity.items()
             if score >= MIN_SIMILARITY and shared[number] >= MIN_SHARED_WORDS)
    nearest = heapq.nlargest(NEIGHBOURS, alike, key=lambda item: (item[1], -item[0]))
    return [(score, examples.layers[number]) for number, score in nearest]


def nearest_layers(words: frozenset[str]) -> dict[Layer, float]:
    """How strongly the labelled failures nearest to these words vote for each layer (shares
    that add up to 1; empty when no failure is alike enough)."""
    return _vote(nearest_failures(words))


def _vote(nearest: list[tuple[float, Layer]]) -> dict[Layer, float]:
    votes: dict[Layer, float] = defaultdict(float)
    for score, layer in nearest:
        votes[layer] += score
    total = sum(votes.values())
    return {layer: vote / total for layer, vote in votes.items()} if total else {}


def guess_layer(failing: Sequence[Evidence], first_exception: Evidence | None) -> Layer:
    """The layer the failing lines' layer words name; when they name none, the layer of a
    labelled failure worded nearly the same, or the one the nearest labelled failures mostly
    vote for; with neither, `other`."""
    by_words = _layer_by_words(failing, first_exception)
    if by_words is not None:
        return by_words
    nearest = nearest_failures(failure_words(evidence.text for evidence in failing))
    if nearest and nearest[0][0] >= NEAR_DUPLICATE:
        return nearest[0][1]
    votes = _vote(nearest)
    best = max(votes, key=lambda layer: votes[layer], default=None)
    return best if best is not None and votes[best] >= MIN_VOTE_SHARE else Layer.OTHER


@cache
def _layer_words() -> dict[Layer, re.Pattern[str]]:
    text = resources.files("vfix.diagnose").joinpath("layer_words.yaml").read_text()
    raw: dict[str, list[str]] = yaml.safe_load(text)
    return {Layer(name): re.compile("|".join(f"(?:{word})" for word in words), re.IGNORECASE)
            for name, words in raw.items()}


def _layer_by_words(failing: Sequence[Evidence], first_exception: Evidence | None) -> Layer | None:
    """The layer whose words the failing lines use most (where the failure began counts twice:
    the earliest failing line, and the first exception; a tie goes to the layer named first in
    the log)."""
    earliest = min(failing, key=lambda evidence: evidence.line, default=None)
    began = {evidence.line for evidence in (earliest, first_exception) if evidence}
    score: dict[Layer, int] = {}
    first_seen: dict[Layer, int] = {}
    for evidence in failing:
        weight = 2 if evidence.line in began else 1
        text = _LOGGER_LOCATION.sub("", evidence.text)
        for layer, words in _layer_words().items():
            if words.search(text):
                score[layer] = score.get(layer, 0) + weight
                first_seen[layer] = min(first_seen.get(layer, evidence.line), evidence.line)
    if not score:
        return None
    return max(score, key=lambda layer: (score[layer], -first_seen[layer]))
