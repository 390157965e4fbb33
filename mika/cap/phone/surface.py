"""The phone's SurfaceLayer: read before, compare after, attach the fresh listing.

For every phone tool that declares `changes_screen`, `before` keeps the screen as it
was, `after` waits briefly for the screen to settle, reads it, judges the
`ActionEffect` (done / place_changed / no_effect, `treeBlind`), notes a "limit
reached" notice that newly appeared (`limitReached`), and hands the model the new
listing, so it never acts on a screen it has not seen. What the app shows is fenced as
untrusted (mika.observe.untrusted); the effect line and notes are Mika's, outside the fence.

Settling is on evidence (`mika.uistate.until_wait.settle`): the first idle dump that shows
a change ends it, an unchanged screen is watched for a quiet window, and `SETTLE_S` caps it;
a paced run (standard / human) keeps the old fixed poll and two equal reads.

The lock check reads the screen afresh, every time: that read is also the screen the
action's element numbers are checked against (and the one the gated port judges the
action's first input on, mika.cap.phone.gated_port), so it must not be older than the
moment the model's call arrives. It once reused the read that ended the previous action's
settle when that was under 150 ms old; a screen that replaced itself 30 ms after an action
then had `phone_tap element=5` land on the new screen's element 5 while the result named
the old one. A fresh read costs one dump per step; a screen that changed since the model
looked is caught as stale instead of tapped blindly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mika.cap.phone.fenced import listing_observation
from mika.cap.phone.session import PhoneSession
from mika.observe.untrusted import fence, seal
from mika.tool.declaration import AgentTool, ToolOutcome
from mika.tool.errors import ToolFault
from mika.uistate import ActionEffect, EffectKind, Screen
from mika.uistate.until_wait import QUIET_S, settle

SETTLE_S = 2.0  # at most this long for the screen to stop changing after an action
SETTLE_POLL_S = 0.04  # fast pace: poll this often while the effect has not shown
PACED_POLL_S = 0.25  # standard / human pace: the old fixed poll, two equal reads
CAPABILITY = "phone"


def is_lock_screen(screen: Screen) -> bool:
    if screen.foreground_package != "com.android.systemui":
        return False
    return any("keyguard" in (n.resource_id or "") for n in screen.tree.nodes())


def effect_line(effect: ActionEffect) -> str:
    words = {
        EffectKind.DONE: "done (the screen changed)",
        EffectKind.PLACE_CHANGED: "place_changed (another page or app)",
        EffectKind.NO_EFFECT: "no_effect (nothing visible changed)",
    }
    line = f"Effect: {words[effect.kind]}"
    if effect.reason:
        line += f" — {effect.reason}"
    if effect.tree_blind:
        line += ". treeBlind: the tree cannot see that spot, so no visible change does not prove the action missed"
    if effect.limit is not None:
        said = fence(effect.limit.text, {"source": "screen"}, block=False)
        line += f". limitReached: the app now says {said} — stop repeating this action"
    return line + "."


class PhoneSurface:
    def __init__(
        self,
        session: PhoneSession,
        tools: Mapping[str, AgentTool],
        *,
        settle_s: float = SETTLE_S,
        pace: str = "fast",
        poll_s: float | None = None,
    ) -> None:
        self.session = session
        self.tools = dict(tools)
        self.settle_s = settle_s
        self.paced = pace != "fast"
        self.poll_s = poll_s if poll_s is not None else (PACED_POLL_S if self.paced else SETTLE_POLL_S)
        self._lock_fault: ToolFault | None = None
        self._reconnects_at_lock: int | None = None

    def _acts(self, capability: str, tool: str) -> bool:
        return capability == CAPABILITY and bool(getattr(self.tools.get(tool), "changes_screen", False))

    async def before(self, capability: str, tool: str, args: dict[str, Any]) -> Any:
        if capability == CAPABILITY and self._lock_fault is None:
            # The run's own display, made on its first phone call (or made again).
            await self.session.ensure_display()
        if capability == CAPABILITY and self._lock_fault is not None:
            # The lock check could not read the phone; raised here, inside the dispatcher,
            # it becomes this call's result (and ends the run if the phone is gone).
            fault, self._lock_fault = self._lock_fault, None
            raise fault
        if not self._acts(capability, tool):
            return None
        reader = self.session.reader
        # Count reconnects from the lock check on: it is this call's first read.
        since = self._reconnects_at_lock if self._reconnects_at_lock is not None else self._reconnects()
        self._reconnects_at_lock = None
        return reader.current or await reader.read(), since

    def user_had_device(self) -> None:
        # After a takeover (or any call a person answered) the phone reads afresh first.
        self.session.reader.forget()

    def _reconnects(self) -> int:
        return int(getattr(self.session.port, "reconnects", 0))

    async def after(
        self, capability: str, tool: str, args: dict[str, Any], token: Any, outcome: ToolOutcome
    ) -> ToolOutcome:
        if capability == CAPABILITY:
            # Every phone result says which display it happened on (stream-json, the record).
            outcome = replace(outcome, data={**outcome.data, "display": self.session.display_state.as_dict()})
        if token is None or outcome.code in (
            "stale_element",
            "unknown_element",
            "bad_arguments",
            "use_phone_tool",
            "command_refused",
        ):
            return outcome
        before: Screen = token[0]
        after = await self._settled(before)
        reconnected = self._reconnects() > token[1]
        point = outcome.data.get("point")
        effect = ActionEffect.judge(before, after, tuple(point) if point else None)
        reader = self.session.reader
        reader.mark_shown(after)
        # The model reads the full listing, or what changed since the last one (fenced alike).
        obs, shown = listing_observation(after, 0, reader)
        note = (
            "\nThe phone's connection dropped and came back during this call; the screen below was read again."
            if reconnected
            else ""
        )
        # The tool's sentence may quote the app (`Tapped button "…"`): seal() keeps the real
        # fences and defuses any fence spelling that came in with such a quote.
        text = seal(f"{outcome.text}\n{effect_line(effect)}{note}\n\n{shown}")
        data = {
            **outcome.data,
            **effect.as_dict(),
            "screen_version": after.version,
            "package": after.foreground_package,
        }
        if reconnected:
            data["reconnected"] = True
        return replace(
            outcome,
            text=text,
            effect=effect.kind.value,
            tree_blind=effect.tree_blind or outcome.tree_blind,
            data=data,
            observations=(*outcome.observations, obs),
        )

    async def _settled(self, before: Screen | None) -> Screen:
        reader = self.session.reader
        # A read the tool made after its last input (a text read back) is where the wait
        # starts; the lock check's own read (`before`, no input since) is not.
        first = reader.current_since_input
        result = await settle(
            reader.read,
            before,
            cap_s=self.settle_s,
            poll_s=self.poll_s,
            quiet_s=max(QUIET_S, self.poll_s),
            idle_dumps=not self.paced,
            first=first if first is not before else None,
        )
        return result.screen

    async def is_locked(self, capability: str) -> bool:
        if capability != CAPABILITY:
            return False
        # Always a fresh read: it is also the screen the action's element numbers are
        # checked against (target, before and run use it) and the first input is judged
        # on, so a screen that changed since the model looked — by itself, 30 ms after the
        # last action — is caught as stale instead of tapped blindly.
        self._reconnects_at_lock = self._reconnects()
        try:
            # First: a display made again drops what was read of the old one.
            await self.session.ensure_display()
            screen = await self.session.reader.read()
        except ToolFault as fault:
            self._lock_fault = fault
            return False
        return is_lock_screen(screen)
