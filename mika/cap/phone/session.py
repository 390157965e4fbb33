"""What the phone tools of one run share: the port, the screen reader, the app list."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mika.cap.phone.port import AndroidPort
from mika.cap.phone.reader import ScreenReader

if TYPE_CHECKING:
    from mika.tool.context import ToolContext


@dataclass
class PhoneSession:
    port: AndroidPort
    reader: ScreenReader
    display: int = 0
    apps: dict[str, str] | None = None  # package → label, read once per run
    # Registers a secret the user's text carries (a password typed into a field) with
    # the run's redactor, so the record never holds it; None when nothing redacts.
    redact: Callable[[str], None] | None = None
    command_failures: int = 0
    # What each text field showed when a tool first picked it (resource id or bounds →
    # text): plain `uiautomator dump` reports an empty field's hint as its text, so this
    # is how a cleared field is told apart from one that kept its text.
    first_seen: dict[str, str] = field(default_factory=dict)

    async def app_list(self) -> dict[str, str]:
        if self.apps is None:
            self.apps = await self.port.launchable_apps()
        return self.apps


def session_of(ctx: ToolContext) -> PhoneSession:
    session = ctx.service(PhoneSession)
    if session is None:
        from mika.tool.errors import ToolFault

        raise ToolFault("The phone is not connected in this run.", code="no_phone")
    return session
