"""What a touch at a point presses, of everything a screen's read shows under it.

Shared by the phone's and the web's gated ports: both read the screen the input lands on
and hand the element found here, as an `ActionTarget`, to the one payment judgement.
"""

from __future__ import annotations

from mika.action.risk import RiskClass, classify, classify_touch
from mika.tool.declaration import ActionTarget
from mika.uistate import Element, Screen

SCREEN_TEXT_MAX = 4000  # characters of screen text the judgement reads

RANK = {
    RiskClass.PAY: 4,
    RiskClass.PAYMENT: 3,
    RiskClass.SETTING: 3,
    RiskClass.OUTWARD: 2,
    RiskClass.IRREVERSIBLE: 1,
    RiskClass.NONE: 0,
}


def screen_text(screen: Screen | None) -> str:
    if screen is None:
        return ""
    return " | ".join(t.strip() for t in screen.texts() if t.strip())[:SCREEN_TEXT_MAX]


def element_under(screen: Screen, x: int, y: int) -> Element | None:
    """Of the elements under a point, the one whose label is riskiest: a point on a Pay
    button is the Pay button even where a smaller text sits on top of it.

    Where a window lies over the point and has something pressable there (a dialog's
    Close button over the page's Check out), that window takes the touch, so only its
    elements are judged: closing a tips bubble is no payment. A keyboard is not trusted
    to take it (its Enter may submit the form below), nor is a window with nothing
    pressable at the point — then every element under the point counts, as before.
    """
    hits = [e for e in screen.elements if e.bounds.contains(x, y)]
    if not hits:
        return None
    top = _window_taking(screen, x, y, hits)
    if top is not None:
        hits = [e for e in hits if e.window == top]
    text = screen_text(screen)
    return max(hits, key=lambda e: (RANK[classify(e.label, text).risk], e.actionable, -e.bounds.area, e.window))


def _window_taking(screen: Screen, x: int, y: int, hits: list[Element]) -> int | None:
    """The topmost window holding the point, if it has a pressable element there (windows
    are listed top first)."""
    for w in sorted(screen.windows, key=lambda w: w.index):
        if not w.bounds.contains(x, y):
            continue
        if w.kind == "keyboard":
            return None
        if any(e.window == w.index and e.actionable for e in hits):
            return w.index
        return None
    return None


def riskiest(targets: list[ActionTarget], kind: str = "") -> ActionTarget:
    """The one of several descriptions of an input (its fingers, its places) that the
    judgement must see: refused-for-sure first (unclear on a payment screen), then by risk."""
    if not targets:
        return ActionTarget(kind=kind)

    def rank(t: ActionTarget) -> float:
        risk = classify_touch(t).risk
        if t.unclear and risk is RiskClass.PAYMENT:
            return 3.5  # refused, never asked: above a payment step that could be asked
        return RANK[risk]

    return max(targets, key=rank)
