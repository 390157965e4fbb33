"""The run's browser page in the preview, and a takeover of a page.

The live page's own rules (repeated frames dropped, at most 5 frames a second to the
watcher, the newest of a burst kept) are checked through its sink, the callback the
port's screencast calls, with real JPEG frames. The preview and the takeover are checked
with real Chromium through the real port: tests/tui/test_web_preview_chromium.py.
"""

from __future__ import annotations

import io
import itertools
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from mika.assembly.live_page import LivePage, LivePages, page_label, web_port_of
from mika.cap.web.port import PageState
from mika.model.testing import Reply, ScriptedModel
from mika_tui.frames import FrameError, PageFrameSource
from mika_tui.i18n import TEXTS
from mika_tui.widgets.cards import TakeoverCard
from mika_tui.widgets.preview import PhonePreview
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, until

FRAME = (Path(__file__).parent / "frames" / "page_signin.jpg").read_bytes()


def jpeg(shade: int) -> bytes:
    """A real JPEG of one flat colour (each shade a different frame)."""
    out = io.BytesIO()
    Image.new("RGB", (320, 200), (shade, 90, 200 - shade % 200)).save(out, format="JPEG", quality=80)
    return out.getvalue()


class TestLivePage:
    def test_a_repeated_frame_is_dropped_and_a_new_one_kept(self):
        page = LivePage(None)
        page.on_frame(FRAME, "t1", (1280, 800))
        page.on_frame(FRAME, "t1", (1280, 800))
        assert page.kept == 1 and page.dropped_same == 1
        first = page.wait_newer(0, 1)
        assert first is not None and first.number == 1 and first.jpeg == FRAME and first.size == (1280, 800)
        page.on_frame(jpeg(10), "t1", (320, 200))
        assert page.wait_newer(first.number, 1).number == 2

    def test_the_watcher_gets_at_most_five_frames_a_second_and_the_newest_of_a_burst(self):
        page = LivePage(None, max_fps=5)
        got: list[tuple[float, int]] = []
        last = 0
        stop = threading.Event()

        def feed() -> None:
            shade = 0
            while not stop.is_set():  # a page that changes as fast as it can draw
                shade += 1
                page.on_frame(jpeg(shade), "t1", (320, 200))

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        try:
            while len(got) < 6:
                frame = page.wait_newer(last, 5)
                assert frame is not None
                got.append((time.monotonic(), frame.number))
                last = frame.number
        finally:
            stop.set()
            feeder.join(5)
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(got)]
        assert min(gaps) >= 0.19, gaps  # 5 a second at most
        assert page.superseded > 0  # the ones in between were replaced, not queued
        # After the burst the newest frame is still delivered (never the last one dropped).
        final = page.latest()
        assert final is not None
        if final.number > last:
            assert page.wait_newer(last, 1).number == final.number

    def test_a_source_decodes_the_jpeg_and_says_a_failed_screencast(self):
        page = LivePage(None)
        page.on_frame(FRAME, "t1", (1280, 800))
        number, image = PageFrameSource(page).next_image(0, 1)
        assert number == 1 and image.size == (1280, 800)
        assert PageFrameSource(page).next_image(1, 0.05) is None  # nothing newer: None, no error
        page._fail("the browser closed")
        with pytest.raises(FrameError, match="the browser closed"):
            PageFrameSource(page).next_image(1, 0.05)

    def test_the_title_line_is_host_then_title(self):
        assert page_label(PageState("t1", "https://shop.example.test/cart", "Your cart")) == (
            "shop.example.test · Your cart"
        )
        long = PageState("t1", "http://127.0.0.1:8000/", "x" * 80)
        assert page_label(long).endswith("…") and len(page_label(long)) < 60
        assert page_label(PageState("t1", "about:blank", "")) == ""
        assert page_label(None) == ""

    def test_a_run_without_the_web_capability_has_no_live_page(self):
        class Phoneish:
            id = "phone"
            port = object()

        assert web_port_of([Phoneish()]) is None
        assert LivePages().frames("r1", [Phoneish()]) is None


class TestPageTakeoverCard:
    def test_the_page_card_offers_operate_and_window_in_both_languages(self):
        for key in (
            "takeover_page_title",
            "takeover_window_button",
            "takeover_window_tip",
            "takeover_page_operating",
            "preview_page_title",
            "page_window_no_display",
        ):
            assert TEXTS["en"][key] and TEXTS["zh"][key] and TEXTS["en"][key] != TEXTS["zh"][key]

    async def test_a_phone_takeover_card_is_unchanged(self, tmp_path):
        model = ScriptedModel([Reply.call("hand_to_user", reason="login", message="Log in, please."), "Logged in."])
        app = make_app(tmp_path, model)
        async with app.run_test(size=(120, 40)) as pilot:
            await scenes.run_to_card(pilot, "open my orders", "takeover")
            card = app.screen.query_one(TakeoverCard)
            assert not card.page
            assert [str(b.label) for b in card.query("Button")] == [
                "[m] Move to my screen",
                "[o] Operate here",
                "[d] Done",
                "[s] Skip",
            ]
            await pilot.press("w")  # the window is a page's way: nothing happens on the phone's card
            await settle(pilot)
            assert card.way == ""
            await pilot.press("s")
            await until(lambda: scenes.view(pilot).status != "")

    async def test_showing_the_page_and_going_back_to_the_phone(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            preview = main.query_one(PhonePreview)
            phone_size = preview.picture_size
            page = LivePage(None, options=None)
            page.state = PageState("t1", "http://127.0.0.1:8000/login", "Sign in")
            main.show_live_page("r1", page)
            page.on_frame(FRAME, "t1", (1280, 800))
            await until(lambda: preview.picture_size == (1280, 800), 10)
            assert preview.showing_page and preview.border_title == "page · 127.0.0.1 · Sign in"
            main.show_live_page("r1", page)  # the step's end: same feed, the viewport known now
            assert preview.display_size == (1280, 800)  # takeover clicks map into the page's CSS px
            left, top, bw, bh = preview.picture_box()
            x, y = preview.to_display(left + bw - 1, top + bh - 1)
            assert 1280 - 1280 / bw <= x < 1280 and 800 - 800 / bh <= y < 800
            main._show_phone()
            await until(lambda: preview.picture_size == phone_size, 10)
            assert not preview.showing_page and preview.border_title == "phone"


EVIL_TITLES = [
    "[@click=app.quit]Sign in[/]",  # a live action if parsed as markup
    "[/b] broken [b",  # crashed the app when parsed
    "\x1b]0;owned\x07Sign in\x1b[2J",  # terminal controls: title change, clear screen
    "Sign\nin\r\n\u202eni ngiS",  # line breaks and a right-to-left override
]


async def test_a_page_title_is_shown_as_text_whatever_it_holds(tmp_path):
    """The title line is the page's own words: never markup, never terminal controls."""
    app = make_app(tmp_path, ScriptedModel(["hi"]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        preview = main.query_one(PhonePreview)
        page = LivePage(None)
        for title in EVIL_TITLES:
            page.state = PageState("t1", "http://127.0.0.1:8000/x", title)
            main.show_live_page("r1", page)
            await pilot.pause()
            shown = str(preview.border_title)
            assert app.is_running  # nothing in it was an action
            assert "\x1b" not in shown and "\x07" not in shown and "\n" not in shown and "\u202e" not in shown
            assert "127.0.0.1" in shown
            if title.startswith("[@click"):
                assert "[@click=app.quit]" in shown  # the brackets are text
        # Drawn to the screen without a control byte reaching the terminal.
        assert "\x1b]0;owned" not in app.export_screenshot()
