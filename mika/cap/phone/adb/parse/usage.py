"""The usage text of `input` and `am`: which commands and options this Android has.

Old versions lack things the ADB layer would like to use (`input tap --display`,
`input keycombination`, `am start --display`, `am start-activity`); reading the usage
once per connection decides the path instead of guessing from the version number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.cap.phone.adb.parse.decode import ShellOutputError, shell_text

_INPUT_CMD = re.compile(
    r"^\s{2,}(text|keyevent|tap|swipe|draganddrop|press|roll|motionevent|keycombination|scroll)\b", re.MULTILINE
)
_AM_CMD = re.compile(r"^\s*(?:usage: )?\s*am ([a-z][a-z-]*)", re.MULTILINE)
_SOURCES = re.compile(r"The sources are:\n((?:\s{4,}\w+\n?)+)")


@dataclass(frozen=True)
class CommandUsage:
    tool: str  # input | am
    commands: tuple[str, ...]
    sources: tuple[str, ...]  # input only
    display_option: bool  # `-d DISPLAY` / `--display` is understood

    def has(self, command: str) -> bool:
        return command in self.commands


def parse_usage(data: bytes | str) -> CommandUsage:
    text = shell_text(data)
    head = text.lstrip()[:200]
    if head.startswith("Usage: input"):
        commands = tuple(dict.fromkeys(_INPUT_CMD.findall(text)))
        src = _SOURCES.search(text)
        sources = tuple(s.strip() for s in src.group(1).split()) if src else ()
        return CommandUsage("input", commands, sources, bool(re.search(r"-d <display", text) or "--display" in text))
    if head.lower().startswith("usage: am") or "Activity manager (activity) commands" in text:
        commands = tuple(dict.fromkeys(_AM_CMD.findall(text)))
        return CommandUsage("am", commands, (), "--display" in text)
    raise ShellOutputError("input/am usage", "this is not the usage text of `input` or `am`", head)
