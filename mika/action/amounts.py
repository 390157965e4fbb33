"""Money amounts as shops around the world print them.

`¥23.50`, `23,50 €`, `1.234,56 €`, `R$ 1.299,90`, `₹1,23,456.00`, `₩12,000`,
`12 345,67 ₽`, `CHF 9.–`, `US$5`, `23.50元`, `100 TL`, `Rp 150.000`: a currency (a sign,
an ISO code or a local word) before or after a number whose groups are split by commas,
dots, spaces or apostrophes. Fullwidth `￥２３` and no-break spaces count as the plain
ones; `amount_value` reads them so too.

Finding an amount is this module's (a currency must stand by the number, or it is no
amount); reading its number is price-parser's, a maintained parser that tells the decimal
mark from grouping the way its writer meant: `23,50` is 23.5, `12,000` twelve thousand,
`150.000` a hundred and fifty thousand.
"""

from __future__ import annotations

import re
import unicodedata

# Signs and prefixes that stand before (or after) a number.
_SIGNS = r"[$€£¥￥＄￡￦₹₩₽₺₫฿₱₪₦₴₸₼₾₡₲₵₭₮₯₠৳₨]|US\$|C\$|A\$|NZ\$|HK\$|NT\$|S\$|R\$|MX\$|Mex\$|COL\$|RD\$|zł|Kč|лв|руб\.?|грн|р\.|ريال|درهم|ر\.س|د\.إ|ج\.م"
# ISO codes and local words, as whole words.
_CODES = (
    "USD|EUR|GBP|CNY|RMB|JPY|KRW|INR|RUB|TRY|BRL|MXN|IDR|VND|THB|PHP|PLN|SEK|NOK|DKK|CHF|CAD|AUD|NZD|HKD|TWD|SGD"
    "|MYR|SAR|AED|ZAR|CZK|HUF|ILS|UAH|RON|BGN|EGP|NGN|KZT|ARS|CLP|COP|PEN|PKR|BDT"
    "|RM|Rp|Rs|kr|Ft|lei|TL|Dhs"
)
_LOCAL_AFTER = r"元|块|圓|円|원|บาท|đồng|dong|руб(?:лей|ля|ль)?|грн|тенге|zł|Kč"
# A number: digits with optional grouping and decimals. Comma groups may be of two
# (India's 1,23,456); dot, space and apostrophe groups are of three.
_NUMBER = (
    r"(?:\d{1,3}(?:,\d{2,3})+|\d{1,3}(?:\.\d{3})+|\d{1,3}(?:[ \u00a0\u202f'’]\d{3})+)(?:[.,]\d{1,2})?"
    r"|\d+(?:[.,]\d{1,2})?"
)
_DASH_CENTS = r"(?:[.,](?:-|–|—))?"  # "9.–" / "12,-": whole units

_AMOUNT = re.compile(
    rf"(?:(?:{_SIGNS})|(?<![A-Za-z])(?:{_CODES})(?![A-Za-z]))\s?(?:{_NUMBER}){_DASH_CENTS}"
    rf"|(?<![\d.,])(?:{_NUMBER}){_DASH_CENTS}\s?(?:(?:{_SIGNS})|(?:{_LOCAL_AFTER})|(?:{_CODES})(?![A-Za-z]))",
    re.I,
)


def _plain(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "")


def amounts_in(text: str) -> list[str]:
    """Every currency amount shown in `text`, as shown but for its inner spaces."""
    return [re.sub(r"\s+", "", m.group(0)) for m in _AMOUNT.finditer(text or "")]


def amount_value(amount: str) -> float | None:
    """The number in an amount, read with its writer's decimal mark (see the module doc)."""
    # price_parser (~50 ms to import) is loaded when an amount is first read, not with the
    # risk rules every run's tools import before the first model request.
    from price_parser import Price

    price = Price.fromstring(_plain(amount))
    return float(price.amount) if price.amount is not None else None
