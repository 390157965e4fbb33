"""PlaywrightWebPort against real Chromium and the loopback site (tests/web/site/engine/).

Nothing of ours is mocked; each test starts its own browser (about half a second) and
waits on real conditions (Playwright's waits, the port's own events), never a clock."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

import tests.web.engine_routes as engine_routes
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.cap.web.playwright.tab_budget import PROCESS_TABS, TabBudget
from mika.cap.web.port import PageRead, ScreencastSink, UrlRefused, WebError
from mika.uistate.elements import extract_elements
from mika.uistate.tree import UiNode
from tests.web.site_server import LocalSite

MakePort = Callable[..., PlaywrightWebPort]


@pytest.fixture
async def make_port(chromium_path: str) -> AsyncIterator[MakePort]:
    made: list[PlaywrightWebPort] = []

    def make(budget: TabBudget | None = None, **options: object) -> PlaywrightWebPort:
        port = PlaywrightWebPort(WebOptions(browser=chromium_path, **options), budget=budget or TabBudget())  # type: ignore[arg-type]
        made.append(port)
        return port

    yield make
    for port in made:
        await port.close()


def _exists(path: str) -> bool:
    return Path(path).exists()


def node(read: PageRead, text: str, cls: str | None = None) -> UiNode:
    for n in read.tree.nodes():
        if n.text == text and (cls is None or n.class_name == cls):
            return n
    raise AssertionError(f"no node {text!r} in {[n.text for n in read.tree.nodes() if n.text]}")


async def tap(port: PlaywrightWebPort, n: UiNode) -> None:
    box = await port.element_box(n.resource_id)
    assert box is not None, n
    await port.click((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


async def test_open_read_and_click_a_button_changes_the_page(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    state = await port.open(site.url("/engine/button.html"))
    assert (state.tab, state.title, state.status) == ("t1", "Engine button", 200)
    read = await port.read()
    assert read.viewport == (1280, 800) and read.page_size[1] > 3000 and read.document
    listing = [(e.role, e.label) for e in extract_elements(read.tree)]
    assert ("button", "Press me") in listing and ("link", "Second page") in listing
    assert node(read, "Far below").visible_to_user is False
    await tap(port, node(read, "Press me", "web.button"))
    await port.wait_for(text="Pressed once", timeout_s=5)
    after = await port.read()
    assert node(after, "Pressed once") and after.document == read.document  # same document, changed
    await tap(port, node(after, "Second page", "web.link"))
    await port.wait_for(text="The second page", timeout_s=5)
    moved = await port.read()
    assert moved.state.url.endswith("/engine/second.html") and moved.document != read.document


async def test_type_cjk_and_emoji_and_read_back_then_clear(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/button.html"))
    field = next(n for n in (await port.read()).tree.nodes() if n.editable and not n.password)
    assert field.hint == "Your name"
    assert await port.focus(field.resource_id)
    text = "Hi 张三, 你好 😀👍🏽 ok"
    await port.type_text(text)
    assert await port.field_value(field.resource_id) == text
    await port.clear_focused()
    assert await port.field_value(field.resource_id) == ""
    assert await port.field_value("web:999999") is None
    assert await port.focus("web:999999") is False
    assert await port.element_box("not-a-handle") is None


async def test_paced_typing_reaches_the_same_text(make_port: MakePort, site: LocalSite) -> None:
    port = make_port(pace="standard")
    await port.open(site.url("/engine/button.html"))
    field = next(n for n in (await port.read()).tree.nodes() if n.editable and not n.password)
    await tap(port, field)
    await port.type_text("abc 中文")
    assert await port.field_value(field.resource_id) == "abc 中文"


async def test_password_is_never_read(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/button.html"))
    read = await port.read()
    pw = next(n for n in read.tree.nodes() if n.password)
    assert await port.focus(pw.resource_id)
    await port.type_text("typed-Secret-42")
    again = await port.read()
    assert await port.field_value(pw.resource_id) == "***"
    everything = repr(again)
    assert "hunter2" not in everything and "typed-Secret-42" not in everything
    assert "password" in next(e for e in extract_elements(again.tree) if e.node.password).states


async def test_tab_limit_per_run_and_closing_frees_a_slot(make_port: MakePort, site: LocalSite) -> None:
    port = make_port(tabs_per_run=2)
    await port.open(site.url("/engine/second.html"))
    await port.open(site.url("/engine/button.html"), new_tab=True)
    with pytest.raises(WebError) as err:
        await port.open(site.url("/engine/second.html"), new_tab=True)
    assert err.value.code == "tab_limit" and "one run" in str(err.value) and "web_tabs" in str(err.value)
    tabs = await port.tabs()
    assert [t.id for t in tabs] == ["t1", "t2"] and tabs[1].current
    await port.close_tab("t1")
    state = await port.open(site.url("/engine/second.html"), new_tab=True)
    assert state.tab == "t3"
    await port.switch_tab("t2")
    assert (await port.state()).url.endswith("/engine/button.html")
    with pytest.raises(WebError):
        await port.switch_tab("t1")


async def test_tab_limit_across_two_ports_of_the_process(make_port: MakePort, site: LocalSite) -> None:
    shared = TabBudget(limit=3)
    first, second = make_port(budget=shared), make_port(budget=shared)
    await first.open(site.url("/engine/second.html"))
    await first.open(site.url("/engine/second.html"), new_tab=True)
    await second.open(site.url("/engine/second.html"))
    with pytest.raises(WebError) as err:
        await second.open(site.url("/engine/second.html"), new_tab=True)
    assert err.value.code == "tab_limit" and "All runs together" in str(err.value)
    await first.close()
    assert shared.used == 1  # a closed port gives its tabs back
    await second.open(site.url("/engine/second.html"), new_tab=True)
    assert PROCESS_TABS.limit == 8


async def test_popup_becomes_a_tab_and_past_the_limit_is_closed(make_port: MakePort, site: LocalSite) -> None:
    port = make_port(tabs_per_run=2)
    await port.open(site.url("/engine/popup.html"))
    read = await port.read()
    await tap(port, node(read, "Open in new tab", "web.link"))
    tab = await port.wait_for_popup(after=0)
    assert tab == "t2"
    tabs = await port.tabs()
    assert [t.id for t in tabs] == ["t1", "t2"] and tabs[0].current  # the run stays where it was
    await port.switch_tab("t2")
    await port.wait_for(text="The second page", timeout_s=5)
    await port.switch_tab("t1")
    await tap(port, node(read, "Window open", "web.button"))
    assert await port.wait_until(lambda: any("past the tab limit" in n for n in port.notes), 10)
    assert [t.id for t in await port.tabs()] == ["t1", "t2"] and port.popups == ("t2",)


async def test_closing_the_last_tab_leaves_a_blank_page(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/second.html"))
    await port.close_tab("t1")
    tabs = await port.tabs()
    assert [(t.id, t.url) for t in tabs] == [("t1", "about:blank")]


async def test_back(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/button.html"))
    await port.open(site.url("/engine/second.html"))
    assert await port.back() is True
    assert (await port.state()).url.endswith("/engine/button.html")


async def test_wait_for_text_role_and_timeout_without_sleeping(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/later.html"))
    got = await port.wait_for(text="Results are ready", timeout_s=5)
    assert got.met and "Results are ready" in got.what
    assert (await port.wait_for(role="button", name="Load more", timeout_s=5)).met
    assert (await port.wait_for(network_quiet=True, timeout_s=5)).met
    missed = await port.wait_for(text="never shown", timeout_s=0.3)
    assert not missed.met and missed.what == "timeout" and missed.waited_s >= 0.25
    with pytest.raises(WebError):
        await port.wait_for()


async def test_dialog_is_kept_pending_and_answered(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/dialog.html"))
    await tap(port, node(await port.read(), "Ask", "web.button"))
    read = await port.read()
    assert read.dialog == "confirm: Delete the draft?"
    assert await port.answer_dialog(True) == "Delete the draft?"
    assert (await port.wait_for(text="yes", timeout_s=5)).met
    assert (await port.read()).dialog == ""
    # Enter accepts and Escape dismisses, as in a browser window; other input waits for it.
    await tap(port, node(await port.read(), "Ask", "web.button"))
    assert (await port.read()).dialog == "confirm: Delete the draft?"
    with pytest.raises(WebError) as err:
        await port.click(1, 1)
    assert err.value.code == "dialog" and "Delete the draft?" in str(err.value)
    for blocked in (port.screenshot(), port.element_box("web:1"), port.field_value("web:1"), port.scroll(0, 100)):
        with pytest.raises(WebError, match="answer it first"):
            await blocked
    await port.press_key("Escape")
    assert (await port.wait_for(text="no", timeout_s=5)).met
    await tap(port, node(await port.read(), "Ask", "web.button"))
    await port.press_key("Enter")
    assert (await port.wait_for(text="yes", timeout_s=5)).met


async def test_screenshot_and_screencast(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/button.html"))
    png = await port.screenshot()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    frames: list[tuple[bytes, str, tuple[int, int]]] = []
    got = asyncio.Event()

    def on_frame(data: bytes, tab: str, size: tuple[int, int]) -> None:
        frames.append((data, tab, size))
        got.set()

    port.screencast(ScreencastSink(on_frame=on_frame, max_fps=5))
    await tap(port, node(await port.read(), "Press me", "web.button"))  # something to paint
    await asyncio.wait_for(got.wait(), 10)
    data, tab, size = frames[0]
    assert data.startswith(b"\xff\xd8") and tab == "t1" and size[0] > 0
    # The pictures follow the run to a new tab.
    got.clear()
    frames.clear()
    await port.open(site.url("/engine/second.html"), new_tab=True)
    while not any(t == "t2" for _, t, _ in frames):
        await asyncio.wait_for(got.wait(), 10)
        got.clear()
    port.screencast(None)


@pytest.mark.parametrize(("language", "header", "nav"), [("zh", "zh-CN,zh", "zh-CN"), ("en", "en-US,en", "en-US")])
async def test_page_language_follows_the_ui_language(
    make_port: MakePort, site: LocalSite, language: str, header: str, nav: str
) -> None:
    port = make_port(language=language)
    await port.open(site.url("/engine/lang"))
    read = await port.read()
    texts = [n.text for n in read.tree.nodes()]
    assert any(t.startswith(f"header={header}") for t in texts), texts  # "zh-CN,zh;q=0.9"
    assert any(t.startswith(f"nav={nav}|{nav}") for t in texts), texts


async def test_no_language_means_no_override(make_port: MakePort, site: LocalSite, raw_page: Any) -> None:
    """Unset, the page hears what a bare Chromium on this machine says."""
    await raw_page.goto(site.url("/engine/lang"))
    bare = await raw_page.inner_text("body")
    port = make_port()
    await port.open(site.url("/engine/lang"))
    texts = [n.text for n in (await port.read()).tree.nodes() if n.text]
    assert texts == [line for line in bare.splitlines() if line]
    assert not any("--accept-lang" in a for a in port.launch_args)


async def test_mobile_site_mode_emulates_a_phone_on_that_tab(
    make_port: MakePort, site: LocalSite, tmp_path: Path
) -> None:
    port = make_port(site_modes_file=tmp_path / "modes.json")
    await port.open(site.url("/engine/second.html"))
    desktop = await port.read()
    assert desktop.viewport == (1280, 800) and node(desktop, "desktop agent")
    assert await port.set_site_mode(site.url("/"), "mobile") == "127.0.0.1"
    state = await port.open(site.url("/engine/second.html"))
    mobile = await port.read()
    assert state.mobile and mobile.viewport == (390, 844) and node(mobile, "mobile agent")
    assert PlaywrightWebPort(WebOptions(site_modes_file=tmp_path / "modes.json")).site_modes.is_mobile(site.url("/"))
    await port.set_site_mode(site.url("/"), "desktop")
    back = await port.read()
    assert back.viewport == (1280, 800) and node(back, "desktop agent")


async def test_downloads_are_saved_with_safe_unique_names_never_run(
    make_port: MakePort, site: LocalSite, tmp_path: Path
) -> None:
    port = make_port(downloads_dir=tmp_path / "downloads")
    await port.open(site.url("/engine/downloads.html"))
    read = await port.read()
    await tap(port, node(read, "Prices CSV", "web.link"))
    first = await port.wait_for_download(after=0)
    await tap(port, node(read, "Prices CSV", "web.link"))
    second = await port.wait_for_download(after=1)
    await tap(port, node(read, "A script", "web.link"))
    script = await port.wait_for_download(after=2)
    assert first is not None and second is not None and script is not None
    # The page suggested "../../etc/.prices.csv": no separators, no "..", no leading dot.
    for d in (first, second, script):
        assert "/" not in d.name and "\\" not in d.name and ".." not in d.name and not d.name.startswith(".")
    assert first.name.endswith("prices.csv") and second.name == first.name[: -len(".csv")] + "-2.csv"
    assert script.name == "run me.sh"
    assert first.done and first.size == len(b"id,price\n1,9.99\n") and not first.error
    saved = sorted(p.name for p in (tmp_path / "downloads").iterdir())
    assert saved == sorted([first.name, second.name, "run me.sh"])
    assert (tmp_path / "downloads" / first.name).read_bytes() == b"id,price\n1,9.99\n"
    run_me = tmp_path / "downloads" / "run me.sh"
    assert not os.access(run_me, os.X_OK) and not _exists("/tmp/mika-pwned")
    assert [d.name for d in await port.downloads()] == [first.name, second.name, "run me.sh"]


async def test_a_download_over_the_cap_is_cancelled_and_removed(
    make_port: MakePort, site: LocalSite, tmp_path: Path
) -> None:
    port = make_port(downloads_dir=tmp_path / "downloads", download_cap_mb=1)
    await port.open(site.url("/engine/downloads.html"))
    engine_routes.BIG_DOWNLOAD_RELEASE.clear()
    try:
        await tap(port, node(await port.read(), "Big file", "web.link"))
        got = await port.wait_for_download(after=0, timeout_s=15)
    finally:
        engine_routes.BIG_DOWNLOAD_RELEASE.set()
    assert got is not None and not got.done and "1 MB download cap" in got.error
    folder = tmp_path / "downloads"
    assert not folder.exists() or list(folder.iterdir()) == []
    private = Path(port._tmp_downloads.name) if port._tmp_downloads else None
    assert private is None or list(private.iterdir()) == []


async def test_without_a_downloads_folder_downloads_are_refused(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/downloads.html"))
    await tap(port, node(await port.read(), "Prices CSV", "web.link"))
    got = await port.wait_for_download(after=0)
    assert got is not None and not got.done and "no downloads folder" in got.error
    assert any("refused" in n for n in port.notes)


async def test_refused_address_does_not_even_start_the_browser(make_port: MakePort) -> None:
    port = make_port()
    with pytest.raises(UrlRefused):
        await port.open("file:///etc/passwd")
    assert port._context is None


async def test_read_boxes_match_the_browsers_own_boxes_in_nested_frames(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/world.html"))
    read = await port.read()
    for text in ("加入购物车", "框内按钮", "深层链接"):
        n = node(read, text)
        box = await port.element_box(n.resource_id)
        assert box is not None
        got = (n.bounds.left, n.bounds.top, n.bounds.right, n.bounds.bottom)
        assert all(abs(a - b) <= 1.5 for a, b in zip(got, box, strict=True)), (text, got, box)


async def test_a_screencast_asked_for_before_the_browser_starts(
    make_port: MakePort, site: LocalSite, tmp_path: Path
) -> None:
    port = make_port(profile_dir=tmp_path / "profile")  # a persistent profile opens with its own first tab
    got = asyncio.Event()
    frames: list[str] = []

    def on_frame(data: bytes, tab: str, size: tuple[int, int]) -> None:
        if data.startswith(b"\xff\xd8"):
            frames.append(tab)
            got.set()

    port.screencast(ScreencastSink(on_frame=on_frame))
    await port.open(site.url("/engine/button.html"))
    await asyncio.wait_for(got.wait(), 10)
    assert frames[0] == "t1"


async def test_typed_text_is_read_back_past_a_page_that_redefines_value(make_port: MakePort, site: LocalSite) -> None:
    port = make_port()
    await port.open(site.url("/engine/liar.html"))
    field = node(await port.read(), "Lying field")
    assert await port.focus(field.resource_id)
    await port.type_text("real words")
    assert await port.field_value(field.resource_id) == "real words"
