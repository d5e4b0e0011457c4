"""Reading an inventory before a run: which hosts a run targets, their groups and vfix_* vars.

Parsed in-process with ansible-core's own InventoryManager, so every inventory format Ansible
accepts works here. A missing or unparsable inventory, or a limit matching nothing, is a
`VfixError` with one line.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vfix.ansible.loader import ensure_plugin_loader
from vfix.errors import VfixError

VFIX_VAR_PREFIX = "vfix_"


@dataclass(frozen=True)
class InventoryHost:
    name: str
    groups: tuple[str, ...] = ()
    vfix_vars: dict[str, Any] = field(default_factory=dict)  # the host's vfix_* variables


@dataclass(frozen=True)
class Inventory:
    source: str
    hosts: tuple[InventoryHost, ...]

    @property
    def names(self) -> list[str]:
        return [h.name for h in self.hosts]

    def host(self, name: str) -> InventoryHost:
        return next(h for h in self.hosts if h.name == name)


def load_inventory(source: str | Path, limit: str | None = None) -> Inventory:
    """Parse `source` (a file, a directory, or Ansible's `h1,h2,` host list) and apply `limit`."""
    text = str(source)
    if not Path(text).exists() and "," not in text:
        raise VfixError(f"inventory {text} does not exist")
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.vars.manager import VariableManager

    ensure_plugin_loader()
    loader = DataLoader()
    warnings = io.StringIO()
    try:
        with contextlib.redirect_stderr(warnings), contextlib.redirect_stdout(warnings):
            # A throwaway manager tells whether the source parses (ansible only warns); the
            # real one keeps the source so group_vars/ and host_vars/ next to it are read.
            probe = InventoryManager(loader=loader, sources=[])
            warnings.truncate(0)  # "no inventory parsed" for the empty start is expected
            parsed = probe.parse_source(text)
            if parsed:
                manager = InventoryManager(loader=loader, sources=[text])
    except Exception as error:  # ansible raises AnsibleError and friends
        raise VfixError(f"inventory {text} cannot be parsed: {_one_line(str(error))}") from None
    if not parsed:
        raise VfixError(f"inventory {text} cannot be parsed: {_first_reason(warnings.getvalue())}")
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            matched = manager.get_hosts(pattern="all")
            if limit:
                manager.subset(limit)
                matched = manager.get_hosts(pattern="all")
    except Exception as error:
        raise VfixError(f"limit {limit!r} is not a valid host pattern: {_one_line(str(error))}") \
            from None
    if not matched:
        where = f"inventory {text}" + (f" with limit {limit!r}" if limit else "")
        raise VfixError(f"{where} has no hosts")
    variables = VariableManager(loader=loader, inventory=manager)
    # Inventory variables only: facts cached by earlier runs (ansible.cfg's fact cache) must
    # not leak in, so this VariableManager gets an empty in-memory cache.
    from ansible.plugins.loader import cache_loader

    variables._fact_cache = cache_loader.get("ansible.builtin.memory")
    hosts = []
    for host in matched:
        host_vars = variables.get_vars(host=host, include_hostvars=False)
        groups = (g.name for g in host.get_groups() if g.name not in ("all", "ungrouped"))
        hosts.append(InventoryHost(
            name=host.name,
            groups=tuple(sorted(groups)),
            vfix_vars={k: v for k, v in host_vars.items() if k.startswith(VFIX_VAR_PREFIX)}))
    return Inventory(source=text, hosts=tuple(hosts))


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "unknown reason"


def _first_reason(warnings: str) -> str:
    # Ansible explains a failed source after "<<< caused by >>>"; fall back to its first line.
    match = re.search(r"<<< caused by >>>\s*\n\s*(.+)", warnings)
    if match:
        return match.group(1).strip()
    return _one_line(re.sub(r"\x1b\[[0-9;]*m", "", warnings)).removeprefix("[WARNING]: ")
