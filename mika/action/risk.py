"""Irreversible / outward / payment classification of an action's target label.

A payment step is either a label that reads as placing an order, or an outward,
irreversible or assenting label hit while a currency amount is on the screen; the final
"pay" itself is told apart, because it is always handed to the user. The payment words
are read in some thirty languages (mika.action.vocabulary), in every way a person may
read the label (mika.action.fold); outward and irreversible words are English and
Chinese. Amounts are read as shops around the world print them (mika.action.amounts).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from urllib.parse import unquote

from mika.action.amounts import amounts_in
from mika.action.fold import fold, readings
from mika.action.vocabulary import (
    ASSENT,
    DUE,
    PAY,
    PAYMENT,
    PLACE_BENIGN,
    PLACE_STEMS,
    PLACE_WORDS,
    compile_words,
    without_benign,
)
from mika.tool.declaration import ActionTarget


class RiskClass(enum.Enum):
    NONE = "none"
    IRREVERSIBLE = "irreversible"  # delete, remove: not outward, not asked
    OUTWARD = "outward"  # send, post, submit, contact someone: paced, not asked
    PAYMENT = "payment"  # place an order / buy: asked (ConfirmationGate)
    PAY = "pay"  # the final pay: handed to the user
    # A change to the phone's security (lock screen, install sources, accessibility, device
    # admin, developer options): asked like a payment step, never run unattended.
    SETTING = "setting"


_OUTWARD = [
    "send",
    "submit",
    "post",
    "publish",
    "reply",
    "tweet",
    "say hi",
    "easy apply",
    "apply now",
    "comment",
    "invite",
    "发送",
    "提交",
    "发布",
    "发表",
    "回复",
    "立即沟通",
    "打招呼",
    "投递",
    "申请",
    "评论",
    "邀请",
]
_IRREVERSIBLE = [
    "delete",
    "remove",
    "erase",
    "clear all",
    "unsubscribe",
    "block",
    "factory reset",
    "uninstall",
    "删除",
    "移除",
    "清空",
    "注销",
    "卸载",
    "拉黑",
    "撤回",
]

# Outward and irreversible words (English and Chinese): paced and logged, and a spend only
# while an amount is due. The payment words of every language are in mika.action.vocabulary.
_OUTWARD_RE = compile_words(_OUTWARD)
_IRREVERSIBLE_RE = compile_words(_IRREVERSIBLE)
# Order matters: the first that matches a reading wins (pay before payment before outward).
_TABLES = [
    (RiskClass.PAY, PAY),
    (RiskClass.PAYMENT, PAYMENT),
    (RiskClass.OUTWARD, _OUTWARD_RE),
    (RiskClass.IRREVERSIBLE, _IRREVERSIBLE_RE),
    (RiskClass.NONE, ASSENT),  # only with an amount due (classify)
]


@dataclass(frozen=True)
class Classified:
    risk: RiskClass
    matched: str = ""  # what in the label made it so
    amount: str = ""  # the amount on screen, when one decided it


def _first_match(label: str) -> tuple[RiskClass, str] | None:
    """The first table (in `_TABLES` order) that matches any reading of the label."""
    texts = [without_benign(r) for r in readings(label)]
    for risk, pattern in _TABLES:
        for text in texts:
            m = pattern.search(text)
            if m:
                return risk, m.group(0)
    return None


def classify(label: str, screen_text: str = "") -> Classified:
    label = (label or "").strip()
    if not label:
        return Classified(RiskClass.NONE)
    found = _first_match(label)
    if found is None:
        return Classified(RiskClass.NONE)
    risk, matched = found
    amounts = amounts_in(screen_text)
    if risk is RiskClass.NONE:
        # An assent word: a spend only while an amount is due.
        if amounts:
            return Classified(RiskClass.PAYMENT, matched, amounts[-1])
        return Classified(RiskClass.NONE)
    if risk in (RiskClass.OUTWARD, RiskClass.IRREVERSIBLE) and amounts:
        # Submitting while an amount is due is spending money.
        return Classified(RiskClass.PAYMENT, matched, amounts[-1])
    return Classified(risk, matched, amounts[-1] if amounts else "")


def reads_as_payment(label: str) -> bool:
    """The label itself reads as checkout or pay (no amount needed)."""
    label = (label or "").strip()
    if not label:
        return False
    found = _first_match(label)
    return found is not None and found[0] in (RiskClass.PAY, RiskClass.PAYMENT)


def says_due(text: str) -> bool:
    """The text says an amount is owed ("Total", "Gesamtsumme", "合計"), in any language."""
    return any(DUE.search(r) for r in readings(text or ""))


def place_words(place: str) -> list[str]:
    """A link, a package or an activity, as lower-case words: camelCase and punctuation split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", place or "")
    return [w for w in re.split(r"[^\w]+|_", fold(spaced)) if w]


