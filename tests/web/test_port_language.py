"""The page language (mika.cap.web.language): Mika's UI language when set explicitly,
nothing overridden otherwise. The applied side (header and navigator.language on a real
page) is in test_port.py."""

from __future__ import annotations

import pytest

from mika.cap.web.language import accept_language, locale


@pytest.mark.parametrize(
    ("given", "accept", "loc"),
    [
        ("en", "en-US,en", "en-US"),
        ("zh", "zh-CN,zh", "zh-CN"),
        ("zh-CN", "zh-CN,zh", "zh-CN"),
        ("ZH_cn", "zh-CN,zh", "zh-CN"),
        (" en ", "en-US,en", "en-US"),
        (None, None, None),
        ("", None, None),
    ],
)
def test_language_values(given: str | None, accept: str | None, loc: str | None) -> None:
    assert accept_language(given) == accept
    assert locale(given) == loc


def test_an_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="'en' or 'zh'"):
        accept_language("fr")
