"""`GatedWebPort`: the web tools' WebPort once a run's InputGate is bound.

As on the phone (mika.cap.phone.gated_port), every input that reaches a page is described
as the `ActionTarget` it lands on and handed to the run's InputGate before it is sent; and
every page the browser is about to show is judged by where it is:

- click: a fresh read of the page (the element was scrolled into view since the model
  looked), the element under the point (mika.action.under_point), the page's text; a click
  on nothing pressable, or on plain text, while a payment page is in front is unclear;
- typing: the focused field (a password field on a payment page is the pay password: the
  final pay); text with a line break also presses the form's submit, as Enter does;
- Enter and Space: the focused button or link, a text field's form submit (`enter_target`);
  a JavaScript dialog's OK, by Enter or `answer_dialog`, with the dialog's question;
- open: the address, as a place;
- every main-frame navigation the browser starts (a link, a form, `location = …` from a
  page script, each hop of a redirect) through the port's navigation guard: a page that
  reads as checkout or pay is not loaded unless the gate lets it. A navigation that
  follows an input the user's consent released in the same call belongs to that input:
  the consent covered the step, its page is part of it.

Reads, scrolls, focus (no press), clearing a field and tab switches pass straight through.
"""

from __future__ import annotations

from typing import Any

from mika.action.input_gate import InputGate
from mika.action.risk import RiskClass, classify
from mika.action.under_point import element_under, riskiest
from mika.cap.web.port import (
    Download,
    PageRead,
    PageState,
    ScreencastSink,
    TabInfo,
    WaitResult,
    WebError,
    WebPort,
)
from mika.cap.web.reader import site_of
from mika.cap.web.session import WebSession
from mika.cap.web.tools.base import enter_target, page_text, payment_label
from mika.tool.declaration import ActionTarget
from mika.uistate import Screen

# Keys that press what has the focus (a button, a link, a form's submit).
PRESSING_KEYS = ("Enter", "NumpadEnter", " ", "Space")


