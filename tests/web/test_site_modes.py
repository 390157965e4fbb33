"""Per-site desktop/mobile memory (web_site_mode): kept by site, subdomains follow their
parent, written atomically, a broken file set aside and reported, never raised."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from mika.cap.web.site_modes import SiteModes, site_of


@pytest.mark.parametrize(
    ("given", "site"),
    [
        ("https://m.shop.example.com/item/1", "example.com"),
        ("shop.example.com", "example.com"),
        ("EXAMPLE.com.", "example.com"),
        ("https://www.bbc.co.uk/news", "bbc.co.uk"),
        ("https://item.taobao.com.cn/x", "taobao.com.cn"),
        ("http://127.0.0.1:8080/shop", "127.0.0.1"),
        ("http://[::1]:8080/", "::1"),
        ("localhost:3000", "localhost"),
        ("", ""),
    ],
)
def test_site_of(given: str, site: str) -> None:
    assert site_of(given) == site


def test_mode_is_remembered_for_the_whole_site_and_survives_a_reload(tmp_path: Path) -> None:
    path = tmp_path / "state" / "site_modes.json"
    modes = SiteModes(path)
    assert modes.mode("https://m.example.com/") == "desktop"
    assert modes.set("https://m.example.com/page", "mobile") == "example.com"
    assert modes.is_mobile("https://www.example.com/other")
    assert not modes.is_mobile("https://example.org/")
    again = SiteModes(path)
    assert again.is_mobile("example.com")
    assert json.loads(path.read_text())["sites"] == {"example.com": "mobile"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again.set("example.com", "desktop")
    assert SiteModes(path).all() == {}


def test_bad_mode_and_no_site_are_clear_errors(tmp_path: Path) -> None:
    modes = SiteModes(tmp_path / "m.json")
    with pytest.raises(ValueError, match="'desktop' or 'mobile'"):
        modes.set("example.com", "tablet")
    with pytest.raises(ValueError, match="names no site"):
        modes.set("", "mobile")


@pytest.mark.parametrize("content", ["{not json", '["a list"]', '{"sites": 3}', "\udcff"])
def test_a_broken_file_is_set_aside_and_reported(tmp_path: Path, content: str) -> None:
    path = tmp_path / "site_modes.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    modes = SiteModes(path)
    assert "could not be read" in modes.notice and "moved to" in modes.notice
    assert not path.exists()
    assert len(list(tmp_path.glob("site_modes.json.broken-*"))) == 1
    assert modes.mode("example.com") == "desktop"
    modes.set("example.com", "mobile")  # and the run goes on writing a fresh file
    assert SiteModes(path).is_mobile("example.com")


def test_unknown_values_in_the_file_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "site_modes.json"
    path.write_text(json.dumps({"sites": {"a.com": "mobile", "b.com": "sideways"}}))
    assert SiteModes(path).all() == {"a.com": "mobile"}


def test_no_file_remembers_for_the_process_only() -> None:
    modes = SiteModes(None)
    modes.set("example.com", "mobile")
    assert modes.is_mobile("m.example.com")
