"""A command group that imports a sub-command's module only when that sub-command runs.

`vfix --help` lists every command from a static table (name → module, attribute, one-line
help) without importing any of them; `vfix probe` imports `vfix.commands.probe` and nothing
else, so one command's heavy or native dependencies never slow down or break another.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import typer
from typer.core import MarkupMode, TyperCommand, TyperGroup
from typer.main import get_command

if TYPE_CHECKING:  # the click that typer's groups are built on (typer vendors it)
    from typer._click import Command, Context, HelpFormatter


class LazyCommand(NamedTuple):
    module: str  # e.g. "vfix.commands.probe"
    attr: str  # a command function, or a typer.Typer for a group of sub-commands
    help: str  # the one line `--help` lists; a test keeps it equal to the command's own


def load_command(name: str, entry: LazyCommand, markup_mode: MarkupMode) -> Command:
    """Import the module and build the command exactly as registering it on the root would."""
    target = getattr(importlib.import_module(entry.module), entry.attr)
    holder = typer.Typer(rich_markup_mode=markup_mode, callback=_no_options)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    group = get_command(holder)
    assert isinstance(group, TyperGroup)  # a callback always makes a group
    return group.commands[name]


def _no_options() -> None:
    # A Typer with a callback always builds a group, even around a single command.
    return None


class LazyGroup(TyperGroup):
    """Set `lazy_commands` in a subclass and pass it as `typer.Typer(cls=...)`."""

    lazy_commands: ClassVar[dict[str, LazyCommand]] = {}

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        # Stand-ins for the help listing and "Did you mean" suggestions; never invoked.
        self.commands = {name: TyperCommand(name, help=entry.help)
                         for name, entry in self.lazy_commands.items()}
        self._loaded: dict[str, Command] = {}
        self._listing = False

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        entry = self.lazy_commands.get(cmd_name)
        if entry is None or self._listing:
            return self.commands.get(cmd_name)
        if cmd_name not in self._loaded:
            self._loaded[cmd_name] = load_command(cmd_name, entry, self.rich_markup_mode)
        return self._loaded[cmd_name]

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        self._listing = True  # list the stand-ins: help must not import every command
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
