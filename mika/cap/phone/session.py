"""What the phone tools of one run share: the port, the screen reader, the app list,
and the display the run works on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mika.action.pace import GesturePacing, TypingPacing
from mika.cap.phone.model_picture import FORMAT, LONG_SIDE, PictureScale
from mika.cap.phone.port import AndroidPort
from mika.cap.phone.reader import ScreenReader

if TYPE_CHECKING:
    from mika.cap.phone.display.life import DisplayKeeper, DisplayState
    from mika.tool.context import ToolContext
    from mika.uistate.elements import Element


@dataclass
class PhoneSession:
    port: AndroidPort
    reader: ScreenReader
    display: int = 0  # where this run's calls go: 0, or the agent's own display once made
    apps: dict[str, str] | None = None  # package → label, read once per run
    # Registers a secret the user's text carries (a password typed into a field) with
    # the run's redactor, so the record never holds it; None when nothing redacts.
    redact: Callable[[str], None] | None = None
    command_failures: int = 0
    # What each text field showed when a tool first picked it (resource id or bounds →
    # text): plain `uiautomator dump` reports an empty field's hint as its text, so this
    # is how a cleared field is told apart from one that kept its text.
    first_seen: dict[str, str] = field(default_factory=dict)
    # The agent's own display (None: always display 0). A read-only run never makes one.
    keeper: DisplayKeeper | None = None
    read_only: bool = False
    # [general] pace for typing: growing prefixes; Instant (the whole text at once) unless
    # the capability was built with a pace.
    typing: TypingPacing = field(default_factory=TypingPacing.instant)
    # [general] pace for touches: a short pause before touch-down, a held tap, a point near
    # (not at) the centre; Instant is the old exact tap.
    gestures: GesturePacing = field(default_factory=GesturePacing.instant)

    # Where the last touch aimed: (tool, x, y, the element it meant, if any), for phone_diagnose.
    last_target: tuple[str, int, int, Element | None] | None = None
    # package → the other users (id, name) it is also installed in; read once per run
    also_in: dict[str, tuple[tuple[int, str], ...]] | None = None
    # `[phone] picture_long_side`: the longest side of a picture sent to a model.
    picture_long_side: int = LONG_SIDE
    # `[phone] picture_format`: "webp" or "jpeg".
    picture_format: str = FORMAT
    # The map of the last picture phone_screenshot gave the model: a point named on it
    # (`on_picture`) is turned into screen coordinates with exactly this.
    shown_picture: PictureScale | None = None

    async def other_users_apps(self) -> dict[str, tuple[tuple[int, str], ...]]:
        """Apps also installed in another user (dual apps, work profile): `pm list users`
        then each other user's own (non-system) packages, once per run. A phone that won't say: none."""
        if self.also_in is None:
            from mika.cap.phone.adb.users import parse_packages, parse_users

            found: dict[str, list[tuple[int, str]]] = {}
            users = parse_users((await self.port.shell("pm list users")).output)
            for uid, name in sorted(users.items()):
                if uid == 0:
                    continue
                listed = await self.port.shell(f"pm list packages -3 --user {uid}")
                if listed.exit_code != 0:
                    continue
                for pkg in parse_packages(listed.output):
                    found.setdefault(pkg, []).append((uid, name))
            self.also_in = {p: tuple(u) for p, u in found.items()}
        return self.also_in

    async def app_list(self) -> dict[str, str]:
        if self.apps is None:
            self.apps = await self.port.launchable_apps()
        return self.apps

    @property
    def display_state(self) -> DisplayState:
        from mika.cap.phone.display.life import DisplayState

        if self.keeper is None or self.read_only:
            return DisplayState("main", 0, "read-only run" if self.read_only and self.keeper is not None else "")
        return self.keeper.state or self.keeper.planned

    async def ensure_display(self) -> int:
        """The display this run's next phone call goes to, made (or made again) if needed.
        A new display id means a new screen: what was read of the old one is dropped."""
        if self.keeper is None or self.read_only:
            return self.display
        state = await self.keeper.ensure()
        if state.id != self.display:
            self.display = state.id
            self.reader.switch_display(state.id, state.size)
            self.first_seen.clear()
        return self.display


def session_of(ctx: ToolContext) -> PhoneSession:
    session = ctx.service(PhoneSession)
    if session is None:
        from mika.tool.errors import ToolFault

        raise ToolFault("The phone is not connected in this run.", code="no_phone")
    return session
