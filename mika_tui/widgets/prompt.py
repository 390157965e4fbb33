"""The task input: an Input that lets `?` through to the help key while it is empty.

Textual drops a screen's binding for any key the focused Input would type; a `?` typed
into an empty input is a request for help, not the start of a task (a task rarely starts
with one), so the input declines that one key then and types it otherwise.
"""

from __future__ import annotations

from textual.widgets import Input


class PromptInput(Input):
    HELP_CHARACTER = "?"

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == self.HELP_CHARACTER and not self.value:
            return False
        return super().check_consume_key(key, character)
