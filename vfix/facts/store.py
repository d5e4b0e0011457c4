"""Facts files: `<host>.json` on disk <-> `HostFacts`."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from vfix.errors import VfixError
from vfix.facts.build import build_facts
from vfix.facts.model import HostFacts
from vfix.jsonfile import read_json_object


def dump_facts(facts: HostFacts) -> str:
    """The facts document as JSON (top-level keys host, collected_at, versions, gpus, ...)."""
    return json.dumps(facts.model_dump(mode="json"), indent=2) + "\n"


def load_facts(path: str | Path) -> HostFacts:
    """Read a facts file (or a raw probe document); any problem is one VfixError line."""
    path = Path(path)
    document = read_json_object(path, "facts file")
    if "probe_version" in document and "versions" in document and isinstance(
            document.get("gpus"), dict):
        return build_facts(document)  # a raw probe document, not yet parsed
    try:
        return HostFacts.model_validate(document)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "document"
        raise VfixError(f"{path}: invalid facts at {where}: {first['msg']} "
                        f"({error.error_count()} problem(s))") from None
