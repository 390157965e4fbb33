"""Which Chromium the port drives (mika.cap.web.playwright.browser.find_browser): a set
path must exist and be executable, "auto" prefers Playwright's own, then the system's,
and nothing found says both ways to get one."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mika.cap.web.playwright.browser import NO_BROWSER, find_browser
from mika.cap.web.port import NoBrowser


def _exe(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_set_path_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(NoBrowser) as err:
        find_browser(str(tmp_path / "no-such-chrome"))
    assert "does not exist" in str(err.value) and err.value.code == "no_browser"


def test_a_set_path_that_is_not_executable(tmp_path: Path) -> None:
    plain = tmp_path / "chrome"
    plain.write_text("not a program")
    plain.chmod(0o644)
    with pytest.raises(NoBrowser, match="not an executable"):
        find_browser(str(plain))
    with pytest.raises(NoBrowser, match="not an executable"):
        find_browser(str(tmp_path))  # a folder


def test_a_set_executable_is_used(tmp_path: Path) -> None:
    exe = _exe(tmp_path / "my-chrome")
    assert find_browser(str(exe)) == str(exe)


def test_auto_prefers_playwrights_own_chromium(tmp_path: Path) -> None:
    own = _exe(tmp_path / "playwright-chrome")
    system = tmp_path / "bin"
    system.mkdir()
    _exe(system / "chromium")
    assert find_browser("auto", playwright_path=str(own), env_path=str(system)) == str(own)


def test_auto_falls_back_to_the_system_chromium_on_path(tmp_path: Path) -> None:
    system = tmp_path / "bin"
    system.mkdir()
    _exe(system / "google-chrome-stable")
    missing_own = str(tmp_path / "not-installed" / "chrome")
    assert find_browser("auto", playwright_path=missing_own, env_path=str(system)) == str(
        system / "google-chrome-stable"
    )


def test_a_non_executable_chromium_on_path_is_skipped(tmp_path: Path) -> None:
    system = tmp_path / "bin"
    system.mkdir()
    (system / "chromium").write_text("x")
    (system / "chromium").chmod(0o644)
    with pytest.raises(NoBrowser):
        find_browser("auto", playwright_path=None, env_path=str(system))


def test_auto_with_nothing_names_both_ways(tmp_path: Path) -> None:
    with pytest.raises(NoBrowser) as err:
        find_browser("auto", playwright_path=None, env_path="")
    text = str(err.value)
    assert text == NO_BROWSER
    assert "playwright install chromium" in text and '[web] browser = "/path/to/it"' in text
    assert text.count(".") == 1 and text.endswith(".")  # one sentence


def test_auto_finds_this_machines_chromium(chromium_path: str) -> None:
    path = find_browser("auto", playwright_path=None)
    assert os.access(path, os.X_OK) and Path(path).name == Path(chromium_path).name
