"""The web's SurfaceLayer: the page as the model saw it before, the effect after, the new listing.

For every web tool that declares `changes_page`, `before` keeps what the model saw (the
address, the document, a digest of the tree, the scroll position); `after` waits for the
page to settle on evidence, judges the `ActionEffect`, reads typed text back, looks for a
risk-control page, and hands the model the new listing, so it never acts on a page it has
not seen. What the page says is fenced (mika.cap.web.fenced); the effect line is Mika's.

Settling, with no fixed sleep: the page is read again and again (a read is two CDP calls)
until it shows a change — another address or document, a changed tree, a moved scroll —
and then stays the same for `QUIET_S`; a page that shows no change is watched for
`QUIET_S` and the network asked to be quiet before it is called `no_effect`; a page still
loading is waited for. `SETTLE_S` caps it all.

Effects:
* `place_changed` — the address without `#`, or the main document, changed;
* `done` — the tree changed (or the page scrolled, or a dialog came or went);
* `no_effect` — nothing of that.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from mika.cap.web.fenced import fence_attrs, forget_keyframe, listing_observation
from mika.cap.web.port import PageRead, WebError
from mika.cap.web.reader import PageFacts, without_fragment
from mika.cap.web.session import WebSession
from mika.cap.web.tools.barrier import barrier_outcome, check_barrier
from mika.observe.untrusted import fence, seal
from mika.tool.declaration import AgentTool, ToolOutcome
from mika.uistate import ActionEffect, EffectKind, Screen

CAPABILITY = "web"
SETTLE_S = 3.0  # at most this long for the page to settle after an action
QUIET_S = 0.3  # after a change, the page must stay the same this long to be settled
# A page that shows no change is watched this long before it is called no_effect: a click
# that fetches before it redraws shows nothing for a moment.
UNCHANGED_S = 0.5
POLL_S = 0.05  # between reads while waiting for the page to settle
NETWORK_QUIET_S = 0.5  # asked of a page that showed no change before calling it no_effect

# Results that did nothing on the page: no settle, no listing (the tool said why).
_UNTOUCHED = frozenset(
    {
        "stale_element",
        "unknown_element",
        "bad_arguments",
        "url_refused",
        "page_limit",
        "not_a_field",
        "no_focus",
        "site_blocked",
        "no_browser",
        "tab_limit",
    }
)


def judge(before: PageFacts, after: PageFacts) -> ActionEffect:
    if without_fragment(before.url) != without_fragment(after.url):
        return ActionEffect(EffectKind.PLACE_CHANGED, reason=f"{before.url} → {after.url}")
    if before.document != after.document:
        return ActionEffect(EffectKind.PLACE_CHANGED, reason="the page was loaded again")
    if before.key != after.key or before.dialog != after.dialog:
        return ActionEffect(EffectKind.DONE)
    if before.scroll != after.scroll:
        return ActionEffect(EffectKind.DONE, reason="the page scrolled")
    return ActionEffect(EffectKind.NO_EFFECT)


def effect_line(effect: ActionEffect) -> str:
    words = {
        EffectKind.DONE: "done (the page changed)",
        EffectKind.PLACE_CHANGED: "place_changed (another page)",
        EffectKind.NO_EFFECT: "no_effect (nothing on the page changed)",
    }
    line = f"Effect: {words[effect.kind]}"
    if effect.reason:
        line += f" — {effect.reason}"
    return line + "."


class WebSurface:
    def __init__(
        self,
        session: WebSession,
        tools: Mapping[str, AgentTool],
        *,
        settle_s: float = SETTLE_S,
        quiet_s: float = QUIET_S,
        poll_s: float = POLL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.tools = dict(tools)
        self.settle_s = settle_s
        self.quiet_s = quiet_s
        self.poll_s = poll_s
        self.clock = clock
        self.settle_reads = 0  # reads the last settle took (benchmarks look)

    def _acts(self, capability: str, tool: str) -> bool:
        return capability == CAPABILITY and bool(getattr(self.tools.get(tool), "changes_page", False))

    async def before(self, capability: str, tool: str, args: dict[str, Any]) -> Any:
        if not self._acts(capability, tool):
            return None
        reader = self.session.reader
        # How many downloads had ended: the ones after it are this action's to report.
        ended = len(self.session.port.downloads_now()[0])
        if reader.last is None or reader.current is None:
            try:
                await reader.read()
            except WebError:
                return None, ended  # no page yet (the first navigate): nothing to compare with
        return reader.facts, ended

    async def is_locked(self, capability: str) -> bool:
        return False  # a page has no lock screen

    def user_had_device(self) -> None:
        # After a takeover (or any answer from the user) the page is read afresh, and the
        # page counts start again (seed §6: the user answering resets them).
        self.session.reader.forget()
        forget_keyframe(self.session.reader)
        if self.session.pacing is not None:
            self.session.pacing.user_answered()

    async def after(
        self, capability: str, tool: str, args: dict[str, Any], token: Any, outcome: ToolOutcome
    ) -> ToolOutcome:
        if not self._acts(capability, tool) or outcome.code in _UNTOUCHED:
            return outcome
        before: PageFacts | None = token[0]
        try:
            read = await self._settled(before)
        except WebError as exc:
            return replace(outcome, text=f"{outcome.text}\nThe page could not be read afterwards: {exc}")
        reader = self.session.reader
        screen = await reader.read(whole=False, page=read)
        after = PageFacts.of(read)
        effect = judge(before, after) if before is not None else ActionEffect(EffectKind.PLACE_CHANGED)
        if effect.kind is EffectKind.NO_EFFECT and outcome.data.get("verified"):
            # Typed text read back from the field is the evidence (a password field's
            # value never shows in the tree).
            effect = ActionEffect(EffectKind.DONE, reason="the field holds the text")
        if self.session.pacing is not None:
            self.session.pacing.page_seen(read.state.url)
        notes = [effect_line(effect)]
        data: dict[str, Any] = {
            **outcome.data,
            **effect.as_dict(),
            "page_version": screen.version,
            "url": read.state.url,
        }
        readback = await self._read_back(outcome)
        if readback:
            notes.append(readback)
        fetched = self._downloads_since(token[1])
        if fetched:
            notes.append(fetched)
        barrier = check_barrier(self.session, read, screen)
        reader.mark_shown(screen)
        tabs = await reader.count_tabs()
        obs, shown = listing_observation(screen, read, 0, reader, tabs)
        text = seal(f"{outcome.text}\n{' '.join(notes)}\n\n{shown}")
        result = replace(
            outcome, text=text, effect=effect.kind.value, data=data, observations=(*outcome.observations, obs)
        )
        if barrier is not None:
            return barrier_outcome(result, barrier, read)
        return result

    def _downloads_since(self, ended: int) -> str:
        """What this action downloaded, in Mika's words (file names are made safe by the
        port; they are the site's words all the same, so they are quoted, not obeyed)."""
        done, coming = self.session.port.downloads_now()
        lines = []
        for d in done[ended:]:
            if d.error:
                lines.append(f"The download {d.name!r} was stopped: {d.error}.")
            else:
                lines.append(f"Downloaded {d.name!r} ({d.size} bytes) into the workspace's downloads/ (not opened).")
        lines += [f"The download {name!r} is still coming in (saved into downloads/ when it ends)." for name in coming]
        return " ".join(lines)

    async def _read_back(self, outcome: ToolOutcome) -> str:
        """Typed text read back from the field (the port says "***" for a password field)."""
        handle = outcome.data.get("field")
        typed = outcome.data.get("typed")
        if not handle or typed is None:
            return ""
        try:
            value = await self.session.port.field_value(str(handle))
        except WebError:
            value = None
        if value is None:
            return "The field is gone from the page, so what it holds can't be read back."
        if value == "***":
            return "The field is a password field: it can't be read back (it holds what was typed, unseen)."
        said = fence(
            value, fence_attrs(self.session.reader.last.state.url if self.session.reader.last else ""), block=False
        )
        if typed and typed in value:
            return f"Read back: the field holds {said} (matches)."
        return f"Read back: the field holds {said}, not what was typed — check it before going on."

    async def _settled(self, before: PageFacts | None) -> PageRead:
        reader = self.session.reader
        start = self.clock()
        last: PageFacts | None = None
        read: PageRead | None = None
        stable_since = start
        changed = False
        asked_network = False
        self.settle_reads = 0
        while True:
            read = await reader.read_page()
            self.settle_reads += 1
            facts = PageFacts.of(read)
            now = self.clock()
            if facts != last:
                last, stable_since = facts, now
                changed = changed or before is None or facts != before
            window = self.quiet_s if changed else max(self.quiet_s, UNCHANGED_S)
            quiet = not facts.loading and now - stable_since >= window
            if quiet and not changed and not asked_network:
                # Nothing yet: a request the action started may still bring the change.
                asked_network = True
                try:
                    await self.session.port.wait_for(network_quiet=True, timeout_s=NETWORK_QUIET_S)
                except WebError:
                    pass  # the wait is a courtesy; the reads decide
                continue
            if quiet or now - start >= self.settle_s:
                return read
            await asyncio.sleep(self.poll_s)


def stale_page_text(session: WebSession, screen: Screen) -> str:
    from mika.cap.web.fenced import fenced_page

    return fenced_page(screen, session.reader.last, session.reader.tabs)
