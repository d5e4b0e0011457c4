"""Reading a run's jsonfile fact cache through ansible-core's own cache plugin.

ansible-core 2.19 wraps cached facts (key prefix, serialised payload); going through its
plugin keeps vfix independent of that on-disk format. (ansible-runner's `get_fact_cache`
reads the files directly and finds nothing with 2.19.)
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from vfix.ansible.loader import ensure_plugin_loader


def read_fact_cache(directory: Path, host: str) -> dict[str, Any]:
    """The facts cached for `host` in jsonfile cache `directory` ({} when there are none)."""
    if not directory.is_dir():
        return {}
    from ansible.plugins.loader import cache_loader

    ensure_plugin_loader()
    with contextlib.redirect_stderr(io.StringIO()):
        cache = cache_loader.get("ansible.builtin.jsonfile", _uri=str(directory))
        try:
            facts = cache.get(host)
        except KeyError:
            return {}
    # Plain JSON types only (ansible may hand back its tagged str/dict subclasses).
    return json.loads(json.dumps(facts)) if isinstance(facts, dict) else {}
