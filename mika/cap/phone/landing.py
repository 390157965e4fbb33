"""What an input lands on, as the `ActionTarget` the one payment judgement reads.

The gated port (mika.cap.phone.gated_port) hands these functions the screen an input will
land on — read after the last input sent to that display — and passes what they say to
`InputGate.check` (mika.action.input_gate) just before it sends the input. The tools use
the same functions to describe their calls for pacing. Pure logic over a read `Screen`:

- a point: the riskiest element under it (a Pay button under a smaller text is the Pay
  button); a press on a dialog's button carries the dialog's question; a point on nothing
  that can be pressed while a payment screen is in front is unclear (refused, not asked);
- a stroke: each finger, like a point where it comes down (see `drag_target`);
- a key that presses the focus: the focused control, or a focused field's form;
- text: the focused field (a secret field on a payment screen is the pay password);
- an intent or a launch: the places it names (`place_targets`).

An element with no text and no description that can be pressed goes to the classifier as
actionable with an empty label: beside an amount due it is taken for the Pay button.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mika.action.amounts import amounts_in
from mika.action.risk import (
    RiskClass,
    classify,
    classify_place,
    reads_as_payment,
    says_due,
)
from mika.action.under_point import SCREEN_TEXT_MAX, element_under, riskiest, screen_text
from mika.cap.phone.obstacles import press_label, read_dialog
from mika.tool.declaration import ActionTarget
from mika.uistate import Element, Screen

# Keys that press whatever has the focus, as a tap would (Android's confirm keys, and the
# gamepad buttons that press a focused view).
ACTIVATING_KEYS = ("ENTER", "DPAD_CENTER", "NUMPAD_ENTER", "SPACE", "BUTTON_A", "BUTTON_SELECT")
# The same keys by their numeric codes (`input keyevent 66` names a key by number).
KEY_NUMBERS = {"66": "ENTER", "23": "DPAD_CENTER", "160": "NUMPAD_ENTER", "62": "SPACE", "96": "BUTTON_A"}
KEY_NUMBERS["109"] = "BUTTON_SELECT"
# A finger that moves less than this in both directions lands as a tap (Android's touch
# slop is smaller; the margin errs on the side of checking).
TAP_SLOP_PX = 48
# Links inside shared or extra text: each is a place the text may open.
LINK = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")


def key_name(key: str) -> str:
    """An Android key as the port is given it (`enter`, `KEYCODE_ENTER`, `66`) → ENTER."""
    bare = str(key).strip().upper().removeprefix("KEYCODE_")
    return KEY_NUMBERS.get(bare, bare)


def payment_element(screen: Screen) -> Element | None:
    """The element a payment step is taken with (Checkout, Pay, 下单), if the screen has one."""
    for e in screen.elements:
        if e.actionable and reads_as_payment(e.label):
            return e
    return None


def payment_screen_label(screen: Screen) -> str:
    """What makes this a payment screen (its Pay/Checkout button, or an activity named so), or ""."""
    el = payment_element(screen)
    if el is not None:
        return el.label
    if screen.activity and classify_place(screen.activity).risk is not RiskClass.NONE:
        return screen.activity
    texts = [t.strip() for t in screen.texts() if t.strip()]
    if amounts_in(" | ".join(texts)):
        # An amount is due and something says so ("Total", "tap Pay now"): an app may hide
        # its checkout behind any button, field or key here.
        for t in texts:
            if reads_as_payment(t) or says_due(t):
                return t[:80]
    return ""


def unclear_target(screen: Screen, kind: str, pay_label: str) -> ActionTarget:
    """An input whose target can't be told for sure while a payment screen is in front.
    The approval policy refuses a payment step it can't pin down (a consent never covers
    it) — but only one the classifier calls a payment step: named by a screen's Pay button
    it is one; named only by the screen's "Total ¥23.50" it goes as an unlabeled control
    on that (checkout-like) screen, which the classifier's structure rule calls one."""
    named = classify(pay_label).risk is not RiskClass.NONE
    return ActionTarget(
        label=pay_label if named else "",
        app=screen.foreground_package,
        kind=kind,
        screen_text=screen_text(screen),
        on_screen=False,
        unclear=True,
        screen_place=screen.activity,
        actionable=not named,
    )


