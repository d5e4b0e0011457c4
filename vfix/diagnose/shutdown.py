"""A server asked to stop (SIGTERM, Ctrl-C): errors its teardown prints are not a failure.

vLLM 0.26 logs "EngineDeadError" while it shuts down on SIGTERM; a log whose first failing
line comes after the stop request is a healthy run that was stopped.
"""

from __future__ import annotations

import re

# Lines that may request a stop; the scanner only hands over lines holding one of these.
KEYWORDS = ("received signal=SIG", "shutdown triggered", "Shutting down")
# vLLM V1 "[shutdown] EngineCore: trigger received signal=SIGTERM" / "API server: shutdown
# triggered"; uvicorn's own "INFO:     Shutting down" (older vLLM servers).
_REQUESTED = re.compile(
    r"received signal=SIG(TERM|INT)\b|\bshutdown triggered|INFO:\s+Shutting down$")


def requested(text: str) -> bool:
    return _REQUESTED.search(text) is not None
