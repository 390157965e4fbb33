"""Per-site memory of desktop or mobile pages (`web_site_mode`).

Sites are kept by their registrable-domain-ish name (`m.shop.example.com` and
`shop.example.com` follow `example.com`; `shop.example.co.uk` is `example.co.uk`), so a
choice made on one page holds for the whole site. The file is JSON written atomically; a
file that cannot be read is set aside (renamed `*.broken-<time>`) and reported through
`SiteModes.notice`, never raised into a run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from mika.atomic_write import write_json
from mika.cap.web.sites import registrable_domain

MODES = ("desktop", "mobile")
DEFAULT_MODE = "desktop"
# One rule for "which site" across the web capability (subdomains follow their parent).
site_of = registrable_domain


class SiteModes:
    """The remembered modes; `path=None` remembers for this process only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.notice = ""  # one sentence when the file was broken and set aside
        self._modes: dict[str, str] = {}
        self._load()

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            modes = data.get("sites", {}) if isinstance(data, dict) else None
            if not isinstance(modes, dict):
                raise ValueError("no 'sites' table")
            self._modes = {str(k): v for k, v in modes.items() if v in MODES}
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
            try:
                self.path.rename(aside)
                where = f"it was moved to {aside.name}"
            except OSError:
                where = "it could not be moved aside"
            self.notice = f"The site-mode file {self.path} could not be read ({exc}); {where} and every site starts on desktop pages."
            self._modes = {}

    def mode(self, url_or_host: str) -> str:
        return self._modes.get(site_of(url_or_host), DEFAULT_MODE)

    def is_mobile(self, url_or_host: str) -> bool:
        return self.mode(url_or_host) == "mobile"

    def set(self, url_or_host: str, mode: str) -> str:
        """Remember `mode` for the site; returns the site name it was kept under."""
        if mode not in MODES:
            raise ValueError(f"unknown site mode {mode!r}: use 'desktop' or 'mobile'")
        site = site_of(url_or_host)
        if not site:
            raise ValueError(f"{url_or_host!r} names no site")
        if mode == DEFAULT_MODE:
            self._modes.pop(site, None)
        else:
            self._modes[site] = mode
        if self.path is not None:
            write_json(self.path, {"version": 1, "sites": dict(sorted(self._modes.items()))})
        return site

    def all(self) -> dict[str, str]:
        return dict(self._modes)
