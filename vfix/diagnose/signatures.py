"""Failure signatures: YAML data under signatures/, one file per layer, validated on load.

A signature names a root cause and the log lines that prove it. Each pattern has a literal
`keyword` (the cheap prefilter: a line is only tested with `regex` when it contains the keyword)
and an optional `regex` tested on the cleaned line. `context` patterns must also appear somewhere
in the same input for the signature to count (e.g. an OOM *while capturing CUDA graphs*).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vfix.errors import VfixError
from vfix.vocabulary import Layer

ROLES = frozenset(
    {"shm", "iommu_grub", "sysctl", "limits", "gpu_processes", "persistence", "nccl_env",
     "versions", "clocks", "gpu_recovery"}
)


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Pattern(_Strict):
    keyword: str = Field(min_length=3)
    regex: str | None = None

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value

    @property
    def compiled(self) -> re.Pattern[str] | None:
        return _compile(self.regex) if self.regex else None


class Step(_Strict):
    step: str = Field(min_length=5)
    role: str | None = None

    @field_validator("role")
    @classmethod
    def _known_role(cls, value: str | None) -> str | None:
        if value is not None and value not in ROLES:
            raise ValueError(f"unknown vfix role {value!r} (known: {', '.join(sorted(ROLES))})")
        return value


class Signature(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    root_cause: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    layer: Layer
    kind: Literal["cause", "consequence", "hint"] = "cause"
    confidence: float = Field(gt=0, le=1)
    # The message means the run failed even when it is logged at INFO/WARNING level (NCCL logs
    # some fatal checks as INFO); other signatures seen only at those levels are hints.
    fatal: bool = False
    # The message is repeated while the run waits for something (a Ray placement group): when
    # the log ends on it, the run is stuck there, a failure even at INFO/WARNING level.
    waits: bool = False
    # The message is progress, not trouble (a launcher's "waiting for the members" line printed
    # on every start): it counts only when the run ended waiting on it.
    progress: bool = False
    # The message also follows from a peer that failed first (a connection to a dead rank's
    # closed port is refused): when another cause shows earlier, this is its consequence.
    follows_earlier_cause: bool = False
    # The message reports a state that passes by itself (a pod pending while the cluster adds
    # nodes): when another cause shows anywhere in the log, that one is the failure.
    transient: bool = False
    # A consequence that, when no cause shows, still proves the run failed without saying why
    # (a native crash, a worker that never registered): the answer is then unknown.
    unexplained_alone: bool = False
    # A consequence that says how a process ended (killed by SIGKILL): shown before the peers'
    # collective timeouts, it explains them and goes above them.
    explains_later_timeouts: bool = False
    match: tuple[Pattern, ...] = Field(min_length=1)
    context: tuple[Pattern, ...] = ()
    explanation: str = Field(min_length=10)
    fix: tuple[Step, ...] = ()
    check_next: tuple[str, ...] = ()
    source: str = Field(min_length=3)  # where the message comes from (project, file or function)


@lru_cache(maxsize=512)
def _compile(regex: str) -> re.Pattern[str]:
    # ASCII: \b and \w are about ASCII words, so a keyword glued to Chinese or Japanese prose
    # ("错误类似size_k must ...") still starts a word.
    return re.compile(regex, re.ASCII)


@lru_cache(maxsize=1)
def load_signatures() -> tuple[Signature, ...]:
    """All shipped signatures, validated; a broken file is an operational error."""
    folder = resources.files("vfix.diagnose").joinpath("signatures")
    found: list[Signature] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            found.extend(parse_signatures(entry.read_text(encoding="utf-8"), entry.name))
    ids = [s.id for s in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise VfixError(f"duplicate signature ids: {', '.join(duplicates)}")
    return tuple(found)


class _UniqueKeyLoader(yaml.SafeLoader):
    """safe_load, but a key given twice in one mapping is an error: YAML would keep the last
    one silently (a second `regex:` under a pattern replaces the first)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        for key in keys:
            if keys.count(key) > 1:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", node.start_mark)
        return super().construct_mapping(node, deep=deep)


def parse_signatures(text: str, name: str) -> list[Signature]:
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader) or []
        if not isinstance(raw, list):
            raise VfixError(f"signature file {name}: expected a list of signatures")
        return [Signature.model_validate(item) for item in raw]
    except (yaml.YAMLError, ValidationError, re.error) as error:
        first = str(error).splitlines()
        raise VfixError(f"signature file {name}: {' '.join(first[:3])}") from error
