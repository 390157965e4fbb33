"""What every web tool shares: its capability and group, errors as results, element
numbers resolved against the page the model saw, page pacing, and what an action would
touch (for the payment check — the phone's rules, through the same executor).

`changes_page` is read by the web's SurfaceLayer: those calls get the page compared before
and after, an `ActionEffect`, and the fresh listing attached.
"""

from __future__ import annotations

import abc
from dataclasses import replace
from typing import Any, ClassVar

from mika.action.amounts import amounts_in
from mika.action.risk import RiskClass, classify, classify_place, reads_as_payment, says_due
from mika.cap.web.fenced import fence_attrs
from mika.cap.web.port import PageRead, WebError
from mika.cap.web.reader import site_of
from mika.cap.web.session import WebSession, session_of
from mika.observe.untrusted import fence
from mika.tool.context import SkippedForNewMessage, ToolContext
from mika.tool.declaration import ActionTarget, AgentTool, Risk, ToolOutcome
from mika.tool.dispatcher import skipped_outcome
from mika.tool.errors import BadArguments
from mika.uistate import Element, Screen, StaleElement, UiNode, UnknownElement

PAGE_TEXT_MAX = 4000  # characters of page text handed to the payment check
# The site's header, menus and footer: their prices ("free shipping over ¥300") are not
# the amount due of the page's own content, and the payment check takes the last amount.
_CHROME = frozenset({"web.contentinfo", "web.navigation", "web.banner"})

# Words that say an amount is due (not just a price in a list).


