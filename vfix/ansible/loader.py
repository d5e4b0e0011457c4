"""ansible-core used in-process (inventory, fact cache) needs its plugin loader set up once."""

from __future__ import annotations

import contextlib
import io

_ready = False


def ensure_plugin_loader() -> None:
    """Install ansible's collection loader (vars plugins such as group_vars/, cache plugins)."""
    global _ready
    if _ready:
        return
    from ansible.plugins.loader import init_plugin_loader

    with contextlib.redirect_stderr(io.StringIO()):
        init_plugin_loader()
    _ready = True
