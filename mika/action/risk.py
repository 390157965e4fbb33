"""Irreversible / outward / payment classification of an action's target label.

Works on English and Chinese labels. A payment step is either a label that reads as
placing an order, or an outward/irreversible label hit while a currency amount is on the
screen; the final "pay" itself is told apart, because it is always handed to the user.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class RiskClass(enum.Enum):
    NONE = "none"
    IRREVERSIBLE = "irreversible"  # delete, remove: not outward, not asked
    OUTWARD = "outward"  # send, post, submit, contact someone: paced, not asked
    PAYMENT = "payment"  # place an order / buy: asked (ConfirmationGate)
    PAY = "pay"  # the final pay: handed to the user


# Order matters: the first table that matches wins (pay before payment before outward).
_PAY = [
    r"\bpay\b", r"\bpay now\b", r"\bconfirm (?:and )?pay", r"\bpay with\b", r"\bcomplete payment\b",
    r"支付", r"付款", r"确认支付", r"立即支付", r"去支付", r"确认付款",
]
_PAYMENT = [
    r"\bplace (?:your )?order\b", r"\bsubmit order\b", r"\bbuy now\b", r"\bbuy\b", r"\bcheckout\b",
    r"\bcheck out\b", r"\bpurchase\b", r"\bconfirm order\b", r"\bsubscribe\b", r"\bproceed to checkout\b",
    r"下单", r"提交订单", r"立即购买", r"购买", r"去结算", r"结算", r"确认订单", r"立即下单", r"开通会员", r"充值",
]
_OUTWARD = [
    r"\bsend\b", r"\bsubmit\b", r"\bpost\b", r"\bpublish\b", r"\breply\b", r"\btweet\b",
    r"\bsay hi\b", r"\beasy apply\b", r"\bapply now\b", r"\bcomment\b", r"\binvite\b",
    r"发送", r"提交", r"发布", r"发表", r"回复", r"立即沟通", r"打招呼", r"投递", r"申请", r"评论", r"邀请",
]
_IRREVERSIBLE = [
    r"\bdelete\b", r"\bremove\b", r"\berase\b", r"\bclear all\b", r"\bunsubscribe\b", r"\bblock\b",
    r"\bfactory reset\b", r"\buninstall\b",
    r"删除", r"移除", r"清空", r"注销", r"卸载", r"拉黑", r"撤回",
]

_TABLES = [
    (RiskClass.PAY, [re.compile(p, re.I) for p in _PAY]),
    (RiskClass.PAYMENT, [re.compile(p, re.I) for p in _PAYMENT]),
    (RiskClass.OUTWARD, [re.compile(p, re.I) for p in _OUTWARD]),
    (RiskClass.IRREVERSIBLE, [re.compile(p, re.I) for p in _IRREVERSIBLE]),
]

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
                if risk in (RiskClass.OUTWARD, RiskClass.IRREVERSIBLE) and amounts:
                    # Submitting while an amount is due is spending money.
                    return Classified(RiskClass.PAYMENT, m.group(0), amounts[-1])
                return Classified(risk, m.group(0), amounts[-1] if amounts else "")
    return Classified(RiskClass.NONE)
