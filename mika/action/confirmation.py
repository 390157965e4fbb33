"""`ConfirmationGate`: a consent releases exactly the next matching action.

Matching means: same app, same kind of action, the target on the screen, the declared
amount on the screen, within 3 steps of the consent, and no other write in between.
Anything else voids the consent. A consent is spent only by the starters it was given
for: the user's consent at the TUI or terminal by the model's own calls (and its
batches), a consent an MCP client's user gave through elicitation only by that client's
own next call (never by a model, a replay or a script).

Some payment steps show no amount at all: a menu's "Checkout" opens the page that says
what is due. A consent given for such a step (the person was told the screen showed no
amount) releases only that same button, on a screen that still shows no amount other
than the one consented to; the final pay is handed to the person anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from mika.action.amounts import amount_value, amounts_in
from mika.action.origin import Origin

WITHIN_STEPS = 3


@dataclass(frozen=True)
class Consent:
    app: str
    kind: str
    amount: str
    what: str
    step: int
    # False when the held-back step's screen showed no amount: then `button` (its label)
    # is what the consent names, and no other amount may have appeared since.
    amount_on_screen: bool = True
    button: str = ""
    spent_by: frozenset[Origin] = frozenset(o for o in Origin if o.may_use_consent)


def setting_consent(setting: str, what: str, step: int, spent_by: frozenset[Origin] | None = None) -> Consent:
    """A person's yes to one risky setting change (the lock screen off, an install source
    on): it names the setting and no amount, and releases only a change of that setting."""
    return Consent(
        app="",
        kind="setting",
        amount="",
        what=what,
        step=step,
        amount_on_screen=False,
        button=setting,
        spent_by=spent_by if spent_by is not None else frozenset(o for o in Origin if o.may_use_consent),
    )


class ConfirmationGate:
    def __init__(self) -> None:
        self._consent: Consent | None = None

    @property
    def pending(self) -> Consent | None:
        return self._consent

    def grant(self, consent: Consent) -> None:
        self._consent = consent

    def release(
        self,
        *,
        app: str,
        kind: str,
        screen_text: str,
        on_screen: bool,
        step: int,
        label: str = "",
        origin: Origin = Origin.MODEL,
    ) -> bool:
        """True if a consent covers this action; the consent is spent either way it matches."""
        c = self._consent
        if c is None or origin not in c.spent_by:
            return False
        if step - c.step > WITHIN_STEPS:
            self._consent = None
            return False
        if c.app and app and c.app != app:
            return False
        if c.kind and kind and c.kind != kind:
            return False
        if (kind == "setting") != (c.kind == "setting"):
            return False  # a yes to a payment never changes a setting, nor the other way
        if not on_screen:
            return False
        if c.amount_on_screen:
            if not _amount_shown(c.amount, screen_text):
                return False
        elif (c.button and label.strip() != c.button.strip()) or not _no_other_amount(c.amount, screen_text):
            return False
        self._consent = None
        return True

    def note_write(self) -> None:
        """Another write happened: a consent never carries over it."""
        self._consent = None


def _amount_shown(amount: str, screen_text: str) -> bool:
    want = amount_value(amount)
    if want is None:
        return False
    return any(amount_value(a) == want for a in amounts_in(screen_text))


def _no_other_amount(amount: str, screen_text: str) -> bool:
    want = amount_value(amount)
    return all(amount_value(a) == want for a in amounts_in(screen_text))
