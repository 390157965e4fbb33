"""`SensitiveFilter`: what memory must never keep — passwords, PINs, verification codes,
card numbers, Chinese resident id numbers, passport and bank account numbers, CVVs.

Everything is matched on `text.normal` (full-width digits, zero-width characters, look-alike
letters and odd dashes undone), and numbers are read through the separators people and
attackers put inside them ("4111 1111-1111 1111", "1 2 3 4", "one two three four").
A finding names its kind so a refusal can say what was wrong; it never repeats the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mika.memory.text import normal

# Number words read as digits, so a PIN spelled out is still a PIN.
_NUMBER_WORDS = {
    "zero": "0",
    "oh": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "零": "0",
    "〇": "0",
    "一": "1",
    "二": "2",
    "两": "2",
    "三": "3",
    "四": "4",
    "五": "5",
    "六": "6",
    "七": "7",
    "八": "8",
    "九": "9",
    "幺": "1",
}
_EN_NUM = re.compile(
    r"\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)(?:[\s,\-]+(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)){2,}\b",
    re.I,
)
_ZH_NUM = re.compile("[零〇一二两三四五六七八九幺]{3,}")

# A digit run with separators inside: single spaces, dashes, dots, underscores.
_DIGITS = re.compile(r"\d(?:[ \-._/]?\d)*")
_ID_CN = re.compile(r"(?<![0-9])(\d{6})[ \-]?(\d{4})[ \-]?(\d{4})[ \-]?(\d{3}[\dXx])(?![0-9A-Za-z])")

_SECRET_WORDS = (
    r"pass\s*words?|pass\s*codes?|passwd|pwd|pass\s*phrase|pins?|pin\s*codes?|pin\s*numbers?|"
    r"otp|one[\s\-]*time\s*(?:pass\s*word|code|pin)|verification\s*codes?|security\s*codes?|"
    r"confirmation\s*codes?|auth(?:entication|orization)?\s*codes?|login\s*codes?|sms\s*codes?|"
    r"access\s*codes?|2fa(?:\s*codes?)?|mfa(?:\s*codes?)?|unlock\s*codes?|cvv2?|cvc2?|cid|csc"
)
_SECRET_ZH = r"密码|口令|验证码|校验码|动态码|安全码|识别码|短信码|提取码|取件码|确认码|激活码|解锁码|暗码|PIN码|pin码"
_SECRET_KEY = re.compile(rf"(?<![a-z])(?:{_SECRET_WORDS})(?![a-z])|{_SECRET_ZH}", re.I)
# "password is hunter2", "密码是abc": a secret with no digits is still a secret once stated.
_SECRET_STATED = re.compile(
    rf"(?:(?<![a-z])(?:{_SECRET_WORDS})(?![a-z])|{_SECRET_ZH})\s*(?:(?:is|was|=|:|：|are|would be|will be|是|为|就是|是个|設為|设为|设成|改成|改为)\s*)\S+",
    re.I,
)
_ACCOUNT_KEY = re.compile(
    r"(?<![a-z])(?:account\s*(?:number|no\.?|#)|acct\.?(?:\s*(?:number|no\.?|#))?|iban|routing\s*number|"
    r"sort\s*code|swift|bank\s*(?:account|card)|card\s*(?:number|no\.?|#)|credit\s*card|debit\s*card)(?![a-z])"
    r"|银行卡|银行账户|银行帐户|银行账号|银行帐号|账号|帐号|账户号|卡号|信用卡|储蓄卡|借记卡|开户行",
    re.I,
)
_PASSPORT_KEY = re.compile(
    r"(?<![a-z])(?:passport|id\s*card|identity\s*card|national\s*id|social\s*security|ssn|driver'?s?\s*licen[cs]e)(?![a-z])"
    r"|护照|身份证|证件号|社保号|驾驶证|驾照|通行证|居住证",
    re.I,
)
_DOC_NUMBER = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{0,2}\d(?:[ \-]?\d){5,17}[A-Za-z]?(?![A-Za-z0-9])")

NEAR = 32  # characters between a keyword and its value that still count as "near"


@dataclass(frozen=True)
class Finding:
    kind: str  # secret | card | id_number | account | document
    start: int
    end: int

    def describe(self) -> str:
        return _DESCRIBE[self.kind]


_DESCRIBE = {
    "secret": "a password, PIN or verification code",
    "card": "a payment card number",
    "id_number": "a resident identity card number",
    "account": "a bank account number",
    "document": "an identity document number",
}


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def cn_id_ok(number: str) -> bool:
    """GB 11643: the 18th character is a check over the first 17 digits."""
    number = number.upper()
    if len(number) != 18 or not number[:17].isdigit():
        return False
    return _ID_CHECK[sum(int(c) * w for c, w in zip(number[:17], _ID_WEIGHTS, strict=True)) % 11] == number[17]


def _spelled(text: str) -> str:
    """Number words become digits, in place and with the same length where it can, so
    "one two three four" and "一二三四" are read as the digit runs they spell."""

    def en(m: re.Match[str]) -> str:
        words = re.split(r"[\s,\-]+", m.group(0).lower())
        return " ".join(_NUMBER_WORDS[w] for w in words)

    text = _EN_NUM.sub(en, text)
    return _ZH_NUM.sub(lambda m: "".join(_NUMBER_WORDS[c] for c in m.group(0)), text)


def _digit_runs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, digits) for each run of digits, separators inside removed."""
    return [(m.start(), m.end(), re.sub(r"\D", "", m.group(0))) for m in _DIGITS.finditer(text)]


