"""Only http(s) pages are opened (mika.cap.web.url_policy): every way of writing another
scheme, or an address a parser could read two ways, is refused with its reason."""

from __future__ import annotations

import pytest

from mika.cap.web.port import UrlRefused
from mika.cap.web.url_policy import check_url, is_allowed


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/",
        "https://example.com/path?q=1#frag",
        "http://127.0.0.1:8080/shop/",
        "http://localhost/",
        "https://[::1]:8443/",
        "https://xn--fsqu00a.xn--0zwm56d/",
        "https://sub.domain.example.co.uk/a%20b",
        "https://example.com/search?q=%E6%89%8B%E6%9C%BA",
    ],
)
def test_plain_web_addresses_are_opened(url: str) -> None:
    assert check_url(url) == url


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "a local file"),
        ("file://localhost/etc/passwd", "a local file"),
        ("FILE:///etc/passwd", "a local file"),
        ("File:///etc/passwd", "a local file"),
        ("chrome://settings", "browser settings"),
        ("chrome://version/", "browser settings"),
        ("chrome-extension://abcdef/page.html", "extension"),
        ("about:blank", "internal"),
        ("about:config", "internal"),
        ("javascript:alert(1)", "a script"),
        ("JaVaScRiPt:alert(1)", "a script"),
        ("data:text/html,<script>alert(1)</script>", "inline data"),
        ("view-source:http://example.com/", "source view"),
        ("devtools://devtools/bundled/inspector.html", "developer tools"),
        ("filesystem:http://example.com/temporary/x", "file system"),
        ("blob:http://example.com/1234-5678", "in-page data"),
        ("ftp://example.com/file", "FTP"),
        ("ws://example.com/socket", "web socket"),
        ("intent://scan/#Intent;scheme=zxing;end", "Android intent"),
        ("gopher://example.com/", "not a web page"),
    ],
)
def test_other_schemes_are_refused_with_what_they_are(url: str, reason: str) -> None:
    with pytest.raises(UrlRefused) as err:
        check_url(url)
    assert reason in str(err.value)
    assert err.value.code == "url_refused"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("HTTP://example.com/", "capitals"),
        ("Https://example.com/", "capitals"),
        ("http:example.com", "no host"),
        ("http:/example.com", "no host"),
        ("http:///etc/passwd", "no host"),
        ("https://", "no host"),
        ("http://user:pw@example.com/", "user name or password"),
        ("http://user@example.com/", "user name or password"),
        ("http://example.com@evil.com/", "user name or password"),
        ("http://exa mple.com/", "spaces or control"),
        (" http://example.com/", "spaces or control"),
        ("http://example.com/\n", "spaces or control"),
        ("http://example.com/\x00.html", "spaces or control"),
        ("java\tscript:alert(1)", "spaces or control"),
        ("http://example.com\u200b/", "spaces or control"),
        ("http:\\\\example.com\\", "backslash"),
        ("http://example.com\\@evil.com/", "backslash"),
        ("%66ile:///etc/passwd", "escapes"),
        ("file%3A///etc/passwd", "escapes"),
        ("http://%65xample.com/", "percent escapes"),
        ("https://例子.测试/", "non-ASCII host"),
        ("https://аpple.com/", "non-ASCII host"),  # Cyrillic а
        ("http://exa_mple..com/", "odd host"),
        ("http://-example.com/", "odd host"),
        ("http://example.com:99999/", "well-formed"),
        ("//example.com/", "no scheme"),
        ("example.com", "no scheme"),
        ("", "No address"),
        ("http://" + "a" * 9000 + ".com/", "longer than"),
    ],
)
def test_odd_addresses_are_refused_not_guessed(url: str, reason: str) -> None:
    with pytest.raises(UrlRefused) as err:
        check_url(url)
    assert reason in str(err.value), str(err.value)


def test_refusal_names_the_address_once_cut_to_a_readable_length() -> None:
    with pytest.raises(UrlRefused) as err:
        check_url("file:///" + "x" * 500)
    assert "file:///" in str(err.value)
    assert len(str(err.value)) < 260


def test_is_allowed_is_the_same_rule() -> None:
    assert is_allowed("https://example.com/")
    assert not is_allowed("file:///etc/passwd")
    assert not is_allowed(None)  # type: ignore[arg-type]
