"""How one run's browser is set up: the values the assembly reads from `[web]` and hands in."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TABS_PER_RUN = 4  # seed §6: a run has at most 4 tabs open
TABS_IN_ALL = 8  # … and all runs of this process together at most 8
DOWNLOAD_CAP_MB = 100


@dataclass(frozen=True)
class WebOptions:
    # "auto": Playwright's own Chromium when installed, else a system Chromium/Chrome;
    # or the path of a Chromium-family executable.
    browser: str = "auto"
    headless: bool = True
    # The persistent profile (cookies, storage: logins survive); None: a throwaway one.
    profile_dir: Path | None = None
    # Where this run's downloads land (the conversation's workspace `downloads/`); None:
    # downloads are refused.
    downloads_dir: Path | None = None
    download_cap_mb: int = DOWNLOAD_CAP_MB
    # Mika's UI language when the user set it explicitly ("en", "zh"); None: follow the
    # system (no Accept-Language override).
    language: str | None = None
    # Where per-site desktop/mobile choices are kept (web_site_mode); None: not remembered.
    site_modes_file: Path | None = None
    # [general] pace: "fast" (tests, evaluations) acts at once; standard/human pace the
    # input like a person and dwell between pages of one site (seed §6 页面节奏).
    pace: str = "fast"
    tabs_per_run: int = TABS_PER_RUN
    viewport: tuple[int, int] = (1280, 800)
