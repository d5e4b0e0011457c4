"""The facts contract: what each node really has, as typed, frozen data.

`build_facts(probe_document, host=None)` parses the node probe's document; `load_facts(path)`
and `dump_facts(facts)` read and write `<host>.json` facts files.
"""

from vfix.facts.build import build_facts
from vfix.facts.model import HostFacts
from vfix.facts.store import dump_facts, load_facts

__all__ = ["HostFacts", "build_facts", "dump_facts", "load_facts"]