class GatedWebPort:
    def __init__(self, inner: WebPort, gate: InputGate, session: WebSession) -> None:
        self.inner = inner
        self.gate = gate
        self.session = session
        # Addresses `open` was just allowed to load: their navigation is not judged twice
        # (a consent is used once).
        self._opened: list[str] = []
        set_guard = getattr(inner, "set_navigation_guard", None)
        if set_guard is not None:
            set_guard(self.allow_navigation)

    def __getattr__(self, name: str) -> Any:
        # The browser's own extras (answer_dialog, set_site_mode, notes) pass through.
        return getattr(self.inner, name)

    # -- what a page may load --------------------------------------------------------

    def allow_navigation(self, url: str) -> bool:
        """The browser is about to load `url` in a tab's main frame (a link, a form, a
        page script, a redirect hop): False when it may not."""
        if url in self._opened:
            self._opened.remove(url)
            return True
        scope = self.gate.current
        if scope is not None and scope.released:
            return True
        read = self.session.reader.last
        target = ActionTarget(
            label=url,
            place=url,
            app=site_of(url),
            kind="link",
            screen_text=page_text(read),
        )
        return self.gate.judge(target) is None

    # -- inputs: judged, then sent ---------------------------------------------------

    async def open(self, url: str, *, new_tab: bool = False) -> PageState:
        read = self.session.reader.last
        self.gate.check(ActionTarget(label=url, place=url, app=site_of(url), kind="link", screen_text=page_text(read)))
        self._opened.append(url)
        try:
            return await self.inner.open(url, new_tab=new_tab)
        finally:
            if url in self._opened:
                self._opened.remove(url)

    async def click(self, x: float, y: float) -> None:
        screen = await self.session.reader.read()
        self.gate.check(self._point_target(screen, x, y))
        await self.inner.click(x, y)

    async def type_text(self, text: str) -> None:
        screen = await self.session.reader.read()
        self.gate.check(self._typing_target(screen, text))
        await self.inner.type_text(text)

    async def press_key(self, key: str) -> None:
        if key in PRESSING_KEYS:
            screen = await self.session.reader.read()
            last = self.session.reader.last
            if last is not None and last.dialog and key == "Enter":
                self.gate.check(self._target("OK", "key"))
            else:
                self.gate.check(enter_target(screen, self.session, "key"))
        await self.inner.press_key(key)

    async def answer_dialog(self, accept: bool, text: str | None = None) -> str:
        """A JavaScript dialog's OK agrees to what it asks ("Pay $30?"): judged as that
        press, with the dialog's text; Cancel presses nothing."""
        if accept:
            await self.session.reader.read()
            self.gate.check(self._target("OK", "key"))
        answer = getattr(self.inner, "answer_dialog", None)
        if answer is None:
            raise WebError("This browser cannot answer the page's dialog.", code="dialog")
        return str(await answer(accept, text))

    def _target(self, label: str, kind: str, **fields: Any) -> ActionTarget:
        read = self.session.reader.last
        url = read.state.url if read is not None else ""
        return ActionTarget(
            label=label, app=site_of(url), kind=kind, screen_text=page_text(read), screen_place=url, **fields
        )

    def _point_target(self, screen: Screen, x: float, y: float) -> ActionTarget:
        el = element_under(screen, round(x), round(y))
        label = el.label if el is not None else ""
        pay = payment_label(screen, self.session.reader.last)
        if pay and (el is None or (not el.actionable and classify(label).risk is RiskClass.NONE)):
            # Nothing that can be pressed is under the point on a payment page: what the
            # click does can't be told (a canvas, a div with a handler): refused.
            named = classify(pay).risk is not RiskClass.NONE
            return self._target(pay if named else "", "tap", on_screen=False, unclear=True, actionable=not named)
        return self._target(label, "tap", on_screen=el is not None, actionable=el is not None and el.actionable)

    def _typing_target(self, screen: Screen, text: str) -> ActionTarget:
        focused = [e for e in screen.elements if e.node.focused and e.node.editable]
        if not focused:
            pay = payment_label(screen, self.session.reader.last)
            if pay:
                return self._target(pay, "type", on_screen=False, unclear=True)
            return self._target("", "type", on_screen=False)
        field = focused[-1]
        typed = self._target(field.label, "type", secret=field.node.password)
        if "\n" in text or "\r" in text:
            return riskiest([typed, enter_target(screen, self.session, "type", field)])
        return typed

    # -- the rest passes straight through --------------------------------------------

    async def state(self) -> PageState:
        return await self.inner.state()

    async def read(self) -> PageRead:
        return await self.inner.read()

    async def main_text(self, budget_chars: int) -> tuple[str, bool]:
        return await self.inner.main_text(budget_chars)

    async def element_box(self, handle: str) -> tuple[float, float, float, float] | None:
        return await self.inner.element_box(handle)

    async def focus(self, handle: str) -> bool:
        return await self.inner.focus(handle)

    async def clear_focused(self) -> None:
        await self.inner.clear_focused()

    async def field_value(self, handle: str) -> str | None:
        return await self.inner.field_value(handle)

    async def scroll(self, dx: float, dy: float, at: tuple[float, float] | None = None) -> None:
        await self.inner.scroll(dx, dy, at)

    async def back(self) -> bool:
        return await self.inner.back()

    async def tabs(self) -> list[TabInfo]:
        return await self.inner.tabs()

    async def switch_tab(self, tab: str) -> PageState:
        return await self.inner.switch_tab(tab)

    async def close_tab(self, tab: str) -> None:
        await self.inner.close_tab(tab)

    async def wait_for(
        self,
        *,
        text: str | None = None,
        role: str | None = None,
        name: str | None = None,
        network_quiet: bool = False,
        timeout_s: float = 10.0,
    ) -> WaitResult:
        return await self.inner.wait_for(
            text=text, role=role, name=name, network_quiet=network_quiet, timeout_s=timeout_s
        )

    async def screenshot(self, *, full_page: bool = False) -> bytes:
        return await self.inner.screenshot(full_page=full_page)

    async def evaluate_readonly(self, script: str, *, timeout_s: float = 5.0) -> Any:
        return await self.inner.evaluate_readonly(script, timeout_s=timeout_s)

    def data_responses(self) -> int:
        return self.inner.data_responses()

    def downloads_now(self) -> tuple[list[Download], list[str]]:
        return self.inner.downloads_now()

    async def storage_state(self) -> dict[str, Any]:
        return await self.inner.storage_state()

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        await self.inner.add_cookies(cookies)

    async def downloads(self) -> list[Download]:
        return await self.inner.downloads()

    def screencast(self, sink: ScreencastSink | None) -> None:
        self.inner.screencast(sink)

    async def close(self) -> None:
        await self.inner.close()
