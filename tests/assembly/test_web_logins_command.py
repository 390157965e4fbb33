"""`mika web logins list | logout SITE | logout --all` as a user runs it: the real CLI in a
subprocess over a real Chromium profile (cookies written by real Chromium), English and
Chinese, and a profile held by a running browser (a run using it) → a sentence, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.web.conftest import CHROMIUM_ARGS, chromium_path  # noqa: F401  (fixture)


def mika(args: list[str], env: dict[str, str], timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mika.cli", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.fixture
def env(tmp_path, chromium_path):  # noqa: F811
    cfg = tmp_path / "cfg" / "mika"
    cfg.mkdir(parents=True)
    (cfg / "config.toml").write_text(f'[web]\nbrowser = "{chromium_path}"\n')
    out = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    out.update(
        MIKA_DATA_DIR=str(tmp_path / "data"),
        MIKA_STATE_DIR=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
        MIKA_LANGUAGE="en",
    )
    return out


def profile(env: dict[str, str]) -> Path:
    return Path(env["MIKA_DATA_DIR"]) / "browser"


async def _open(chromium: str, where: Path):
    from playwright.async_api import async_playwright

    pw = await async_playwright().start()
    context = await pw.chromium.launch_persistent_context(
        str(where), executable_path=chromium, headless=True, args=list(CHROMIUM_ARGS)
    )
    return pw, context


async def give_cookies(chromium: str, where: Path) -> None:
    """Log the profile in, as Chromium itself stores it: cookies of two sites."""
    pw, context = await _open(chromium, where)
    until = time.time() + 3600  # a login outlives the browser; session cookies would not
    try:
        await context.add_cookies(
            [
                {"name": "sid", "value": "a1", "domain": ".shop.example.com", "path": "/", "expires": until},
                {"name": "cart", "value": "3", "domain": "www.example.com", "path": "/", "expires": until},
                {"name": "token", "value": "t", "domain": ".news.example.org", "path": "/", "expires": until},
            ]
        )
    finally:
        await context.close()
        await pw.stop()


def test_an_empty_profile_has_no_logins(env):
    r = mika(["web", "logins", "list"], env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and "not logged in to any site" in r.stderr
    r = mika(["web", "logins", "list", "--json"], env)
    assert json.loads(r.stdout) == []


async def test_list_then_logout_one_site_then_all(env, chromium_path):  # noqa: F811
    await give_cookies(chromium_path, profile(env))
    r = mika(["web", "logins", "list", "--json"], env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [{"site": "example.com", "cookies": 2}, {"site": "example.org", "cookies": 1}]
    table = mika(["web", "logins", "list"], env)
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["SITE", "COOKIES"] and lines[1].split() == ["example.com", "2"]

    r = mika(["web", "logins", "logout", "shop.example.com"], env)  # a host of the site: the whole site
    assert r.returncode == 0, r.stderr
    assert "Logged out of shop.example.com: 2 cookie(s) removed." in r.stderr
    assert json.loads(mika(["web", "logins", "list", "--json"], env).stdout) == [{"site": "example.org", "cookies": 1}]

    again = mika(["web", "logins", "logout", "example.com"], env)
    assert again.returncode == 0 and "nothing to remove" in again.stderr

    r = mika(["web", "logins", "logout", "--all"], env)
    assert r.returncode == 0 and "1 cookie(s) removed" in r.stderr
    assert json.loads(mika(["web", "logins", "list", "--json"], env).stdout) == []


async def test_the_command_speaks_chinese(env, chromium_path):  # noqa: F811
    await give_cookies(chromium_path, profile(env))
    zh = {**env, "MIKA_LANGUAGE": "zh"}
    table = mika(["web", "logins", "list"], zh)
    assert table.stdout.splitlines()[0].split() == ["网站", "Cookie", "数"]
    r = mika(["web", "logins", "logout", "--all"], zh)
    assert "已退出所有网站" in r.stderr


@pytest.mark.parametrize("args", [["logout"], ["logout", "example.com", "--all"], ["logout", "  "]])
def test_logout_needs_a_site_or_all_but_not_both(env, args):
    r = mika(["web", "logins", *args], env)
    assert r.returncode == 2
    assert "Name a site" in r.stderr and "Traceback" not in r.stderr


async def test_a_profile_in_use_by_a_run_is_a_sentence_and_exit_2(env, chromium_path):  # noqa: F811
    await give_cookies(chromium_path, profile(env))
    pw, context = await _open(chromium_path, profile(env))  # a run's browser holds the profile
    try:
        for args in (["list"], ["logout", "--all"]):
            r = mika(["web", "logins", *args], env)
            assert r.returncode == 2, (r.stdout, r.stderr)
            assert "is in use" in r.stderr and str(profile(env)) in r.stderr
            assert "Traceback" not in r.stderr
        assert len(await context.cookies()) == 3  # nothing was removed behind the run's back
    finally:
        await context.close()
        await pw.stop()


def test_no_browser_is_exit_3_with_the_sentence(env, tmp_path):
    (Path(env["XDG_CONFIG_HOME"]) / "mika" / "config.toml").write_text(f'[web]\nbrowser = "{tmp_path / "nope"}"\n')
    r = mika(["web", "logins", "list"], env)
    assert r.returncode == 3
    assert "does not exist" in r.stderr and "Traceback" not in r.stderr
