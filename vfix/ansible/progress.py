"""Live per-host progress of an Ansible run on a terminal (rich); silent when not a TTY."""

from __future__ import annotations

import io
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

STYLES = {"ok": "green", "changed": "yellow", "failed": "red", "unreachable": "red",
          "running": "cyan", "waiting": "dim"}


@dataclass
class HostLine:
    status: str = "waiting"
    task: str = ""
    started: float | None = None
    finished: float | None = None

    def elapsed(self, now: float) -> str:
        if self.started is None:
            return ""
        return f"{(self.finished or now) - self.started:.1f}s"


class Progress:
    """Feed it ansible-runner events; it redraws a table of hosts while the run goes on."""

    def __init__(self, hosts: list[str], title: str, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.title = title
        self.lines = {host: HostLine() for host in hosts}
        self._live: Live | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            console = Console(file=self.stream)
            self._live = Live(self._table(), console=console, refresh_per_second=4,
                              transient=False, get_renderable=self._table)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def expect(self, hosts: list[str], title: str) -> None:
        """Name every targeted host up front (they show as waiting) and set the title."""
        self.title = title
        for host in hosts:
            self.lines.setdefault(host, HostLine())

    def update(self, host: str, status: str, task: str = "") -> None:
        line = self.lines.setdefault(host, HostLine())
        now = time.monotonic()
        if line.started is None:
            line.started = now
        if status in ("failed", "unreachable"):
            line.finished = now
        if line.status not in ("failed", "unreachable"):
            line.status = status
        if task:
            line.task = task

    def finish(self, host: str) -> None:
        line = self.lines.get(host)
        if line is not None and line.finished is None:
            line.finished = time.monotonic()

    def _table(self) -> Table:
        now = time.monotonic()
        table = Table(title=self.title, title_justify="left", expand=False, box=None)
        for column in ("host", "status", "elapsed", "task"):
            table.add_column(column)
        for host, line in self.lines.items():
            style = STYLES.get(line.status, "")
            table.add_row(host, f"[{style}]{line.status}[/]" if style else line.status,
                          line.elapsed(now), line.task)
        return table

    def render_text(self) -> str:
        """The table as plain text (what a terminal would show), for tests and logs."""
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(self._table())
        return console.export_text()
