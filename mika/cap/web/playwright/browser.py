"""Which Chromium the port drives: `[web] browser = "auto" | PATH`.

"auto" takes Playwright's own Chromium when `playwright install chromium` put one there,
else a system Chromium or Chrome. Nothing found is `NoBrowser`, one sentence naming both
ways to get one.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from mika.cap.web.port import NoBrowser

SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAC_PATHS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)
WINDOWS_PATHS = (
    r"%ProgramFiles%\Google\Chrome\Application\chrome.exe",
    r"%ProgramFiles(x86)%\Google\Chrome\Application\chrome.exe",
    r"%LocalAppData%\Google\Chrome\Application\chrome.exe",
    r"%ProgramFiles%\Chromium\Application\chrome.exe",
)
NO_BROWSER = (
    "No Chromium to drive: run `playwright install chromium` (Playwright's own browser), "
    'or install Chromium or Google Chrome and set `[web] browser = "/path/to/it"` in the config.'
)


def _executable(path: str) -> bool:
    p = Path(path)
    return p.is_file() and os.access(p, os.X_OK)


def find_browser(setting: str = "auto", *, playwright_path: str | None = None, env_path: str | None = None) -> str:
    """The executable to launch. `playwright_path`: Playwright's own Chromium path
    (`playwright.chromium.executable_path`, passed in so this stays testable without
    Playwright); `env_path`: the PATH to search (default the process's)."""
    setting = (setting or "auto").strip()
    if setting != "auto":
        path = os.path.expanduser(setting)
        if not Path(path).exists():
            raise NoBrowser(
                f"The browser set in [web] browser, {setting!r}, does not exist; "
                'point it at a Chromium or Chrome executable, or set browser = "auto".'
            )
        if not _executable(path):
            raise NoBrowser(
                f"The browser set in [web] browser, {setting!r}, is not an executable file; "
                'point it at the Chromium or Chrome program itself, or set browser = "auto".'
            )
        return path
    if playwright_path and _executable(playwright_path):
        return playwright_path
    search = os.environ.get("PATH", "") if env_path is None else env_path
    for name in SYSTEM_NAMES:
        found = shutil.which(name, path=search) if search else None
        if found and _executable(found):
            return found
    candidates: tuple[str, ...] = ()
    if sys.platform == "darwin":
        candidates = MAC_PATHS
    elif sys.platform.startswith("win"):
        candidates = tuple(os.path.expandvars(p) for p in WINDOWS_PATHS)
    for path in candidates:
        if _executable(path):
            return path
    raise NoBrowser(NO_BROWSER)


def playwright_chromium_path(pw: object) -> str | None:
    """Playwright's own Chromium, when installed (its path exists)."""
    try:
        path = pw.chromium.executable_path  # type: ignore[attr-defined]
    except Exception:
        return None
    return path if path and Path(path).exists() else None
