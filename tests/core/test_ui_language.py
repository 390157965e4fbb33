"""The one rule for the UI language (mika.config.language), and that every text table asks it."""

from __future__ import annotations

import pytest

from mika.config import language
from mika.config.language import decide, from_locale, set_language, ui_language
from mika.config.settings import Settings, parse_settings

LOCALE = ("LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("MIKA_LANGUAGE", *LOCALE):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize("name", LOCALE)
def test_each_locale_variable_alone_decides(name):
    assert decide(None, {name: "zh_CN.UTF-8"}) == "zh"
    assert decide(None, {name: "en_GB.UTF-8"}) == "en"


def test_locale_precedence_is_posix_lc_all_then_lc_messages_then_lang():
    assert from_locale({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert from_locale({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}) == "zh"
    assert from_locale({"LC_MESSAGES": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    # An empty variable counts as unset, as in POSIX.
    assert from_locale({"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_TW.Big5"}) == "zh"


@pytest.mark.parametrize(
    "value",
    [
        "C",
        "C.UTF-8",
        "POSIX",
        "",
        "   ",
        "xx",
        "zz_ZZ@junk",
        "en",
        "\u4e2d\u6587",
        "\x00zh",
        "de_DE.UTF-8",
        "ch_DE",
        "tzh",
    ],
)
def test_c_posix_junk_and_other_languages_give_english(value):
    assert from_locale({"LANG": value}) == "en"


@pytest.mark.parametrize("value", ["zh", "zh_CN", "zh_CN.UTF-8", "ZH_cn.utf8", "zh_TW.Big5", "zh_HK@variant"])
def test_every_chinese_locale_gives_chinese(value):
    assert from_locale({"LC_ALL": value}) == "zh"


def test_nothing_set_is_english():
    assert decide(None, {}) == "en"


def test_mika_language_beats_the_setting_and_the_locale():
    env = {"MIKA_LANGUAGE": "en", "LC_ALL": "zh_CN.UTF-8"}
    assert decide("zh", env) == "en"
    assert decide(None, {"MIKA_LANGUAGE": "zh", "LANG": "C.UTF-8"}) == "zh"
    assert decide(None, {"MIKA_LANGUAGE": " ZH ", "LANG": "C.UTF-8"}) == "zh"


@pytest.mark.parametrize("value", ["auto", "", "fr", "zh_CN", "english", "1"])
def test_mika_language_auto_or_junk_falls_through(value):
    assert decide("zh", {"MIKA_LANGUAGE": value, "LANG": "en_US.UTF-8"}) == "zh"
    assert decide(None, {"MIKA_LANGUAGE": value, "LANG": "zh_CN.UTF-8"}) == "zh"
    assert decide(None, {"MIKA_LANGUAGE": value, "LANG": "C.UTF-8"}) == "en"


def test_the_setting_beats_the_locale_and_auto_follows_it():
    assert decide("zh", {"LC_ALL": "en_US.UTF-8"}) == "zh"
    assert decide("en", {"LC_ALL": "zh_CN.UTF-8"}) == "en"
    assert decide("auto", {"LC_ALL": "zh_CN.UTF-8"}) == "zh"
    assert decide("auto", {"LC_MESSAGES": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"


def test_set_language_once_then_ui_language_follows_it(clean_env):
    clean_env.setenv("LANG", "en_US.UTF-8")
    assert ui_language() == "en"
    set_language("zh")
    assert ui_language() == "zh"
    set_language("auto")  # back to the locale
    assert ui_language() == "en"
    set_language("zh")
    set_language(None)
    assert ui_language() == "en"
    set_language("klingon")  # never stored as a language
    assert ui_language() == "en"


def test_settings_ask_the_same_rule(clean_env):
    clean_env.setenv("LC_MESSAGES", "zh_CN.UTF-8")  # the one an older detector ignored
    assert Settings(language="auto").ui_language == "zh"
    assert Settings(language="en").ui_language == "en"
    clean_env.setenv("MIKA_LANGUAGE", "en")
    assert parse_settings({"general": {"language": "zh"}}).ui_language == "en"


def test_every_text_table_asks_the_one_rule(clean_env):
    """usage, models, model errors, the task center, approval summaries, stop reasons and
    stop summaries, and the phone's adb sentences all follow set_language."""
    from mika.action.copy import t as action_t
    from mika.agent.stop_rules import stop
    from mika.cap.phone.adb.copy import say
    from mika.model.copy import t as models_t
    from mika.model.errors import ModelError, ModelErrorKind
    from mika.run.ui_text import t as run_t
    from mika.usage.copy import t as usage_t

    def texts() -> list[str]:
        return [
            usage_t("empty"),
            models_t("no_candidates", provider="p"),
            ModelError(ModelErrorKind.RATE_LIMITED).user_message(),
            run_t("stopped"),
            action_t("claim_unchecked"),
            stop("step_budget", n=3).reason,
            say("no_adb"),
        ]

    clean_env.setenv("LC_MESSAGES", "en_US.UTF-8")
    english = texts()
    set_language("zh")
    chinese = texts()
    for en, zh in zip(english, chinese, strict=True):
        assert en != zh, en
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), zh
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in en), en
    set_language(None)
    clean_env.setenv("LC_MESSAGES", "zh_CN.UTF-8")
    assert texts() == chinese
    assert language.ui_language() == "zh"
