"""A server stopped with SIGTERM: errors its teardown prints are not a failure.

vLLM 0.26 logs "EngineDeadError" while it shuts down on SIGTERM; a log whose first failing
line comes after the stop request is a healthy run that was stopped. Only SIGTERM counts (what
orchestrators send to stop a service): a Ctrl-C (SIGINT) is how people end a hung run.
"""

from __future__ import annotations

import re

# Lines that may request a stop; the scanner only hands over lines holding one of these.
KEYWORDS = ("received signal=SIGTERM",)
# vLLM V1: "[shutdown] EngineCore: trigger received signal=SIGTERM"
_REQUESTED = re.compile(r"received signal=SIGTERM\b")


def requested(text: str) -> bool:
    return _REQUESTED.search(text) is not None