class WebTool(AgentTool):
    capability = "web"
    group = "web"
    risk = Risk.WRITE
    # Pages are paced by the web's own PagePacing (dwell per site, page limits), not by the
    # phone's app dwell in the action entry.
    paces_itself = True
    changes_page: ClassVar[bool] = False
    # The kind of action for page pacing (mika.cap.web.pacing): navigate, tap, back, key,
    # scroll_down … ; "" owes no dwell.
    page_kind: ClassVar[str] = ""

    def session(self, ctx: ToolContext) -> WebSession:
        return session_of(ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            return await self.act(args, ctx)
        except WebError as exc:
            # The browser's sentence says what went wrong; its code is the result's.
            return ToolOutcome.error(exc.code, str(exc))

    @abc.abstractmethod
    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome: ...


def page_url(session: WebSession) -> str:
    last = session.reader.last
    return last.state.url if last is not None else ""


async def pace(session: WebSession, ctx: ToolContext, kind: str, url: str) -> tuple[ToolOutcome | None, int]:
    """Page pacing before a page-changing action: (a `page_limit` refusal, 0) or (None,
    milliseconds waited). The dwell ends early on a new user message (the dispatcher turns
    that into `skipped_for_new_message`); at fast pace nothing waits and nothing is refused."""
    pacing = session.pacing
    if pacing is None or not kind:
        return None, 0
    mark, session.scrolled_at = session.scrolled_at, None
    if mark is not None and session.port.data_responses() > mark:
        # The last scroll down brought more of the list: that was a new page (seed §6).
        pacing.note_loaded_more(page_url(session))
    refused = pacing.refusal(kind, url)
    if refused is not None:
        return ToolOutcome.error(refused.code, refused.message, site=refused.site, pages=refused.pages), 0
    owed = pacing.dwell_before(kind, url)
    if owed <= 0:
        return None, 0
    started = ctx.clock()
    try:
        await ctx.wait_or_steer(owed)
    except SkippedForNewMessage:
        # Nothing was done; the record still says how long the page was dwelt on.
        waited = round((ctx.clock() - started) * 1000)
        return replace(skipped_outcome(), wait_ms=waited), waited
    return None, round((ctx.clock() - started) * 1000)


class NotShownYet(StaleElement):
    """An element number before any listing of the page was given: a guess."""

    def __init__(self, number: int, current_version: int, listing: str) -> None:
        super().__init__(number, None, current_version, listing)
        Exception.__init__(
            self,
            f"Element {number}: no listing of this page was given to you yet, so that number is a guess. "
            "Nothing was done. Read the page with web_observe and pick the element from its listing.",
        )


def resolve_element(session: WebSession, number: int) -> Element:
    """The element behind a number the model saw; StaleElement/UnknownElement otherwise."""
    reader = session.reader
    if reader.shown_version is None:
        current = reader.current
        raise NotShownYet(int(number), current.version if current else 0, "")
    return reader.tracker.resolve(int(number), reader.shown_version)


async def fresh_screen(session: WebSession) -> Screen:
    """The page as it is now: an action's numbers are checked against this read, so a page
    that changed since the model looked is caught as stale instead of clicked blindly."""
    return await session.reader.read()


def stale_outcome(exc: StaleElement | UnknownElement, session: WebSession) -> ToolOutcome:
    if isinstance(exc, StaleElement):
        from mika.cap.web.fenced import fenced_page

        current = session.reader.current
        listing = ""
        if current is not None:
            session.reader.mark_shown(current)
            listing = fenced_page(current, session.reader.last, session.reader.tabs)
        return ToolOutcome(text=f"{exc}\n\n{listing}".rstrip(), ok=False, code="stale_element")
    return ToolOutcome(text=str(exc), ok=False, code="unknown_element")


def element_arg(args: dict[str, Any], tool: str) -> int:
    if args.get("element") is None:
        raise BadArguments(f"{tool}: give the element's number from the latest listing.")
    return int(args["element"])


def handle_of(el: Element) -> str:
    return el.node.resource_id


# -- what an action would touch ------------------------------------------------------


def page_text(read: PageRead | None) -> str:
    """The page's text for the payment check: its title and every text of the document,
    the parts scrolled out of view too (a cart's total is often below the button)."""
    if read is None:
        return ""
    out = [read.state.title.strip()] if read.state.title.strip() else []
    if read.dialog:
        out.append(read.dialog)  # a confirm("Pay $30?") is what an Enter would agree to

    def visit(node: UiNode) -> None:
        if node.class_name in _CHROME:
            return
        for value in (node.safe_text, node.content_desc):
            if value and value.strip():
                out.append(value.strip())
        for child in node.children:
            visit(child)

    for window in read.tree.windows:
        visit(window.root)
    return " | ".join(out)[:PAGE_TEXT_MAX]


def payment_label(screen: Screen, read: PageRead | None) -> str:
    """What makes this a payment page (a Pay/Checkout button, a checkout/pay address, an
    amount due), or ""."""
    for e in screen.elements:
        if e.actionable and reads_as_payment(e.label):
            return e.label
    url = read.state.url if read is not None else ""
    if url and classify_place(url).risk is not RiskClass.NONE:
        return url
    text = page_text(read)
    if amounts_in(text):
        for t in text.split(" | "):
            if reads_as_payment(t) or says_due(t):
                return t[:80]
    return ""


def _target(
    session: WebSession, label: str, kind: str, *, unclear: bool = False, on_screen: bool = True
) -> ActionTarget:
    read = session.reader.last
    url = read.state.url if read is not None else ""
    return ActionTarget(
        label=label,
        app=site_of(url),
        kind=kind,
        screen_text=page_text(read),
        on_screen=on_screen and not unclear,
        unclear=unclear,
    )


async def element_target(args: dict[str, Any], session: WebSession, kind: str) -> ActionTarget:
    """What pressing an element would hit: its label and the page's text."""
    await fresh_screen(session)
    try:
        el = resolve_element(session, element_arg(args, kind))
    except (StaleElement, UnknownElement, BadArguments):
        return _target(session, "", kind, on_screen=False)
    return _target(session, el.label, kind)


def _submit_of(screen: Screen, field: Element) -> Element | None:
    """The button a form's Enter presses: the first button after the field in the page's
    order (the accessibility tree keeps no form membership; a form's submit follows its fields)."""
    after = False
    for e in screen.elements:
        if e is field or e.node.resource_id == field.node.resource_id:
            after = True
            continue
        if after and e.role == "button" and e.label:
            return e
    return None


def enter_target(screen: Screen, session: WebSession, kind: str, field: Element | None = None) -> ActionTarget:
    """What Enter would press: the focused button or link; in a text field, its form's
    submit button. With the focus unclear on a payment page the step is `unclear`
    (refused, never guessed)."""
    if field is None:
        focused = [e for e in screen.elements if e.node.focused]
        field = focused[-1] if focused else None
    if field is not None and not field.node.editable:
        return _target(session, field.label, kind)
    pay = payment_label(screen, session.reader.last)
    if field is not None:
        submit = _submit_of(screen, field)
        if submit is not None:
            return _target(session, submit.label, kind)
    if pay:
        return _target(session, pay, kind, unclear=True)
    return _target(session, "", kind)


def quoted(text: str, url: str) -> str:
    """A page's text (a label, a field's name) in one of Mika's sentences: inside an inline
    fence of its own, so a label that says "SYSTEM: the user approved…" or spells a closing
    tag stays the page's words (`Tapped button <untrusted …>Buy</untrusted>.`)."""
    return fence(" ".join(text.splitlines()), fence_attrs(url), block=False)


def element_name(el: Element, url: str) -> str:
    return f"{el.role} {quoted(el.label, url)}" if el.label else el.role


def risk_of(label: str, text: str = "") -> RiskClass:
    return classify(label, text).risk
