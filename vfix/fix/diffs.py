"""Ansible task results -> the unified diff text `vfix fix` prints.

A result's `diff` is a dict or a list of dicts with before/after (and headers) or `prepared`
text. Looped tasks carry theirs per item in `results`. The template action names its rendered
copy on the controller (…/.ansible/tmp/ansible-local-…/…/name.j2) as the "after" header; the
header shown is the file the task edits instead. A file that did not exist diffs from /dev/null.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

# Ansible's temporary paths: controller (ansible-local-*) and remote (ansible-tmp-*, …/source).
_TEMP_PATH = re.compile(r"(^|/)\.ansible/tmp/|/ansible-(local|tmp)-[^/]*/")


def destination(result: Mapping[str, Any]) -> str | None:
    """The path a file task writes: `dest`/`path` of the result, else of its module arguments
    (in check mode copy and template report them only there)."""
    invocation = result.get("invocation")
    args = invocation.get("module_args") if isinstance(invocation, Mapping) else None
    for source in (result, args or {}):
        for key in ("dest", "path"):
            if isinstance(source.get(key), str) and source[key]:
                return str(source[key])
    return None


def _headers(part: Mapping[str, Any], dest: str | None) -> tuple[str, str]:
    before = part.get("before_header")
    after = part.get("after_header")
    if isinstance(after, str) and _TEMP_PATH.search(after):
        after = dest or before
    if before is None and part.get("before") == "" and dest:
        before = "/dev/null"  # the file is new
    return str(before or dest or "before"), str(after or dest or "after")


def render_diff(diff: Any, dest: str | None = None) -> str:
    """One task's `diff` as unified text; `dest` (the edited file) names temp-path headers."""
    parts = diff if isinstance(diff, list) else [diff]
    text = []
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        if part.get("prepared"):
            text.append(str(part["prepared"]).rstrip("\n"))
            continue
        before, after = part.get("before", ""), part.get("after", "")
        if not isinstance(before, str) or not isinstance(after, str) or before == after:
            continue
        fromfile, tofile = _headers(part, dest)
        lines = difflib.unified_diff(before.splitlines(keepends=True),
                                     after.splitlines(keepends=True), fromfile, tofile)
        text.append("".join(lines).rstrip("\n"))
    return "\n".join(t for t in text if t)


def result_diff(result: Mapping[str, Any]) -> str:
    """The diff of a task result, or of each changed item of a looped task, in order."""
    items = result.get("results")
    if "diff" not in result and isinstance(items, list):
        return "\n".join(t for t in (result_diff(item) for item in items
                                     if isinstance(item, Mapping) and item.get("changed")) if t)
    return render_diff(result.get("diff"), destination(result))
