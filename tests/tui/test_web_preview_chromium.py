"""The preview shows the run's browser page, and a takeover of the page, with real Chromium.

A run opens a loopback page through the real Playwright port (`PlaywrightWebPort`, real
headless Chromium); the preview's pictures are that port's CDP screencast frames. The
page records every click and every key it gets (a request to the loopback server, seen
in `site.seen`), so a click on the preview is asserted where the page received it.

The run has the real web capability (`WebCapability` over the port) beside the toy one;
the scripted model calls `web_navigate`. The TUI knows a web step only by
`ToolCalled.capability == "web"` and reaches the browser only through the capability's
`port`.
"""

from __future__ import annotations

import pytest
from textual import events

from mika.assembly import RunEnvironment, capabilities_for
from mika.assembly.live_page import PageInput
from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.model.retry import RetryPolicy
from mika.model.testing import Reply, ScriptedModel
from mika.run.task_run import RunOptions, TaskRun
from mika_tui.i18n import TEXTS
from mika_tui.widgets.cards import TakeoverCard
from mika_tui.widgets.preview import WHEEL_PX, PhonePreview
from tests.core.toy import ToyCapability
from tests.tui import scenes
from tests.tui.conftest import make_app, until
from tests.web.conftest import chromium_path, site  # noqa: F401  (fixtures)
from tests.web.site_server import Request, Response, route

SIZE = (160, 50)
VIEWPORT = (1280, 800)

CLICK_PAGE = """<!doctype html><html><head><title>Sign in — TUI test</title>
<style>
  html, body { margin: 0; height: 100%; font-family: sans-serif; background: #eef; }
  #pad { position: absolute; left: 0; top: 0; width: 1280px; height: 3000px; }
  #name { position: absolute; left: 100px; top: 100px; width: 400px; height: 160px; font-size: 30px; }
</style></head>
<body>
<div id="pad"></div>
<input id="name" autocomplete="off">
<script>
  // Every click and every key the page gets is told to the loopback server.
  document.addEventListener("click", e =>
    fetch("/tui/clicked?x=" + e.clientX + "&y=" + e.clientY + "&on=" + e.target.id));
  document.getElementById("name").addEventListener("input", e =>
    fetch("/tui/typed?v=" + encodeURIComponent(e.target.value)));
  document.addEventListener("keydown", e => fetch("/tui/key?k=" + encodeURIComponent(e.key)));
  let told = 0;
  document.addEventListener("scroll", () => {
    if (Math.abs(window.scrollY - told) >= 10) { told = window.scrollY; fetch("/tui/scrolled?y=" + told); }
  });
</script>
</body></html>"""


@route("/tui/click")
def click_page(req: Request) -> Response:
    return Response(CLICK_PAGE)


@route("/tui/clicked")
def clicked(req: Request) -> Response:
    return Response("ok", content_type="text/plain")


@route("/tui/typed")
def typed(req: Request) -> Response:
    return Response("ok", content_type="text/plain")


@route("/tui/scrolled")
def scrolled(req: Request) -> Response:
    return Response("ok", content_type="text/plain")


@route("/tui/key")
def key(req: Request) -> Response:
    return Response("ok", content_type="text/plain")


@route("/tui/login")
def login(req: Request) -> Response:
    """The sign-in the user does in the window: it sets the session cookie."""
    user = req.query.get("user", "")
    return Response(
        f"<html><head><title>Signed in</title></head><body>Hello {user}</body></html>",
        headers={"Set-Cookie": f"sid={user}; Path=/; HttpOnly"},
    )


def web_app(tmp_path, model, chromium: str, profile=None):
    app = make_app(tmp_path, model)
    opened: list[WebCapability] = []
    state = tmp_path / "state" / "mika"

    def factory(spec):
        options = WebOptions(browser=chromium, profile_dir=profile, viewport=VIEWPORT)
        web = WebCapability(PlaywrightWebPort(options), options)
        opened.append(web)
        caps = capabilities_for(spec, RunEnvironment(autonomous=False, extra=[ToyCapability(), web]))
        retry = RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0)
        return TaskRun(spec, model, caps, RunOptions(autonomous=False, pacing=False, state_dir=state, retry=retry))

    app.deps.run_factory = factory
    return app, opened


def takeover_script(url: str) -> ScriptedModel:
    return ScriptedModel(
        [
            Reply.call("web_navigate", url=url),
            Reply.call("hand_to_user", reason="login", message="Sign in on the page, please."),
            "Signed in.",
        ]
    )


def seen(site, path: str) -> list[dict[str, str]]:  # noqa: F811
    """What the page told the server since this test began (the site lives for the session)."""
    return [r.query for r in list(site.seen)[site.mark :] if r.path == path]


