"""Which addresses Mika's browser opens: http(s) pages with a plain host, nothing else.

Pure: `check_url` gives the address to open or raises `UrlRefused` with the reason. The
port applies it to what the model asks for and again, through route interception, to
every navigation a page starts itself (redirects, meta refresh, `location = …`, popups),
so a page cannot walk the browser into `file:` or the browser's own settings.

The check is strict on purpose: an address a person would not type (credentials in it,
control bytes, backslashes, a percent-encoded or upper-case scheme) is refused rather
than guessed at, because browsers and URL parsers disagree on exactly those.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from mika.cap.web.port import UrlRefused

ALLOWED_SCHEMES = ("http", "https")
# Named so the refusal can say what the address was; anything else unknown is refused too.
_KNOWN_REFUSED = {
    "file": "a local file",
    "chrome": "a browser settings page",
    "chrome-extension": "a browser extension page",
    "chrome-untrusted": "a browser internal page",
    "devtools": "the browser's developer tools",
    "about": "a browser internal page",
    "javascript": "a script",
    "data": "inline data",
    "view-source": "a page's source view",
    "filesystem": "the browser's file system",
    "blob": "in-page data",
    "ws": "a web socket",
    "wss": "a web socket",
    "ftp": "an FTP address",
    "intent": "an Android intent",
}
_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_HOST = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.?)$")
MAX_URL = 8192


def scheme_of(url: str) -> str:
    m = _SCHEME.match(url)
    return m.group(1) if m else ""


def check_url(url: str) -> str:
    """The address to open, unchanged; `UrlRefused` naming why it is not opened."""
    if not isinstance(url, str) or not url:
        raise UrlRefused("No address was given; give a full http:// or https:// address.")
    shown = _shown(url)
    if len(url) > MAX_URL:
        raise UrlRefused(f"The address is longer than {MAX_URL} characters; it is not opened.")
    if _CONTROL.search(url):
        raise UrlRefused(f"The address {shown} contains spaces or control characters; it is not opened.")
    if "\\" in url:
        raise UrlRefused(f"The address {shown} contains a backslash; it is not opened.")
    scheme = scheme_of(url)
    if not scheme:
        if url.lower().startswith(("%", "&")) or "%3a" in url[:24].lower():
            raise UrlRefused(f"The address {shown} hides its scheme in escapes; it is not opened.")
        raise UrlRefused(f"The address {shown} has no scheme; give a full http:// or https:// address.")
    lowered = scheme.lower()
    if lowered not in ALLOWED_SCHEMES:
        what = _KNOWN_REFUSED.get(lowered, "not a web page")
        raise UrlRefused(f"The address {shown} is {what} ({lowered}:); only http and https pages are opened.")
    if scheme != lowered:
        raise UrlRefused(f"The address {shown} writes its scheme in capitals; write it as {lowered}://.")
    if not url[len(scheme) + 1 :].startswith("//"):
        raise UrlRefused(f"The address {shown} has no host after {scheme}:; give it as {scheme}://host/….")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UrlRefused(f"The address {shown} is not a well-formed address; it is not opened.") from None
    netloc = parts.netloc
    if "@" in netloc or parts.username is not None or parts.password is not None:
        raise UrlRefused(f"The address {shown} carries a user name or password; it is not opened.")
    host = parts.hostname or ""
    if not host:
        raise UrlRefused(f"The address {shown} has no host; it is not opened.")
    if "%" in netloc:
        raise UrlRefused(f"The address {shown} has percent escapes in its host; it is not opened.")
    if not host.isascii():
        raise UrlRefused(
            f"The address {shown} has a non-ASCII host (a look-alike trick is possible); give its xn-- form."
        )
    if not (re.fullmatch(r"[0-9a-f:.]+", host) if ":" in host else _HOST.match(host)):
        raise UrlRefused(f"The address {shown} has an odd host {host!r}; it is not opened.")
    if port is not None and not (0 < port < 65536):
        raise UrlRefused(f"The address {shown} has an impossible port; it is not opened.")
    return url


def is_allowed(url: str) -> bool:
    try:
        check_url(url)
    except UrlRefused:
        return False
    return True


def internal_blank(url: str) -> bool:
    """about:blank is the browser's own empty tab (a new or last-closed tab): never refused
    as a place to be, only as a place the model or a page asks to go."""
    return url == "about:blank"


def _shown(url: str) -> str:
    text = url if len(url) <= 120 else url[:117] + "…"
    return repr(text)