class SensitiveFilter:
    def __init__(self, near: int = NEAR) -> None:
        self.near = near

    def findings(self, text: str) -> list[Finding]:
        t = _spelled(normal(text))
        found: list[Finding] = []
        runs = _digit_runs(t)
        for start, end, digits in runs:
            if 13 <= len(digits) <= 19 and luhn_ok(digits):
                found.append(Finding("card", start, end))
        for m in _ID_CN.finditer(t):
            if cn_id_ok("".join(m.groups())):
                found.append(Finding("id_number", m.start(), m.end()))
        # A secret keyword with a number near it (either side), or stated with "is"/"是".
        for m in _SECRET_KEY.finditer(t):
            for start, end, digits in runs:
                if len(digits) >= 3 and self._near(m.start(), m.end(), start, end):
                    found.append(Finding("secret", min(m.start(), start), max(m.end(), end)))
        for m in _SECRET_STATED.finditer(t):
            found.append(Finding("secret", m.start(), m.end()))
        squeezed = re.sub(r"[^0-9a-z\u3400-\u9fff]", "", t.lower())
        # "p a s s w o r d 1 2 3 4", "p.i.n: 1234": the keyword spelt out with gaps.
        spelt_out = re.search(r"password|passcode|passwd|verificationcode|密码|验证码", squeezed)
        if spelt_out and re.search(r"\d{3}", squeezed) and not any(f.kind == "secret" for f in found):
            found.append(Finding("secret", 0, len(t)))
        for m in _ACCOUNT_KEY.finditer(t):
            for start, end, digits in runs:
                if len(digits) >= 8 and self._near(m.start(), m.end(), start, end):
                    found.append(Finding("account", min(m.start(), start), max(m.end(), end)))
        for m in _PASSPORT_KEY.finditer(t):
            for d in _DOC_NUMBER.finditer(t):
                if sum(c.isdigit() for c in d.group(0)) >= 6 and self._near(m.start(), m.end(), d.start(), d.end()):
                    found.append(Finding("document", min(m.start(), d.start()), max(m.end(), d.end())))
        return sorted(set(found), key=lambda f: (f.start, f.end))

    def _near(self, ks: int, ke: int, vs: int, ve: int) -> bool:
        return (vs >= ke and vs - ke <= self.near) or (ve <= ks and ks - ve <= self.near) or (vs < ke and ve > ks)

    def is_sensitive(self, text: str) -> bool:
        return bool(self.findings(text))

    def first(self, text: str) -> Finding | None:
        found = self.findings(text)
        return found[0] if found else None

    def redact(self, text: str) -> str:
        """The text in normal form with every finding replaced by "[withheld]" — used for
        the source words kept beside an item, which may hold a value the item leaves out."""
        t = _spelled(normal(text))
        out, pos = [], 0
        for f in self.findings(text):
            if f.end <= pos:
                continue
            if f.start >= pos:
                out.append(t[pos : f.start])
                out.append("[withheld]")
            pos = f.end  # overlapping findings are one withheld span
        out.append(t[pos:])
        return "".join(out)
