"""SensitiveFilter as an attacker tries it: every spelling of a secret is still a secret,
and ordinary facts (a train time, a phone number, a zip code) are not."""

from __future__ import annotations

import pytest

from mika.memory.sensitive import SensitiveFilter, cn_id_ok, luhn_ok

F = SensitiveFilter()

SECRETS = {
    # passwords, PINs, codes — English
    "my bank PIN is 1234": "secret",
    "PIN: 1 2 3 4": "secret",
    "pin 1-2-3-4": "secret",
    "PIN one two three four": "secret",
    "my pin code: ９８７６": "secret",  # full-width digits
    "P\u200bI\u200bN 4321": "secret",  # zero-width inside the keyword
    "P\u0406N: 4321": "secret",  # Cyrillic І
    "раssword: qwerty": "secret",  # Cyrillic р and а
    "p a s s w o r d 9876": "secret",
    "the wifi password is sunshine": "secret",
    "passcode = 0000": "secret",
    "OTP 552310": "secret",
    "the verification code is 482913": "secret",
    "482913 is the one-time code": "secret",
    "2FA code 123 456": "secret",
    "CVV 737": "secret",
    "security code: 0 4 2": "secret",
    # Chinese
    "我的银行卡密码是 123456": "secret",
    "密码：abc123": "secret",
    "密 码 是 888888": "secret",
    "验证码 ８８３９２１": "secret",
    "支付密码一二三四五六": "secret",
    "短信码是 7 7 3 1": "secret",
    "安全码 123": "secret",
    # card numbers: valid Luhn, any separators, any script
    "4111 1111 1111 1111": "card",
    "4111-1111-1111-1111": "card",
    "４１１１１１１１１１１１１１１１": "card",
    "4111\u200b1111\u200b1111\u200b1111": "card",
    "card 5555 5555 5555 4444 exp 12/29": "card",
    "卡号6222021234567890128": "card",  # account keyword too
    # Chinese resident id numbers (valid check digit)
    "11010519491231002X": "id_number",
    "110105 1949 1231 002x": "id_number",
    "身份证号 11010519491231002X": "id_number",
    # document / account numbers near their keywords
    "passport E12345678": "document",
    "护照号码 G12345678": "document",
    "my account number is 12345678901": "account",
    "银行账号 6217 0000 1234 5678": "account",
    "IBAN 12345678901234": "account",
}

ORDINARY = [
    "I always take the 7:30 train",
    "我每天坐7:30的火车",
    "my wife is called Anna, her phone is 13812345678",
    "zip code 100080",
    "I prefer brand X",
    "pin the tab to the left",
    "I like spinning classes at 7",
    "my flight is CA1234 on Friday",
    "the order number 202401011234 is for the rice",
    "4111 1111 1111 1112",  # a 16-digit run without a valid Luhn sum
    "110105194912310021",  # an 18-digit run with a wrong check digit
    "I forgot my password last week",  # mentions one, states none
]


@pytest.mark.parametrize(("text", "kind"), SECRETS.items())
def test_secrets_are_found(text: str, kind: str) -> None:
    kinds = {f.kind for f in F.findings(text)}
    assert kinds, f"{text!r} passed the filter"
    assert kind in kinds, (text, kinds)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_facts_pass(text: str) -> None:
    assert F.findings(text) == [], text


def test_redact_withholds_every_value_and_keeps_the_rest() -> None:
    out = F.redact("I always take the 7:30 train; my PIN is 1 2 3 4 and card 4111 1111 1111 1111")
    assert "7:30 train" in out and "1 2 3 4" not in out and "4111" not in out
    far = F.redact("PIN is 1234. " + "I always take the 7:30 train to work on weekdays. " + "Card 4111 1111 1111 1111")
    assert far.count("[withheld]") == 2 and "7:30 train to work" in far
    assert F.redact("nothing here") == "nothing here"


def test_checksums() -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert cn_id_ok("11010519491231002X") and cn_id_ok("11010519491231002x")
    assert not cn_id_ok("110105194912310021") and not cn_id_ok("1101051949123100")


def test_a_finding_describes_without_the_value() -> None:
    (f,) = F.findings("my bank PIN is 1234")
    assert "1234" not in f.describe() and "PIN" in f.describe()
