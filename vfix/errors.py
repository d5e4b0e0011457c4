"""Operational errors: bad input, missing tools, nothing reachable. They end in exit code 2."""


class VfixError(Exception):
    """An operational error with a one-line reason for the operator (exit code 2)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason.splitlines()[0] if reason else "unknown error"