def plain_place(place: str) -> str:
    """`place` with its percent-escapes undone, a few layers deep (a link escaped twice
    still names the page it opens); a few layers are enough for any real link."""
    for _ in range(4):
        plain = unquote(place or "")
        if plain == place:
            break
        place = plain
    return place


def classify_place(place: str, screen_text: str = "") -> Classified:
    """Where a link, an intent or an activity leads: PAYMENT when its host, path or name
    reads as checkout / pay / order (`mikashop://checkout`, `.pay.PasswordActivity`).
    The address is read as a person reads it: percent-escapes undone first, so
    `/%63heckout` or `/%2563heckout` is still a checkout."""
    place = plain_place(place)
    amounts = amounts_in(screen_text)
    due = amounts[-1] if amounts else ""
    by_label = classify(place)  # no screen text: an "ok" in a link is no assent to a spend
    if by_label.risk in (RiskClass.PAY, RiskClass.PAYMENT):
        # A link is not the final button: opening a pay page is a payment step, asked.
        return Classified(RiskClass.PAYMENT, by_label.matched, due)
    for word in place_words(place):
        if word in PLACE_WORDS or ((word.startswith("pay") or word.endswith("pay")) and word not in PLACE_BENIGN):
            return Classified(RiskClass.PAYMENT, word, due)
    # A stem anywhere in the address, its separators taken out: `/checkoutnow`,
    # `checkouts/c/7f3a`, `/check-out`.
    joined = re.sub(r"[\W_]+", "", fold(place))
    for stem in PLACE_STEMS:
        if stem in joined:
            return Classified(RiskClass.PAYMENT, stem, due)
    return Classified(RiskClass.NONE)


# Targets that name a place (a link, an intent, an app to share into) rather than a button.
PLACE_KINDS = ("link", "intent", "share", "launch")


def classify_target(label: str, kind: str, screen_text: str = "") -> Classified:
    """The check every acting route gets: a button by its label, a place by its words."""
    if kind in PLACE_KINDS:
        return classify_place(label, screen_text)
    return classify(label, screen_text)


def checkout_like(screen_text: str, screen_place: str = "") -> bool:
    """The screen is where money is spent: its place reads as checkout/pay, or it shows an
    amount and says that amount is due (or offers a payment button)."""
    if screen_place and classify_place(screen_place).risk is not RiskClass.NONE:
        return True
    if not amounts_in(screen_text):
        return False
    return any(says_due(part) or reads_as_payment(part) for part in screen_text.split(" | "))


def classify_touch(target: ActionTarget) -> Classified:
    """The one judgement of an input that reaches a screen (mika.action.input_gate): the
    element's label, where the input leads, and the screen's structure.

    - a place (a link, an intent, an app to launch or share into) by its words;
    - a button by its label (with an amount due, assent and outward words are a spend);
    - an input whose element leads somewhere (a link's address) by that place too;
    - a secret field on a checkout-like screen is the payment password: the final pay;
    - an unlabeled control that can be pressed on a checkout-like screen (an icon-only
      button beside the total) is taken for the payment button it most likely is."""
    text = target.screen_text
    if target.kind == "setting":
        # The port names the setting (mika.cap.phone.risky_settings); which ones are risky
        # is decided there, where the commands are read.
        return Classified(RiskClass.SETTING, target.label)
    if target.kind in PLACE_KINDS:
        return classify_place(target.label or target.place, text)
    by_label = classify(target.label, text)
    if target.secret and checkout_like(text, target.screen_place):
        amounts = amounts_in(text)
        return Classified(RiskClass.PAY, "a secret field on a payment screen", amounts[-1] if amounts else "")
    if by_label.risk is not RiskClass.NONE:
        return by_label
    if target.place:
        by_place = classify_place(target.place, text)
        if by_place.risk is not RiskClass.NONE:
            return by_place
    if target.actionable and not (target.label or "").strip() and checkout_like(text, target.screen_place):
        amounts = amounts_in(text)
        return Classified(RiskClass.PAYMENT, "an unlabeled control on a payment screen", amounts[-1] if amounts else "")
    return Classified(RiskClass.NONE)
