"""The web capability in the run environment: is there a browser, and one run's WebOptions.

Finding the browser is a look at the file system (no browser, no Playwright driver
started): the assembly asks once per process. A run's web capability is built per run
and costs nothing until a web tool runs (the port launches Chromium on first use).

Where a run's downloads land: the conversation's workspace `downloads/`; a run outside
any conversation gets `downloads/<run id>` in the state folder (its record folder is
named by its start, which is not known until it starts).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mika.cap.web.options import WebOptions
from mika.config.language import ui_language
from mika.config.paths import data_dir
from mika.config.settings import Settings
from mika.runtypes.spec import RunSpec

# Playwright's own browsers (`playwright install chromium`), where it puts them unless
# PLAYWRIGHT_BROWSERS_PATH says otherwise; the executable inside, per platform.
_PLAYWRIGHT_CACHE = {
    "linux": ("~/.cache/ms-playwright", ("chrome-linux*/chrome",)),
    "darwin": (
        "~/Library/Caches/ms-playwright",
        (
            "chrome-mac*/Chromium.app/Contents/MacOS/Chromium",
            "chrome-mac*/Google Chrome for Testing.app/Contents/MacOS/*",
        ),
    ),
    "win32": ("~/AppData/Local/ms-playwright", ("chrome-win*/chrome.exe",)),
}

_NOTICE = {
    "en": "The web tools are off for now: {problem}",
    "zh": "网页工具暂时不可用：{problem}",
}


def playwright_browser() -> str | None:
    """The newest Chromium Playwright installed, or None (nothing is started to ask)."""
    key = "linux" if sys.platform.startswith("linux") else "win32" if sys.platform.startswith("win") else sys.platform
    root, patterns = _PLAYWRIGHT_CACHE.get(key, _PLAYWRIGHT_CACHE["linux"])
    base = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or os.path.expanduser(root))
    if not base.is_dir():
        return None
    found: list[Path] = []
    for folder in sorted(base.glob("chromium-*"), reverse=True):  # chromium-1140 before -1120
        for pattern in patterns:
            found.extend(p for p in folder.glob(pattern) if p.is_file() and os.access(p, os.X_OK))
        if found:
            return str(found[0])
    return None


def find_run_browser(settings: Settings) -> str:
    """The browser runs will drive; raises NoBrowser (its sentence names both ways to get
    one, or what is wrong with `[web] browser`)."""
    from mika.cap.web.playwright.browser import find_browser

    return find_browser(settings.web_browser, playwright_path=playwright_browser())


def no_browser_notice(problem: str) -> str:
    """The one notice a run gets when the web tools are left out for want of a browser."""
    return _NOTICE.get(ui_language(), _NOTICE["en"]).format(problem=problem)


def web_language(settings: Settings) -> str | None:
    """Mika's UI language when the user chose it (config or MIKA_LANGUAGE); None when it
    follows the system: the page then gets the system's Accept-Language."""
    return settings.language if settings.language in ("en", "zh") else None


def downloads_for(spec: RunSpec, state_dir: Path) -> Path:
    if spec.conversation_id:
        from mika.run.conversations import ConversationStore

        return ConversationStore(state_dir).workspace(spec.conversation_id) / "downloads"
    return state_dir / "downloads" / spec.id


def web_options(settings: Settings, state_dir: Path, spec: RunSpec, *, browser: str, pace: str) -> WebOptions:
    """One run's browser: the persistent profile and site modes in the data folder, its
    downloads folder, the page language, the run's pace."""
    data = data_dir()
    return WebOptions(
        browser=browser,
        headless=settings.web_headless,
        profile_dir=data / "browser",
        downloads_dir=downloads_for(spec, state_dir),
        download_cap_mb=settings.web_download_cap_mb,
        language=web_language(settings),
        site_modes_file=data / "web_site_modes.json",
        pace=pace,
    )


def web_opener(
    settings: Settings,
    state_dir: Path,
    *,
    browser: str,
    pace: str,
    redact: Callable[[str], None] | None = None,
    vision: Any = None,
    images: bool = True,
) -> Callable[[RunSpec], Any]:
    """`RunEnvironment.web`: the web capability for one run (nothing launched yet)."""

    def opener(spec: RunSpec) -> Any:
        from mika.cap.web import open_web

        options = web_options(settings, state_dir, spec, browser=browser, pace=pace)
        return open_web(options, vision=vision, redact=redact, images=images)

    return opener
