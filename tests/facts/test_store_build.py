"""build_facts on whole documents, and facts files: round trip and clear one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vfix.errors import VfixError
from vfix.facts import build_facts, dump_facts, load_facts
from vfix.facts.build import unwrap_probe

TOP_KEYS = ["host", "collected_at", "probe_version", "versions", "gpus", "topology", "system",
            "processes", "errors", "group_names", "group_vars"]


def test_empty_document_gives_empty_facts() -> None:
    facts = build_facts({}, host="n1")
    assert facts.host == "n1" and facts.gpus == [] and facts.errors == []
    assert list(json.loads(dump_facts(facts))) == TOP_KEYS


def test_probe_errors_are_carried_and_sections_of_the_wrong_type_cost_one_section() -> None:
    document = {"host": "n2", "collected_at": "2026-12-02T15:31:21Z",
                "errors": [{"section": "system", "reason": "timed out after 20s"}],
                "gpus": "garbage", "system": {"cpu": []}, "processes": {"gpu": [17, {"x": 1}]}}
    facts = build_facts(document)
    assert facts.host == "n2" and facts.collected_at == "2026-12-02T15:31:21Z"
    sections = [error.section for error in facts.errors]
    assert sections[0] == "system" and "gpus" in sections
    assert facts.processes.gpu == []


def test_unwrap_and_reject_non_objects() -> None:
    inner = {"host": "x"}
    assert unwrap_probe({"ansible_facts": {"vfix_probe": inner}}) is inner
    assert unwrap_probe({"vfix_probe": inner}) is inner
    with pytest.raises(VfixError, match="not a JSON object"):
        build_facts([1, 2])  # type: ignore[arg-type]


def test_round_trip(tmp_path: Path) -> None:
    facts = build_facts({"host": "gpu-7", "os": {"kernel": "6.8.0"}})
    path = tmp_path / "gpu-7.json"
    path.write_text(dump_facts(facts))
    assert load_facts(path) == facts


def test_a_raw_probe_document_loads_too(tmp_path: Path) -> None:
    path = tmp_path / "raw.json"
    path.write_text(json.dumps({"probe_version": "1", "host": "h", "versions": {}, "gpus": {}}))
    assert load_facts(path).host == "h"


@pytest.mark.parametrize(("content", "message"), [
    (None, "not found"),
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "is not a JSON object, found list"),
    (b'{"host": "h"}', "invalid facts at collected_at: Field required"),
    (b'{"host": "h", "collected_at": "t", "gpus": [{"index": "zero"}]}', "invalid facts at gpus.0"),
    (b"\xff\xfe\x00", "cannot read facts file"),
])
def test_bad_facts_files_are_one_line_errors(tmp_path: Path, content: bytes | None,
                                             message: str) -> None:
    path = tmp_path / "node.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(VfixError) as caught:
        load_facts(path)
    assert str(path) in caught.value.reason and message in caught.value.reason
    assert "\n" not in caught.value.reason
