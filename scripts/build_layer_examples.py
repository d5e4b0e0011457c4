"""Rebuild vfix/diagnose/layer_examples.txt from the labelled logs (run after labels change).

    python3 scripts/build_layer_examples.py

One line per labelled failure of tests/data/logs (not heldout/, kept aside, nor unseen/) and
tests/data/source-messages: its layer, a tab, and the words of the lines diagnose cites for it
(the candidates' evidence and the most suspicious lines). Healthy runs (layer none) are left
out; the same words under the same layer are kept once. tests/diagnose/test_layer_guess.py
fails until the file is rebuilt after a label changes.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import yaml

from vfix.diagnose import diagnose_paths
from vfix.diagnose.layer_guess import failure_words

ROOT = Path(__file__).resolve().parent.parent
CORPORA = (ROOT / "tests/data/logs", ROOT / "tests/data/source-messages")
KEPT_ASIDE = ("heldout/", "unseen/")
MAX_WORDS = 60  # the rarest words of a long log: enough to place it, and the file stays small
OUTPUT = ROOT / "vfix/diagnose/layer_examples.txt"
HEADER = ("# Built by scripts/build_layer_examples.py from the labels of tests/data/logs\n"
          "# (not heldout/ or unseen/) and tests/data/source-messages: a labelled failure a\n"
          "# line, its layer, a tab, and the words of the lines diagnose cites for it.\n"
          "# Read by vfix/diagnose/layer_guess.py.\n")


def labelled_failures() -> list[tuple[str, Path]]:
    found = []
    for corpus in CORPORA:
        for entry in yaml.safe_load((corpus / "labels.yaml").read_text())["logs"]:
            if entry["layer"] != "none" and not entry["file"].startswith(KEPT_ASIDE):
                found.append((entry["layer"], corpus / entry["file"]))
    return found


def examples() -> list[str]:
    failures = labelled_failures()
    words_of = []
    for layer, path in failures:
        (diagnosis,) = diagnose_paths([path])
        cited = [e.text for c in diagnosis.candidates for e in c.evidence]
        words_of.append((layer, failure_words(cited + [e.text for e in diagnosis.suspicious])))
    documents = Counter(word for _, words in words_of for word in words)
    rows = set()
    for layer, words in words_of:
        rarest = sorted(words, key=lambda word: (documents[word], word))[:MAX_WORDS]
        if rarest:
            rows.add(f"{layer}\t{' '.join(sorted(rarest))}")
    return sorted(rows)


def main() -> int:
    rows = examples()
    OUTPUT.write_text(HEADER + "\n".join(rows) + "\n")
    print(f"{OUTPUT.relative_to(ROOT)}: {len(rows)} examples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
