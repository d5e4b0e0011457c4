"""read_json_object: the one reader of facts files and model configs, its one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from vfix.errors import VfixError
from vfix.jsonfile import read_json_object


def test_reads_an_object(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2], "b": null}')
    assert read_json_object(path, "facts file") == {"a": [1, 2], "b": None}


@pytest.mark.parametrize(("content", "message"), [
    (None, "model config {path} not found"),
    (b'{"a": 1,\n "b": }', "model config {path} is not valid JSON: line 2 column 7: "
                           "Expecting value"),
    (b"1" * 5000, "model config {path} is not valid JSON: Exceeds the limit"),
    (b'"text"', "model config {path} is not a JSON object, found str"),
    (b"\xff\xfe\x00", "cannot read model config {path}: 'utf-8' codec can't decode"),
])
def test_each_problem_is_one_line_naming_the_file(tmp_path: Path, content: bytes | None,
                                                  message: str) -> None:
    path = tmp_path / "config.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(VfixError) as caught:
        read_json_object(path, "model config")
    assert caught.value.reason.startswith(message.format(path=path))
    assert "\n" not in caught.value.reason


def test_a_directory_is_a_read_error(tmp_path: Path) -> None:
    with pytest.raises(VfixError, match=r"cannot read facts file .*: "):
        read_json_object(tmp_path, "facts file")