@pytest.fixture
def page_url(site) -> str:  # noqa: F811
    site.mark = len(site.seen)  # this test's requests start here
    return site.url("/tui/click")


async def test_the_preview_shows_the_page_during_a_web_step_and_a_click_lands_on_it(
    tmp_path,
    chromium_path,  # noqa: F811
    site,  # noqa: F811
    page_url,
):
    app, opened = web_app(tmp_path, takeover_script(page_url), chromium_path)
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        preview = main.query_one(PhonePreview)
        await scenes.run_to_card(pilot, "sign in to the shop", "takeover")
        run_id = scenes.view(pilot).run_id
        # The web step put the page in the preview: real screencast frames, at the page's size.
        await until(lambda: preview.showing_page and preview.picture_size == VIEWPORT, 20)
        page = main.pages.get(run_id)
        assert page is not None and page.kept >= 1 and page.latest().size == VIEWPORT
        assert preview.border_title.startswith("page · 127.0.0.1 · Sign in — TUI test")
        # A takeover asked on a page offers the page's ways.
        card = app.screen.query_one(TakeoverCard)
        assert card.page
        assert [str(b.label) for b in card.query("Button")] == [
            "[o] Operate here",
            "[w] Open in a browser window",
            "[d] Done",
            "[s] Skip",
        ]
        await pilot.press("o")
        await until(lambda: isinstance(preview.control, PageInput), 5)
        assert preview.has_focus and preview.display_size == VIEWPORT
        # A click on the preview lands on the page at the mapped CSS px.
        left, top, bw, bh = preview.picture_box()
        cx, cy = left + bw * 3 // 4, top + bh * 3 // 4
        x, y = preview.to_display(cx, cy)
        await pilot.click(preview, offset=(cx + 1, cy + 1))  # +1: the border
        await until(lambda: seen(site, "/tui/clicked"), 10)
        got = seen(site, "/tui/clicked")[0]
        assert (int(got["x"]), int(got["y"]), got["on"]) == (x, y, "pad")
        # A click on the text field, then typing: the keys reach the page's field.
        fx, fy = next(
            (c, r)
            for r in range(bh)
            for c in range(bw)
            if (p := preview.to_display(left + c, top + r)) and 110 <= p[0] < 490 and 110 <= p[1] < 250
        )
        await pilot.click(preview, offset=(left + fx + 1, top + fy + 1))
        await until(lambda: any(q.get("on") == "name" for q in seen(site, "/tui/clicked")), 10)
        shown = preview.frames_shown
        await pilot.press("h", "i")
        await until(lambda: {"v": "hi"} in seen(site, "/tui/typed"), 10)
        await pilot.press("escape")  # the page's Escape, not the run's stop
        await until(lambda: {"k": "Escape"} in seen(site, "/tui/key"), 10)
        await pilot.press("down")  # the terminal's arrow is the page's ArrowDown
        await until(lambda: {"k": "ArrowDown"} in seen(site, "/tui/key"), 10)
        # A drag up on the preview scrolls the page down (the content follows the finger).
        low, high = (left + bw // 2, top + bh - 2), (left + bw // 2, top + bh // 2)
        dy = preview.to_display(*low)[1] - preview.to_display(*high)[1]
        await pilot.mouse_down(preview, offset=(low[0] + 1, low[1] + 1))
        await pilot.mouse_up(preview, offset=(high[0] + 1, high[1] + 1))
        await until(lambda: any(abs(int(q["y"]) - dy) <= 2 for q in seen(site, "/tui/scrolled")), 10)
        # The wheel on the preview scrolls the page too (one notch: WHEEL_PX css px).
        before = max(int(q["y"]) for q in seen(site, "/tui/scrolled"))
        wheel = events.MouseScrollDown(preview, low[0] + 1, low[1] + 1, 0, 1, 0, False, False, False)
        preview.post_message(wheel)
        await until(lambda: any(int(q["y"]) >= before + WHEEL_PX - 2 for q in seen(site, "/tui/scrolled")), 10)
        assert scenes.view(pilot).running and scenes.view(pilot).card is not None
        # What the user did shows in the preview: new frames came after the typing.
        await until(lambda: preview.frames_shown > shown, 10)
        await pilot.click("#takeover-done")
        await until(lambda: scenes.view(pilot).status == "answered", 20)
        assert preview.control is None
        # The run's end stops the screencast and the preview is the phone's again.
        await until(lambda: not preview.showing_page, 5)
        assert main.pages.get(run_id) is None and preview.border_title == "phone"
        assert not page.running
    for web in opened:
        await web.close()


async def test_a_window_without_a_desktop_says_so_and_the_card_stays(
    tmp_path,
    chromium_path,  # noqa: F811
    site,  # noqa: F811
    page_url,
    monkeypatch,
):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app, opened = web_app(tmp_path, takeover_script(page_url), chromium_path, profile=tmp_path / "profile")
    async with app.run_test(size=SIZE) as pilot:
        await scenes.run_to_card(pilot, "sign in to the shop", "takeover")
        await pilot.press("w")
        notice = TEXTS["en"]["takeover_failed"].format(error=TEXTS["en"]["page_window_no_display"])

        def said() -> bool:
            return any(str(w.render()) == notice for w in app.main_screen.query("#chat .error"))

        await until(said, 10)
        card = app.screen.query_one(TakeoverCard)
        await until(lambda: not card.query_one("#takeover-window").disabled, 3)  # offered again
        # The run's browser was left alone: it still answers on the same page.
        state = await opened[0].port.state()
        assert state.url == page_url
        await pilot.press("s")
        await until(lambda: scenes.view(pilot).status != "", 20)
    for web in opened:
        await web.close()


async def test_a_login_in_the_browser_window_is_the_runs_after_done(
    tmp_path,
    chromium_path,  # noqa: F811
    site,  # noqa: F811
    page_url,
):
    """The window's way end to end. This machine has no desktop, so the window is the same
    code with Chromium headless (`page_window_headless`); the user's sign-in in it is the
    test driving the window's own page."""
    app, opened = web_app(tmp_path, takeover_script(page_url), chromium_path, profile=tmp_path / "profile")
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        main.page_window_headless = True
        await scenes.run_to_card(pilot, "sign in to the shop", "takeover")
        await pilot.press("w")
        await until(lambda: main._page_takeover is not None and main._page_takeover.window is not None, 20)
        takeover = main._page_takeover
        notice = TEXTS["en"]["takeover_window_open"].format(url=page_url)
        await until(lambda: any(str(w.render()) == notice for w in main.query("#chat .notice")), 10)
        # The window opened the run's page; the user signs in there.
        assert takeover.window.page.url == page_url
        login_url = site.url("/tui/login?user=ada")
        await takeover.window.page.goto(login_url)
        assert {c["name"]: c["value"] for c in await takeover.window.cookies()} == {"sid": "ada"}
        await pilot.press("d")
        await until(lambda: scenes.view(pilot).status == "answered", 20)
        # After Done the run's own browser opened the page the user left, with the login.
        logins = [r for r in list(site.seen)[site.mark :] if r.path == "/tui/login"]
        assert len(logins) == 2 and logins[0].cookies == {} and logins[1].cookies == {"sid": "ada"}
        assert main._page_takeover is None
    for web in opened:
        await web.close()


async def test_a_window_left_on_a_non_web_address_is_not_opened_by_the_run(
    tmp_path,
    chromium_path,  # noqa: F811
    site,  # noqa: F811
    page_url,
):
    """Only http(s) addresses come back from the window: one left on a data: page (a page
    can walk a browser there) leaves the run's tab where it was; the cookies still come."""
    model = ScriptedModel(
        [
            Reply.call("web_navigate", url=page_url),
            Reply.call("hand_to_user", reason="login", message="Sign in on the page, please."),
            Reply.call("web_observe"),
            Reply.call("web_navigate", url=site.url("/tui/clicked")),
            "Signed in.",
        ]
    )
    app, opened = web_app(tmp_path, model, chromium_path)
    async with app.run_test(size=SIZE) as pilot:
        main = app.main_screen
        main.page_window_headless = True
        await scenes.run_to_card(pilot, "sign in to the shop", "takeover")
        await pilot.press("w")
        await until(lambda: main._page_takeover is not None and main._page_takeover.window is not None, 20)
        window = main._page_takeover.window
        await window.page.goto(site.url("/tui/login?user=bo"))
        await window.page.goto("data:text/html,<title>elsewhere</title>")
        await pilot.press("d")
        await until(lambda: scenes.view(pilot).status == "answered", 20)
        # The run's next look was at its own page, not the data: address.
        observe = next(s for s in scenes.view(pilot).steps if s.name == "web_observe")
        assert page_url in observe.text and "elsewhere" not in observe.text
        logins = [r for r in list(site.seen)[site.mark :] if r.path == "/tui/login"]
        assert len(logins) == 1  # the window's own; the run opened nothing from it
        # The login made in the window is the run's: its next page went with the cookie.
        assert [r.cookies for r in list(site.seen)[site.mark :] if r.path == "/tui/clicked"] == [{"sid": "bo"}]
    for web in opened:
        await web.close()
