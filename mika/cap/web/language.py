"""The page language Mika's browser asks for: it follows Mika's UI language when the user
set one explicitly ("en", "zh"), and the system's otherwise (no override at all).

Pure: `accept_language` is what the Accept-Language header and navigator.languages say;
`locale` the Chromium locale the browser context is created with (that sets
navigator.language). The port applies both when it makes the context.
"""

from __future__ import annotations

_ACCEPT = {
    "en": "en-US,en",
    "zh": "zh-CN,zh",
}
_LOCALE = {
    "en": "en-US",
    "zh": "zh-CN",
}


def _key(language: str | None) -> str | None:
    if not language:
        return None
    key = language.strip().lower().replace("_", "-").split("-", 1)[0]
    if key not in _ACCEPT:
        raise ValueError(f"unknown page language {language!r}: use 'en' or 'zh' (or leave it unset)")
    return key


def accept_language(language: str | None) -> str | None:
    """ "en" → "en-US,en", "zh" → "zh-CN,zh"; None: no override."""
    key = _key(language)
    return None if key is None else _ACCEPT[key]


def locale(language: str | None) -> str | None:
    key = _key(language)
    return None if key is None else _LOCALE[key]
