"""The table of shell commands; each command module registers itself with `@command`."""

from __future__ import annotations

from collections.abc import Callable

from mika.sim.shell.context import Command

COMMANDS: dict[str, Command] = {}


def command(*names: str) -> Callable[[Command], Command]:
    def register(fn: Command) -> Command:
        for name in names:
            COMMANDS[name] = fn
        return fn

    return register


def lookup(name: str) -> Command | None:
    # Commands are addressed by path too ("/system/bin/input"), as scripts often do.
    if "/" in name:
        name = name.rsplit("/", 1)[1]
    return COMMANDS.get(name)
