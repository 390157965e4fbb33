"""Text from models, phones and records made safe to write to a terminal.

A model's answer, a screen label or a stored conversation title is data: written raw it
could retitle the window (OSC `ESC ] 0 ; … BEL`), clear the screen (CSI `ESC [ 2 J`, or
its 8-bit form `\\x9b`), move the cursor back over what was printed (`\\r`, backspace),
or reorder what the user reads (bidi overrides). `for_terminal` removes those and keeps
every printable character, tabs and newlines; `one_line` also folds line breaks for a
row of a list; `json_for_terminal` is JSON whose strings carry no raw C1 or bidi control
(json.dumps escapes C0 controls but, with ensure_ascii=False, passes C1 and U+202E through).

Named for where the text goes, not what it is: every command that prints stored or model
text passes it through here, the TUI's widgets too (mika_tui.plain).
"""

from __future__ import annotations

import json
import re
from typing import Any

# Whole escape sequences first, so their parameters do not survive as visible junk.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"  # CSI (7-bit)
    r"|\x9b[0-?]*[ -/]*[@-~]?"  # CSI (8-bit)
    r"|[\x1b][\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC to BEL/ST
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # their 8-bit forms
    r"|\x1b[ -/]*[0-~]?"  # any other ESC sequence (ESC c resets the terminal, ESC ( 0 …)
)
# What is left that a terminal acts on or that reorders text: C0 but tab and newline, DEL,
# C1, and the bidi embedding/override/isolate marks.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BREAKS = re.compile(r"\r\n|[\r\u2028\u2029\x85]")
# Lone surrogates (a model's "\\ud800" escape) are escaped too: raw, they can't be written
# to a UTF-8 stream at all, and the print would fail instead of the value being shown.
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def for_terminal(text: Any) -> str:
    """`text` with terminal control sequences and characters removed; line breaks as \\n."""
    s = text if isinstance(text, str) else str(text)
    if s.isprintable():
        return s
    s = _BREAKS.sub("\n", s)  # before _SEQUENCE: \x85 (NEL) is C1 but means a new line
    s = _SEQUENCE.sub("", s)
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", s))


def one_line(text: Any) -> str:
    """`for_terminal`, with newlines and tabs folded to spaces: one row of a list stays one row."""
    return " ".join(for_terminal(text).split()) if text else ""


def json_for_terminal(data: Any, **kw: Any) -> str:
    """json.dumps(ensure_ascii=False) whose strings escape C1, DEL and bidi controls as \\uXXXX."""
    kw.setdefault("ensure_ascii", False)
    out = json.dumps(data, **kw)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


def echo(message: Any = "", *, err: bool = False, nl: bool = True) -> None:
    """click.echo for anything that may hold stored or model text: control sequences removed."""
    import click

    click.echo(for_terminal(message) if message is not None else None, err=err, nl=nl)
