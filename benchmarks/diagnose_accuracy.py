"""Layer and root-cause accuracy of `vfix diagnose` on the labelled corpus of real logs.

    python3 benchmarks/diagnose_accuracy.py [--show-heldout] [--corpus tests/data/logs]

The corpus (tests/data/logs/labels.yaml) is split into dev/ (signatures were tuned while
looking at these), fresh/ and round2/ to round154/ (each measured once blind, then tuned on) and
the two sets kept aside, heldout/ and unseen/ (only their totals are printed unless asked; the
`kept aside` row adds them up). tests/data/logs/README.md has the history of every number.
The layer of an `unknown` is voted partly by labelled examples built from every split but the
two kept aside (scripts/build_layer_examples.py): on those splits it is not a blind number.
A log labelled `none` is a healthy run: correct when diagnose finds no failure. From round143 on,
each label says whether the log itself shows the cause (`evident`); the last two rows add those up.
`--corpus tests/data/source-messages` measures the messages the source projects emit, each
rendered as a short log (tests/data/source-messages/README.md).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import yaml

from vfix.diagnose import Diagnosis, diagnose_paths

KEPT_ASIDE = ("heldout", "unseen")
# Rows for the logs whose collector said whether the cause shows in the log (rounds 143 on).
_EVIDENT = {True: "cause in the log", False: "cause not in the log"}
DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "logs"


def predicted(diagnosis: Diagnosis) -> tuple[str, str]:
    return diagnosis.layer or "none", diagnosis.root_cause


def _natural(item: tuple[str, list[int]]) -> list[int | str]:
    """round2 before round10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", item[0])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--show-heldout", action="store_true",
                        help="also list the kept-aside logs (heldout/, unseen/) diagnosed wrongly")
    args = parser.parse_args(argv)

    labels = yaml.safe_load((args.corpus / "labels.yaml").read_text())["logs"]
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # n, layer ok, cause ok
    by_evidence: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # the same, by `evident`
    misses: list[str] = []
    for entry in labels:
        split = entry["file"].split("/")[0]
        (diagnosis,) = diagnose_paths([args.corpus / entry["file"]])
        layer, cause = predicted(diagnosis)
        layer_ok = layer == entry["layer"]
        cause_ok = cause == entry["root_cause"]
        tallies = [totals[split]]
        if "evident" in entry:  # the collector's word: does the log itself show the cause?
            shown = entry["evident"] in (True, "yes")  # YAML reads an unquoted yes as True
            tallies.append(by_evidence[_EVIDENT[shown]])
        for counts in tallies:
            counts[0] += 1
            counts[1] += layer_ok
            counts[2] += cause_ok
        if not cause_ok and (split not in KEPT_ASIDE or args.show_heldout):
            misses.append(f"  {entry['file']}: expected {entry['layer']}/{entry['root_cause']}, "
                          f"got {layer}/{cause}")

    aside = [sum(totals[split][i] for split in KEPT_ASIDE if split in totals) for i in range(3)]
    evidence_rows = [(group, by_evidence[group]) for group in _EVIDENT.values()
                     if group in by_evidence]
    rows = [*sorted(totals.items(), key=_natural), ("kept aside", aside), *evidence_rows]
    width = max(len(str(split)) for split, _ in rows)
    print(f"{'split':<{width}} {'logs':>5} {'layer':>8} {'root cause':>11}")
    for split, (n, layer_ok, cause_ok) in rows:
        if n:
            print(f"{split:<{width}} {n:>5} {layer_ok / n:>8.1%} {cause_ok / n:>11.1%}")
    if misses:
        print("wrong root cause:")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
