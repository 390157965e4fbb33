"""Irreversible / outward / payment classification of an action's target label.

Works on English and Chinese labels. A payment step is either a label that reads as
placing an order, or an outward/irreversible label hit while a currency amount is on the
screen; the final "pay" itself is told apart, because it is always handed to the user.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from urllib.parse import unquote

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


# Order matters: the first table that matches wins (pay before payment before outward).
_PAY = [
    r"\bpay\b",
    r"\bpay now\b",
    r"\bconfirm (?:and )?pay",
    r"\bpay with\b",
    r"\bcomplete payment\b",
    r"支付",
    r"付款",
    r"确认支付",
    r"立即支付",
    r"去支付",
    r"确认付款",
]
_PAYMENT = [
    r"\bplace (?:your )?order\b",
    r"\bsubmit order\b",
    r"\bbuy now\b",
    r"\bbuy\b",
    r"\bcheckout\b",
    r"\bcheck out\b",
    r"\bpurchase\b",
    r"\b(?:approve|allow|authori[sz]e|accept) (?:the |this )?payment\b",
    r"\bconfirm order\b",
    r"\bsubscribe\b",
    r"\bproceed to checkout\b",
    r"下单",
    r"提交订单",
    r"立即购买",
    r"购买",
    r"去结算",
    r"结算",
    r"确认订单",
    r"立即下单",
    r"开通会员",
    r"充值",
]
_OUTWARD = [
    r"\bsend\b",
    r"\bsubmit\b",
    r"\bpost\b",
    r"\bpublish\b",
    r"\breply\b",
    r"\btweet\b",
    r"\bsay hi\b",
    r"\beasy apply\b",
    r"\bapply now\b",
    r"\bcomment\b",
    r"\binvite\b",
    r"发送",
    r"提交",
    r"发布",
    r"发表",
    r"回复",
    r"立即沟通",
    r"打招呼",
    r"投递",
    r"申请",
    r"评论",
    r"邀请",
]
_IRREVERSIBLE = [
    r"\bdelete\b",
    r"\bremove\b",
    r"\berase\b",
    r"\bclear all\b",
    r"\bunsubscribe\b",
    r"\bblock\b",
    r"\bfactory reset\b",
    r"\buninstall\b",
    r"删除",
    r"移除",
    r"清空",
    r"注销",
    r"卸载",
    r"拉黑",
    r"撤回",
]

# Words that agree to something. Alone they are nothing; with an amount due on the screen
# they are how an app (or a dialog it draws) gets a spend approved: "Allow", "OK", "确认".
_ASSENT = [
    r"\ballow\b",
    r"\bapprove\b",
    r"\baccept\b",
    r"\bconfirm\b",
    r"\bok\b",
    r"\bokay\b",
    r"\byes\b",
    r"\bcontinue\b",
    r"\bproceed\b",
    r"\bagree\b",
    r"\bauthori[sz]e\b",
    r"\bgot it\b",
    r"允许",
    r"同意",
    r"批准",
    r"确认",
    r"确定",
    r"继续",
    r"好的",
    r"授权",
]

_TABLES = [
    (RiskClass.PAY, [re.compile(p, re.I) for p in _PAY]),
    (RiskClass.PAYMENT, [re.compile(p, re.I) for p in _PAYMENT]),
    (RiskClass.OUTWARD, [re.compile(p, re.I) for p in _OUTWARD]),
    (RiskClass.IRREVERSIBLE, [re.compile(p, re.I) for p in _IRREVERSIBLE]),
    (RiskClass.NONE, [re.compile(p, re.I) for p in _ASSENT]),  # only with an amount due (classify)
]

# Words of a link or an activity name that lead to paying: a deep link, a web address or a
# component like com.mika.shop/.CheckoutActivity is split into words and looked up here.
_PLACE_WORDS = {
    "checkout",
    "pay",
    "payment",
    "payments",
    "order",
    "orders",
    "cashier",
    "purchase",
    "buy",
    "billing",
    "settle",
    "settlement",
    "alipays",
    "confirmorder",
    "placeorder",
    "submitorder",
    "alipay",
    "wxpay",
    "wechatpay",
    "paypal",
    "unionpay",
    "gpay",
    "applepay",
}

# An amount with a currency: ¥23.50, ￥ 9, $4.99, 23.50元, €3, RMB 100, US$ 5, 12.00 USD.
_AMOUNT = re.compile(
    r"(?:[¥￥$€£]|US\$|RMB|CNY|USD|EUR)\s?\d[\d,]*(?:\.\d{1,2})?"
    r"|\d[\d,]*(?:\.\d{1,2})?\s?(?:元|块|USD|CNY|RMB|EUR)",
    re.I,
)


def amounts_in(text: str) -> list[str]:
    """Every currency amount shown in `text`, normalised (no inner spaces)."""
    return [re.sub(r"\s+", "", m.group(0)) for m in _AMOUNT.finditer(text or "")]


def amount_value(amount: str) -> float | None:
    digits = re.search(r"\d[\d,]*(?:\.\d+)?", amount or "")
    if not digits:
        return None
    return float(digits.group(0).replace(",", ""))


@dataclass(frozen=True)
class Classified:
    risk: RiskClass
    matched: str = ""  # what in the label made it so
    amount: str = ""  # the amount on screen, when one decided it


def classify(label: str, screen_text: str = "") -> Classified:
    label = (label or "").strip()
    if not label:
        return Classified(RiskClass.NONE)
    for risk, patterns in _TABLES:
        for p in patterns:
            m = p.search(label)
            if m:
                amounts = amounts_in(screen_text)
                if risk is RiskClass.NONE:
                    # An assent word: a spend only while an amount is due.
                    if amounts:
                        return Classified(RiskClass.PAYMENT, m.group(0), amounts[-1])
                    return Classified(RiskClass.NONE)
                if risk in (RiskClass.OUTWARD, RiskClass.IRREVERSIBLE) and amounts:
                    # Submitting while an amount is due is spending money.
                    return Classified(RiskClass.PAYMENT, m.group(0), amounts[-1])
                return Classified(risk, m.group(0), amounts[-1] if amounts else "")
    return Classified(RiskClass.NONE)


def reads_as_payment(label: str) -> bool:
    """The label itself reads as checkout or pay (no amount needed)."""
    label = (label or "").strip()
    return bool(label) and any(p.search(label) for risk, ps in _TABLES[:2] for p in ps)


def place_words(place: str) -> list[str]:
    """A link, a package or an activity, as lower-case words: camelCase and punctuation split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", place or "")
    return [w.lower() for w in re.split(r"[^A-Za-z0-9\u4e00-\u9fff]+", spaced) if w]


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
        if word in _PLACE_WORDS or word.endswith("pay") or word.startswith("pay"):
            return Classified(RiskClass.PAYMENT, word, due)
    return Classified(RiskClass.NONE)


# Targets that name a place (a link, an intent, an app to share into) rather than a button.
PLACE_KINDS = ("link", "intent", "share", "launch")


def classify_target(label: str, kind: str, screen_text: str = "") -> Classified:
    """The check every acting route gets: a button by its label, a place by its words."""
    if kind in PLACE_KINDS:
        return classify_place(label, screen_text)
    return classify(label, screen_text)


# Words that say an amount is due (not just a price in a list).
DUE_WORDS = re.compile(r"\b(?:total|amount due|subtotal|to pay|order total)\b|合计|总计|实付|应付|待支付", re.I)


def checkout_like(screen_text: str, screen_place: str = "") -> bool:
    """The screen is where money is spent: its place reads as checkout/pay, or it shows an
    amount and says that amount is due (or offers a payment button)."""
    if screen_place and classify_place(screen_place).risk is not RiskClass.NONE:
        return True
    if not amounts_in(screen_text):
        return False
    return any(DUE_WORDS.search(part) or reads_as_payment(part) for part in screen_text.split(" | "))


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
