"""Text from models, screens, records and people, shown as itself in a widget.

Textual parses a `str` given to Static, Button, OptionList, DataTable, notify and border
titles as markup: `[/b]` in a question crashed the app and `[@click=app.quit]…[/]` became
a live action. Escaping is not enough (`textual.markup.escape` leaves `[$var]` tags), so
outside text never goes through the markup parser at all: `plain` makes a Content that is
only text; `markup` fills Mika's own markup template with outside values as `$variables`,
which Textual inserts as text. Terminal controls are removed first (mika.terminal_text):
a Segment holding `ESC [ 2 J` would reach the terminal as it is.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.content import Content

from mika.terminal_text import for_terminal, one_line


def plain(text: Any) -> Content:
    """`text` as a widget shows it: every character literal, no markup, no controls."""
    return Content(for_terminal("" if text is None else text))


def plain_line(text: Any) -> Content:
    """`plain`, folded to one line (a list row, a title)."""
    return Content(one_line("" if text is None else text))


def cell(text: Any) -> Text:
    """A DataTable cell (DataTable reads a str as markup; a rich Text it shows as is)."""
    return Text(one_line("" if text is None else text))


def markup(template: str, **values: Any) -> Content:
    """Mika's own markup `template` with `$name` filled by outside text, which stays text."""
    return Content.from_markup(template, **{k: for_terminal("" if v is None else v) for k, v in values.items()})
