"""Which language Mika speaks to the user: one rule, asked by every text table.

The rule, first match wins:
1. `MIKA_LANGUAGE` = en or zh (as when the settings are loaded, the environment beats
   the config file; `auto` or anything else falls through);
2. the setting: `[general] language` = en or zh, handed over once at start with
   `set_language()` (or passed to `decide()` by a caller that holds the settings);
3. the locale, in POSIX order: the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set
   and not empty; a value starting with `zh` (zh_CN.UTF-8, zh_TW, zh) gives Chinese;
4. English (also for `C`, `POSIX`, `C.UTF-8` and anything unreadable).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGUAGES = ("en", "zh")
# What `[general] language` and MIKA_LANGUAGE accept; "auto" means "follow the locale".
CHOICES = ("auto", *LANGUAGES)
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

_setting: str | None = None


def _choice(value: str | None) -> str | None:
    value = (value or "").strip().lower()
    return value if value in LANGUAGES else None


def from_locale(env: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for: `zh` or `en`."""
    env = os.environ if env is None else env
    for name in LOCALE_VARIABLES:
        value = env.get(name, "")
        if value:
            # LC_ALL=zh_CN.UTF-8, LANG=zh_TW.Big5, LC_MESSAGES=zh; never a partial match.
            return "zh" if value.strip().lower().startswith("zh") else "en"
    return "en"


def decide(setting: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The UI language for this setting (auto / en / zh / None) and environment."""
    env = os.environ if env is None else env
    return _choice(env.get("MIKA_LANGUAGE")) or _choice(setting) or from_locale(env)


def set_language(setting: str | None) -> None:
    """The faces call this once at start with the config's language (auto / en / zh):
    a config file's `language = "zh"` is not in the environment. None forgets it."""
    global _setting
    _setting = _choice(setting)


def ui_language() -> str:
    """The language every user-facing text table uses now: `en` or `zh`."""
    return decide(_setting)
