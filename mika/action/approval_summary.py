"""What a payment step is, as the screen shows it — for the approval card and request.

A person approving a payment must see what the phone shows (item, amount, app, the
button), not what the model says it is; the model's words are only compared against it.
`summarize` reads the screen's texts in order (the listing around the payment button);
`compare` names every way the model's claim differs. The TUI card, the headless request
and an MCP face all show this one summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mika.action.amounts import amount_value, amounts_in
from mika.action.copy import t
from mika.action.risk import reads_as_payment, says_due

_MAX_ITEMS = 3
# How screen texts are joined: " | " by the phone tools, " · " by simple text screens.
_JOINS = re.compile(r"\s[|·]\s")


def _due(text: str) -> bool:
    """A line that says the amount due ("Total: ¥23.50", "实付") or asks it paid ("Pay ¥23.50")."""
    return says_due(text) or reads_as_payment(text)


@dataclass(frozen=True)
class ScreenSummary:
    item: str = ""  # what the listing near the button names ("Green Tea 250g × 1")
    amount: str = ""  # the amount due as shown ("¥23.50")
    app: str = ""  # the app in front
    button: str = ""  # the payment button's label ("Checkout", "Pay ¥23.50")
    # "setting" when the held-back step changes a risky setting (then `button` names the
    # setting and `item` says what the change does): asked without an amount.
    kind: str = "payment"

    @property
    def known(self) -> bool:
        return bool(self.item or self.amount)

    def as_dict(self) -> dict[str, str]:
        return {"item": self.item, "amount": self.amount, "app": self.app, "button": self.button}

    def line(self) -> str:
        """One line for logs and progress output: item — amount (button) in app."""
        parts = [self.item or "?", self.amount or "?"]
        text = " — ".join(parts)
        if self.button:
            text += f" ({self.button})"
        return text + (f" in {self.app}" if self.app else "")


@dataclass(frozen=True)
class ApprovalSummary:
    screen: ScreenSummary
    mismatches: tuple[str, ...] = field(default=())  # sentences, in the UI language


def split_screen_text(screen_text: str) -> list[str]:
    """The screen's texts in order, from the " | "-joined text the tools hand the check."""
    return [p.strip() for p in _JOINS.split(screen_text or "") if p.strip()]


def summarize(lines: list[str], *, button: str = "", app: str = "") -> ScreenSummary:
    """Item, amount and button from the screen's texts in listing order.

    Amount: on the line that says it is due nearest before the button (or on the button:
    "Pay ¥23.50"), else the last amount shown. Item: each text directly followed by a
    price line (a row and its price, as lists show them), nearest the button first."""
    stop = _index_of(lines, button)
    before = lines[: stop + 1] if stop is not None else lines
    amount, due_at = "", None
    for i in range(len(before) - 1, -1, -1):
        found = amounts_in(before[i])
        if found and (_due(before[i]) or before[i] == button):
            amount, due_at = found[-1], i
            break
    if not amount:
        every = [a for text in before for a in amounts_in(text)]
        amount = every[-1] if every else ""
    items: list[str] = []
    for i in range(len(before) - 1):
        text, nxt = before[i], before[i + 1]
        if amounts_in(text) or _due(text):
            continue
        if amounts_in(nxt) and not _due(nxt) and text not in items:
            items.append(text)
    if not items and due_at is not None and due_at >= 2:
        # No priced rows: the line just above the amount due names what it is for.
        above = before[due_at - 1]
        if not amounts_in(above) and not _due(above):
            items.append(above)
    item = ", ".join(items[-_MAX_ITEMS:])
    if len(items) > _MAX_ITEMS:
        item += f" (+{len(items) - _MAX_ITEMS})"
    return ScreenSummary(item=item, amount=amount, app=app, button=button)


def summarize_text(screen_text: str, *, button: str = "", app: str = "") -> ScreenSummary:
    return summarize(split_screen_text(screen_text), button=button, app=app)


def compare(screen: ScreenSummary, *, what: str = "", amount: str = "", app: str = "") -> ApprovalSummary:
    """The screen's summary and, for each way the model's claim differs, a sentence."""
    notes: list[str] = []
    if not screen.known and not screen.button:
        notes.append(t("claim_unchecked"))
        return ApprovalSummary(screen, tuple(notes))
    if not screen.amount and screen.button:
        # The step's own screen shows no amount (a menu's Checkout): the amount is the
        # model's word until the next page shows it.
        notes.append(t("claim_amount_unseen", claim=amount or "?", button=screen.button))
    claimed = amount_value(amount) if amounts_in(amount) else None
    shown = amount_value(screen.amount) if screen.amount else None
    if amount and shown is not None and claimed != shown:
        notes.append(t("claim_amount_differs", claim=amount, shown=screen.amount))
    if what and screen.item and not _names_overlap(what, screen.item):
        notes.append(t("claim_item_differs", claim=what, shown=screen.item))
    if app and screen.app and app != screen.app:
        notes.append(t("claim_app_differs", claim=app, shown=screen.app))
    return ApprovalSummary(screen, tuple(notes))


def _index_of(lines: list[str], label: str) -> int | None:
    if not label:
        return None
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] == label:
            return i
    return None


def _words(text: str) -> set[str]:
    # Latin words of 3+ letters, and CJK characters one by one (no spaces to split on).
    lowered = text.casefold()
    return set(re.findall(r"[a-z]{3,}", lowered)) | set(re.findall(r"[\u4e00-\u9fff]", lowered))


def _names_overlap(claim: str, shown: str) -> bool:
    """Whether the model's name for the item shares a word with the screen's."""
    a, b = _words(claim), _words(shown)
    return not a or not b or bool(a & b)
