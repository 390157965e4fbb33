"""`mika web logins list|logout SITE|logout --all`: the sites Mika's browser is logged in to.

The browser's persistent profile is `<data dir>/browser` (`MIKA_DATA_DIR` or the
platform's data folder); a login is what its cookies say (wengine's
`mika.cap.web.playwright.logins`). stdout carries data only (the table, JSON); what was
done and errors go to stderr. A profile in use by a run (or a browser window) is one
sentence and exit 2; no browser to open it with is exit 3; never a traceback.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, NoReturn

import click

from mika.config.language import ui_language
from mika.exit_codes import ExitCode
from mika.terminal_text import echo, json_for_terminal, one_line

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "empty": "Mika's browser is not logged in to any site (no cookies in {profile}).",
        "col_site": "SITE",
        "col_cookies": "COOKIES",
        "logged_out": "Logged out of {site}: {n} cookie(s) removed.",
        "logged_out_none": "Mika's browser had no cookies of {site}; nothing to remove.",
        "logged_out_all": "Logged out of every site: {n} cookie(s) removed.",
        "locked": (
            "The browser profile {profile} is in use (a Mika run or a browser window has it open); "
            "let the run finish or close the window, then try again."
        ),
        "site_or_all": "Name a site (e.g. `mika web logins logout example.com`) or give --all, not both.",
        "bad_site": "{site!r} names no site; give one like example.com.",
        "failed": "The browser profile could not be read: {reason}",
    },
    "zh": {
        "empty": "Mika 的浏览器没有登录任何网站（{profile} 里没有 Cookie）。",
        "col_site": "网站",
        "col_cookies": "Cookie 数",
        "logged_out": "已退出 {site}：删除了 {n} 个 Cookie。",
        "logged_out_none": "Mika 的浏览器里没有 {site} 的 Cookie，无需删除。",
        "logged_out_all": "已退出所有网站：删除了 {n} 个 Cookie。",
        "locked": "浏览器配置 {profile} 正在使用中（有 Mika 任务或浏览器窗口打开着它）；等任务结束或关掉窗口后再试。",
        "site_or_all": "请给出一个网站（如 `mika web logins logout example.com`）或 --all，二者只选一个。",
        "bad_site": "{site!r} 不是网站名；请写成 example.com 这样。",
        "failed": "无法读取浏览器配置：{reason}",
    },
}


def tr(key: str, **fields: object) -> str:
    table = TEXTS.get(ui_language(), TEXTS["en"])
    return table.get(key, TEXTS["en"][key]).format(**fields)


def _fail(message: str, code: ExitCode = ExitCode.USAGE) -> NoReturn:
    echo(f"mika: {message}", err=True)
    sys.exit(int(code))


def _options(ctx: click.Context) -> Any:
    """The profile's WebOptions: the configured browser, the profile in the data folder."""
    from mika.assembly.web import find_run_browser
    from mika.cap.web.options import WebOptions
    from mika.cap.web.port import NoBrowser
    from mika.config.errors import ConfigError
    from mika.config.language import set_language
    from mika.config.paths import data_dir
    from mika.config.settings import load_settings

    root = ctx.find_root().obj or {}
    try:
        settings = load_settings(root.get("config"))
    except ConfigError as exc:
        _fail(str(exc))
    set_language(settings.language)
    try:
        browser = find_run_browser(settings)
    except NoBrowser as exc:
        _fail(str(exc), ExitCode.DEVICE)
    return WebOptions(browser=browser, headless=True, profile_dir=data_dir() / "browser")


def _call(options: Any, work: Any) -> Any:
    """Run one profile operation; its WebError becomes our sentence and exit code."""
    from mika.cap.web.port import NoBrowser, WebError

    try:
        return asyncio.run(work)
    except NoBrowser as exc:
        _fail(str(exc), ExitCode.DEVICE)
    except WebError as exc:
        if exc.code == "profile_locked":
            _fail(tr("locked", profile=options.profile_dir))
        if exc.code == "bad_site":
            _fail(str(exc))
        _fail(tr("failed", reason=str(exc)), ExitCode.NOT_DONE)


@click.group("web", help="Mika's own browser: the sites it is logged in to.")
def web_group() -> None:
    pass


@web_group.group("logins", help="The sites Mika's browser profile is logged in to: list, logout.")
def logins_group() -> None:
    pass


@logins_group.command("list", help="Sites with cookies in Mika's browser profile, most cookies first.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: [{site, cookies}].")
@click.pass_context
def list_command(ctx: click.Context, as_json: bool) -> None:
    from mika.cap.web.playwright.logins import list_logins

    options = _options(ctx)
    logins = _call(options, list_logins(options))
    if as_json:
        echo(json_for_terminal([{"site": x.site, "cookies": x.cookies} for x in logins], indent=1))
        return
    if not logins:
        echo(tr("empty", profile=options.profile_dir), err=True)
        return
    width = max(len(tr("col_site")), *(len(x.site) for x in logins))
    echo(f"{tr('col_site'):<{width}}  {tr('col_cookies')}")
    for x in logins:
        echo(f"{one_line(x.site):<{width}}  {x.cookies}")


@logins_group.command("logout", help="Log out of SITE (its cookies and its subdomains'), or of every site with --all.")
@click.argument("site", required=False)
@click.option("--all", "everything", is_flag=True, help="Log out of every site.")
@click.pass_context
def logout_command(ctx: click.Context, site: str | None, everything: bool) -> None:
    from mika.cap.web.playwright.logins import logout

    if everything == bool(site and site.strip()):
        _fail(tr("site_or_all"))
    options = _options(ctx)
    wanted = None if everything else (site or "").strip()
    removed = _call(options, logout(options, wanted))
    if wanted is None:
        echo(tr("logged_out_all", n=removed), err=True)
    elif removed:
        echo(tr("logged_out", site=one_line(wanted), n=removed), err=True)
    else:
        echo(tr("logged_out_none", site=one_line(wanted)), err=True)
