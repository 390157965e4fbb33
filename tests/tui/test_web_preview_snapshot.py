"""Snapshots of the preview showing a browser page, from a fixed frame.

The frame is a JPEG real Chromium rendered of a sign-in page, kept as a file
(`tests/tui/frames/page_signin.jpg`) so the snapshot never depends on Chromium's font
rendering on the machine. It goes in through the live page's own sink (`on_frame`, what
the port's screencast calls); the page's state (title, address) is the one the port
would report. The Pilot tests with real Chromium are in test_web_preview.py.
"""

from __future__ import annotations

from pathlib import Path

from mika.assembly.live_page import LivePage
from mika.cap.web.port import PageState
from mika.model.testing import ScriptedModel
from mika_tui.widgets.preview import PhonePreview
from tests.tui.conftest import make_app, settle, until

FRAME = (Path(__file__).parent / "frames" / "page_signin.jpg").read_bytes()
MID = (120, 40)


def _show_page(state: PageState):
    async def before(pilot) -> None:
        await settle(pilot)
        main = pilot.app.main_screen
        preview = main.query_one(PhonePreview)
        page = LivePage(None)  # no port: the frame is handed in through the sink itself
        page.state = state
        main.show_live_page("r-page", page)
        page.on_frame(FRAME, "t1", (1280, 800))
        await until(lambda: preview.picture_size == (1280, 800), 15)
        await settle(pilot)

    return before


SIGN_IN = PageState(tab="t1", url="http://127.0.0.1:41234/login?next=/orders", title="Sign in — Loopback Shop")


def test_the_preview_shows_the_page_and_its_title_and_host(snap_compare, tmp_path):
    assert snap_compare(make_app(tmp_path, ScriptedModel(["hi"])), terminal_size=MID, run_before=_show_page(SIGN_IN))


def test_the_page_preview_in_chinese(snap_compare, tmp_path):
    app = make_app(tmp_path, ScriptedModel(["hi"]), language="zh")
    assert snap_compare(app, terminal_size=MID, run_before=_show_page(SIGN_IN))
