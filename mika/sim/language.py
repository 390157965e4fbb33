"""Which language the simulated phone's own command speaks on stderr: en or zh.

The simulated phone is a device, not a part of Mika, so it reads the user's wish itself:
`MIKA_LANGUAGE` when it says en or zh, else the first set locale variable (`LC_ALL`,
`LC_MESSAGES`, `LANG`), Chinese when that starts with `zh`, English otherwise.
"""

from __future__ import annotations

import os
from typing import Mapping


def sim_language(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    wish = env.get("MIKA_LANGUAGE", "").strip().lower()
    if wish in ("en", "zh"):
        return wish
    locale = next((env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), "")
    return "zh" if locale.strip().lower().startswith("zh") else "en"