def element_target(screen: Screen, el: Element | None, kind: str, *, pay_label: str | None = None) -> ActionTarget:
    """A press on `el` (None: on nothing): its label, with a dialog's question for a
    dialog's button (`OK` on "Confirm payment?" agrees to the payment); unclear when it
    hits nothing pressable while a payment screen is in front."""
    text = screen_text(screen)
    label = el.label if el is not None else ""
    dialog = read_dialog(screen) if el is not None and el.node.clickable else None
    if dialog is not None and el is not None and any(b.node.order == el.node.order for b in dialog.buttons):
        label = press_label(dialog, el)
        text = " | ".join(t for t in (dialog.all_text, text) if t)[:SCREEN_TEXT_MAX]
    if pay_label is None:
        pay_label = payment_screen_label(screen)
    if pay_label and (el is None or (not el.actionable and classify(label).risk is RiskClass.NONE)):
        return unclear_target(screen, kind, pay_label)
    return ActionTarget(
        label=label,
        app=screen.foreground_package,
        kind=kind,
        screen_text=text,
        on_screen=el is not None,
        screen_place=screen.activity,
        actionable=el is not None and el.actionable,
    )


def point_target(screen: Screen, x: int, y: int, kind: str = "tap") -> ActionTarget:
    """What a touch at x,y presses."""
    return element_target(screen, element_under(screen, x, y), kind)


def drag_target(screen: Screen, path: list[tuple[int, int, int]], kind: str = "swipe") -> ActionTarget:
    """What one finger moving along `path` ((ms, x, y) points) lands as.

    - It stays within the touch slop of where it came down: a tap there.
    - It stays inside the pressable (not scrollable) element it came down on: a tap there
      too — Android keeps a view pressed while the finger stays in it, and the press
      fires where the finger lifts.
    - Otherwise it is a drag (a scroll, a swipe): judged by what it comes down on, so a
      drag that begins on Pay is refused like a tap on it, but a drag over a payment
      screen's plain text or list is not "unclear" — scrolling a checkout page is no spend.
    """
    _, x0, y0 = path[0]
    if all(abs(x - x0) < TAP_SLOP_PX and abs(y - y0) < TAP_SLOP_PX for _, x, y in path):
        return point_target(screen, x0, y0, "tap")
    start = element_under(screen, x0, y0)
    if (
        start is not None
        and (start.node.clickable or start.node.long_clickable)
        and not start.node.scrollable
        and all(start.bounds.contains(x, y) for _, x, y in path)
    ):
        return element_target(screen, start, "tap")
    return ActionTarget(
        label=start.label if start is not None else "",
        app=screen.foreground_package,
        kind=kind,
        screen_text=screen_text(screen),
        on_screen=start is not None,
        screen_place=screen.activity,
    )


def focus_target(screen: Screen, kind: str) -> ActionTarget:
    """What Enter / DPAD_CENTER / Space would press: the focused control. A focused text
    field submits its form, which on a payment screen may be the payment: unclear."""
    focused = [e for e in screen.elements if e.node.focused]
    el = focused[-1] if focused else None
    if el is not None and not el.node.editable:
        return ActionTarget(
            label=el.label,
            app=screen.foreground_package,
            kind=kind,
            screen_text=screen_text(screen),
            screen_place=screen.activity,
            actionable=True,  # it has the key focus: the key presses it
        )
    return submit_target(screen, kind)


def submit_target(screen: Screen, kind: str) -> ActionTarget:
    """Enter in a text field submits its form; on a payment screen that may be the payment."""
    pay_label = payment_screen_label(screen)
    if pay_label:
        return unclear_target(screen, kind, pay_label)
    return ActionTarget(
        label="",
        app=screen.foreground_package,
        kind=kind,
        screen_text=screen_text(screen),
        screen_place=screen.activity,
    )


def focused_editable(screen: Screen) -> Element | None:
    fields = [e for e in screen.elements if e.node.editable and e.node.focused]
    return fields[-1] if fields else None


def field_target(screen: Screen, kind: str = "type", *, text: str = "") -> ActionTarget:
    """Text going into the focused field: its label, and whether it is secret (a secret
    field on a payment screen is the pay password: the final pay). Text with a line break
    may submit the field's form as Enter does, so it is judged as that submit too. No
    focused field on a payment screen: where the text goes can't be told (unclear)."""
    field = focused_editable(screen)
    if field is None:
        pay_label = payment_screen_label(screen)
        if pay_label:
            return unclear_target(screen, kind, pay_label)
        return ActionTarget(
            app=screen.foreground_package,
            kind=kind,
            screen_text=screen_text(screen),
            on_screen=False,
            screen_place=screen.activity,
        )
    typed = ActionTarget(
        label=field.label,
        app=screen.foreground_package,
        kind=kind,
        screen_text=screen_text(screen),
        screen_place=screen.activity,
        secret=field.node.password,
    )
    if "\n" in text or "\r" in text:
        return riskiest([typed, submit_target(screen, kind)])
    return typed


def place_targets(places: Iterable[str], *, kind: str, app: str, text: str = "") -> list[ActionTarget]:
    """One target per place an intent or a launch names (a link, a component, the page
    the intent resolves to)."""
    return [ActionTarget(label=p, place=p, app=app, kind=kind, screen_text=text) for p in dict.fromkeys(places) if p]
