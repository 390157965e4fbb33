"""Which site an address belongs to: its registrable domain (`a.shop.example.com.cn` →
`example.com.cn`). One rule for everything the web capability counts or remembers by site:
page pacing, site modes, logins, risk-control pages, the `app` of an action's target."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

# Second-level labels under which a country code's domains are registered (example.com.cn,
# example.co.uk): the registrable domain then keeps three labels. Not the whole public
# suffix list — the common ones, so a site is not split or merged in the usual cases.
_SECOND_LEVEL = frozenset(
    {"com", "net", "org", "edu", "gov", "co", "ac", "or", "ne", "go", "mil", "gob", "nom", "ltd", "plc", "sch"}
)
_TWO_LABEL_SUFFIXES = frozenset(
    {
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
        "com.hk", "com.tw", "org.tw", "com.sg", "com.my", "com.au", "net.au", "org.au",
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "co.kr", "or.kr",
        "co.nz", "co.in", "co.za", "co.id", "co.th", "com.br", "com.mx", "com.ar", "com.tr",
        "com.ru", "com.ua", "com.vn", "com.ph", "com.pk", "com.sa", "com.eg",
    }
)  # fmt: skip


_SCHEME_ONLY = re.compile(r"^[a-z][a-z0-9+.-]*:(?!\d)", re.IGNORECASE)  # a port after the colon is a host


def registrable_domain(url_or_host: str) -> str:
    """`https://a.shop.example.com.cn/x` → `example.com.cn`; `www.bbc.co.uk` → `bbc.co.uk`.

    localhost, IP addresses and single-label hosts stay whole (with no port); "" for an
    address without a host."""
    text = (url_or_host or "").strip()
    if "://" in text:
        host = urlsplit(text).hostname
    elif _SCHEME_ONLY.match(text):  # about:blank, data:…, javascript:… — no host
        return ""
    else:
        host = urlsplit("//" + text).hostname
    host = (host or "").rstrip(".").lower()
    if not host:
        return ""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    labels = host.split(".")
    if len(labels) <= 2:
        return host
    last_two = ".".join(labels[-2:])
    if last_two in _TWO_LABEL_SUFFIXES or (len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL):
        return ".".join(labels[-3:])
    return last_two
