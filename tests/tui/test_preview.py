"""The live preview from the agent's display video, and takeover from the terminal.

The video is real H.264 (PyAV's libx264, encoded here from the simulated phone's own
rendered screens) decoded by the product's decoder. Takeover goes through the real adb
server to the simulated phone: a click on the preview must land as `input -d N tap` on
display N, seen in `simctl state`, while display 0 stays as it was.
"""

from __future__ import annotations

import io
import json

from PIL import Image

from mika.cap.phone.display.h264_encode import encode_all
from mika.cap.phone.display.input import AdbDisplayInput, parse_stack_list
from mika.cap.phone.display.video import VideoDecoder
from mika.model.testing import Reply, ScriptedModel
from mika_tui.bindings import all_binding_ids
from mika_tui.commands import MikaCommands
from mika_tui.deps import DeviceInfo
from mika_tui.frames import VideoFrameSource
from mika_tui.i18n import TEXTS
from mika_tui.screens.main import MainScreen
from mika_tui.widgets.cards import TakeoverCard
from mika_tui.widgets.preview import PhonePreview
from tests.tui import scenes
from tests.tui.conftest import make_app, settle, sim_frames, until

SIZE = (120, 40)


class RecordingInput:
    """The real AdbDisplayInput, with a note of each call (what the test asserts on)."""

    def __init__(self, inner: AdbDisplayInput) -> None:
        self.inner = inner
        self.display = inner.display
        self.calls: list[tuple] = []

    def tap(self, x, y):
        self.calls.append(("tap", x, y))
        self.inner.tap(x, y)

    def swipe(self, x1, y1, x2, y2, duration_ms=300):
        self.calls.append(("swipe", x1, y1, x2, y2))
        self.inner.swipe(x1, y1, x2, y2, duration_ms)

    def text(self, s):
        self.calls.append(("text", s))
        self.inner.text(s)

    def key(self, name):
        self.calls.append(("key", name))
        self.inner.key(name)

    def back(self):
        self.key("BACK")


def state(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))


def agent_display_with_settings(sim_phone) -> int:
    out = sim_phone.shell("simctl display add 1080x2400 420 agent")
    display = int("".join(ch for ch in out.split("id")[-1] if ch.isdigit()) or out.split()[-1])
    sim_phone.shell(f"am start --display {display} -n com.android.settings/.Settings")
    assert state(sim_phone)["foreground"][str(display)].startswith("com.android.settings/")
    return display


def png_of(sim_phone, display: int) -> bytes:
    return sim_phone.adb.shell(f"screencap -d {display} -p", encoding=None)


def cell_on(preview: PhonePreview, bounds) -> tuple[int, int]:
    """The content cell whose mapped point is nearest the middle of `bounds`."""
    left, top, right, bottom = bounds
    mx, my = (left + right) / 2, (top + bottom) / 2
    best = None
    cw, ch = preview.content_size
    for cy in range(ch):
        for cx in range(cw):
            p = preview.to_display(cx, cy)
            if p is None or not (left <= p[0] < right and top <= p[1] < bottom):
                continue
            d = (p[0] - mx) ** 2 + (p[1] - my) ** 2
            if best is None or d < best[0]:
                best = (d, cx, cy)
    assert best is not None, f"no cell of the preview maps into {bounds}"
    return best[1], best[2]


def tappable_row(sim_phone, display: int):
    from mika.sim.apps.frame import build_frame

    for window in build_frame(sim_phone.device.world, display):
        for node in window.root.walk():
            if node.clickable and node.on_tap and node.role == "row":
                return node
    raise AssertionError("Settings shows no tappable row")  # the sim changed its Settings screen


def takeover_model() -> ScriptedModel:
    return ScriptedModel([Reply.call("hand_to_user", reason="login", message="Log in, please."), "Logged in."])


class TestVideoPreview:
    async def test_decoded_video_is_what_the_preview_shows(self, tmp_path):
        screens = [Image.open(io.BytesIO(png)).convert("RGB") for png in sim_frames()]
        size = screens[0].size
        moving = [s.rotate(0, translate=(0, i * 8)) for i in range(20) for s in screens[:1]]
        decoder = VideoDecoder()
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            preview = app.main_screen.query_one(PhonePreview)
            preview.use_video(VideoFrameSource(decoder, 3))
            shown = preview.frames_shown
            decoder.start(encode_all(moving))
            assert decoder.wait_ended(30) and not decoder.error
            await until(lambda: preview.frames_shown > shown, 5)
            assert preview.picture_size == size
            assert preview.showing_video and preview._strips
            # Newest wins: whatever the preview drew, the decoder kept no backlog.
            assert decoder.latest().number == 20

    async def test_a_broken_video_says_so_in_the_preview(self, tmp_path):
        from mika.cap.phone.display.packets import parse_stream

        decoder = VideoDecoder()
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            preview = app.main_screen.query_one(PhonePreview)
            preview.use_video(VideoFrameSource(decoder, 3))
            decoder.start(parse_stream(b"\x00" + bytes(64) + b"h264" + bytes(8) + bytes(5))[1])
            await until(lambda: "video stream ended inside the frame header" in preview._message, 5)


class TestKeys:
    async def test_zoom_and_main_display_keys(self, tmp_path):
        asked: list[int] = []

        class SimFrames:
            """PNGs the simulated phone rendered, noting which display was asked for."""

            def grab(self, display: int = 0) -> bytes:
                asked.append(display)
                return sim_frames()[0]

        app = make_app(tmp_path, ScriptedModel(["hi"]))
        app.deps.frames = SimFrames()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            preview = app.main_screen.query_one(PhonePreview)
            preview.show_agent_display(VideoFrameSource(VideoDecoder(), 2), 2)
            await pilot.press("f6")
            assert app.screen.maximized is preview
            await pilot.pause()
            assert preview.size.width >= SIZE[0] - 2 and preview.size.height >= SIZE[1] - 4  # the whole window
            await pilot.press("f6")
            assert app.screen.maximized is None
            asked.clear()
            await pilot.press("f7")
            assert preview.show_main and preview.border_title == "main display"
            await until(lambda: 0 in asked, 3)
            assert set(asked) == {0}
            await pilot.press("f7")
            assert not preview.show_main and preview.border_title == "phone"

    def test_the_new_bindings_are_remappable_in_the_palette_and_in_both_languages(self):
        ids = all_binding_ids([MainScreen, TakeoverCard])
        for bid in ("main.preview_zoom", "main.preview_main", "takeover.move", "takeover.operate"):
            assert bid in ids
        actions = [a for _, a in __import__("mika_tui.commands", fromlist=["APP_ACTIONS"]).APP_ACTIONS]
        assert "screen.zoom_preview" in actions and "screen.preview_main" in actions
        assert MikaCommands is not None
        for key in ("b_preview_zoom", "b_preview_main", "takeover_move", "takeover_operate", "takeover_moved"):
            assert TEXTS["en"][key] and TEXTS["zh"][key] and TEXTS["en"][key] != TEXTS["zh"][key]


class TestMapping:
    async def test_a_cell_maps_through_the_letterbox_to_display_pixels(self, tmp_path):
        app = make_app(tmp_path, ScriptedModel(["hi"]))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            preview = app.main_screen.query_one(PhonePreview)
            preview.picture_size = (1080, 2400)
            left, top, bw, bh = preview.picture_box()
            cw, _ = preview.content_size
            assert bw < cw and left == (cw - bw) // 2  # a tall phone in a wide box: bars left and right
            assert preview.to_display(left - 1, top) is None  # the bar is not the phone
            assert preview.to_display(left, top) == (int(0.5 / bw * 1080), int(0.5 / bh * 2400))
            x, y = preview.to_display(left + bw - 1, top + bh - 1)
            assert 1080 - 1080 / bw <= x < 1080 and 2400 - 2400 / bh <= y < 2400
            # A video scaled down by the server still taps in the display's own pixels.
            preview.picture_size, preview.display_size = (540, 1200), (1080, 2400)
            assert preview.to_display(left, top) == (int(0.5 / bw * 1080), int(0.5 / bh * 2400))


class TestTakeoverFromTheTerminal:
    async def test_the_card_offers_both_ways_with_keys(self, tmp_path):
        app = make_app(tmp_path, takeover_model())
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open my orders", "takeover")
            card = app.screen.query_one(TakeoverCard)
            assert card.has_focus
            labels = [str(b.label) for b in card.query("Button")]
            assert labels == ["[m] Move to my screen", "[o] Operate here", "[d] Done", "[s] Skip"]
            await pilot.press("s")
            await until(lambda: scenes.view(pilot).status != "" or scenes.view(pilot).card is None)

    async def test_operate_here_clicks_are_taps_on_display_n_and_esc_is_back(self, tmp_path, sim_phone):
        display = agent_display_with_settings(sim_phone)
        before = state(sim_phone)
        row = tappable_row(sim_phone, display)
        device = DeviceInfo(sim_phone.serial, "simulated phone", "tcp", display, is_sim=True)
        app = make_app(tmp_path, takeover_model(), frames=[png_of(sim_phone, display)], device=device)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open my orders", "takeover")
            takeover = app.main_screen.terminal_takeover()
            recorded: list[RecordingInput] = []
            takeover.make_input = lambda serial, d: (
                recorded.append(RecordingInput(AdbDisplayInput(serial, d))) or recorded[-1]
            )
            await pilot.press("o")
            preview = app.main_screen.query_one(PhonePreview)
            await until(lambda: preview.control is not None, 3)
            assert preview.has_focus and recorded[0].display == display
            await until(lambda: preview.picture_size == (1080, 2400), 3)
            cx, cy = cell_on(preview, row.bounds)
            mapped = preview.to_display(cx, cy)
            await pilot.click(preview, offset=(cx + 1, cy + 1))  # +1: the border
            await until(lambda: recorded[0].calls, 5)
            assert recorded[0].calls[0] == ("tap", *mapped)
            assert row.bounds[0] <= mapped[0] < row.bounds[2] and row.bounds[1] <= mapped[1] < row.bounds[3]
            await until(lambda: state(sim_phone)["screen"][str(display)] != before["screen"][str(display)], 5)
            after = state(sim_phone)
            assert after["foreground"]["0"] == before["foreground"]["0"]
            assert after["screen"]["0"] == before["screen"]["0"]
            # Esc on the preview is the phone's Back on display N — it never stops the run.
            await pilot.press("escape")
            await until(lambda: ("key", "BACK") in recorded[0].calls, 5)
            await until(lambda: state(sim_phone)["screen"][str(display)] == before["screen"][str(display)], 5)
            assert scenes.view(pilot).running and scenes.view(pilot).card is not None
            await pilot.click("#takeover-done")
            await until(lambda: scenes.view(pilot).status == "answered")
            assert preview.control is None

    async def test_move_to_my_screen_and_back_when_done(self, tmp_path, sim_phone):
        display = agent_display_with_settings(sim_phone)
        before = state(sim_phone)
        device = DeviceInfo(sim_phone.serial, "simulated phone", "tcp", display, is_sim=True)
        model = takeover_model()
        app = make_app(tmp_path, model, frames=[png_of(sim_phone, display)], device=device)
        async with app.run_test(size=SIZE) as pilot:
            await scenes.run_to_card(pilot, "open my orders", "takeover")
            await pilot.press("m")
            await until(lambda: state(sim_phone)["foreground"]["0"] == before["foreground"][str(display)], 5)
            assert state(sim_phone)["foreground"][str(display)] is None
            moved = app.main_screen.terminal_takeover().moved
            assert len(moved) == 1
            await pilot.press("d")
            await until(lambda: scenes.view(pilot).status == "answered")
            after = state(sim_phone)
            assert after["foreground"][str(display)] == before["foreground"][str(display)]
            assert after["foreground"]["0"] == before["foreground"]["0"]
            assert "read it again" in model.requests[1].messages[-1].tool_results[0].text


def test_stack_list_is_read_top_first_per_display():
    text = (
        "RootTask id=12 bounds=[0,0][1080,2400] displayId=3 userId=0\n"
        "  taskId=12: com.android.settings/com.android.settings.Settings bounds=[0,0][1080,2400] userId=0 visible=true topActivity=ComponentInfo{com.android.settings/com.android.settings.Settings}\n"
        "RootTask id=1 bounds=[0,0][1080,2400] displayId=0 userId=0\n"
        "  taskId=1: com.android.launcher/.Home bounds=[0,0][1080,2400] userId=0 visible=true topActivity=x\n"
    )
    tasks = parse_stack_list(text)
    assert [(t.id, t.display) for t in tasks] == [(12, 3), (1, 0)]
    assert tasks[0].component == "com.android.settings/com.android.settings.Settings"


async def test_operate_here_drag_is_a_swipe_and_typing_reaches_the_focused_field(tmp_path, sim_phone):
    from mika.sim.apps.frame import build_frame

    display = agent_display_with_settings(sim_phone)
    world = sim_phone.device.world
    field = next(n for w in build_frame(world, display) for n in w.root.walk() if n.role == "field")
    device = DeviceInfo(sim_phone.serial, "simulated phone", "tcp", display, is_sim=True)
    app = make_app(tmp_path, takeover_model(), frames=[png_of(sim_phone, display)], device=device)
    async with app.run_test(size=SIZE) as pilot:
        await scenes.run_to_card(pilot, "open my orders", "takeover")
        takeover = app.main_screen.terminal_takeover()
        recorded: list[RecordingInput] = []
        takeover.make_input = lambda serial, d: (
            recorded.append(RecordingInput(AdbDisplayInput(serial, d))) or recorded[-1]
        )
        await pilot.press("o")
        preview = app.main_screen.query_one(PhonePreview)
        await until(lambda: preview.control is not None and preview.picture_size == (1080, 2400), 3)
        left, top, bw, bh = preview.picture_box()
        # A drag from low on the picture to high up: one swipe, between the mapped points.
        low, high = (left + bw // 2, top + bh - 3), (left + bw // 2, top + bh // 2)
        await pilot.mouse_down(preview, offset=(low[0] + 1, low[1] + 1))
        await pilot.mouse_up(preview, offset=(high[0] + 1, high[1] + 1))
        await until(lambda: recorded[0].calls, 5)
        assert recorded[0].calls[0] == ("swipe", *preview.to_display(*low), *preview.to_display(*high))
        # Tap the search field, then type: the text lands in that field on display N.
        cx, cy = cell_on(preview, field.bounds)
        await pilot.click(preview, offset=(cx + 1, cy + 1))
        await pilot.press("w", "i", "f", "i")
        await until(lambda: len(recorded[0].calls) >= 6, 5)
        assert recorded[0].calls[1] == ("tap", *preview.to_display(cx, cy))
        assert recorded[0].calls[2:] == [("text", "w"), ("text", "i"), ("text", "f"), ("text", "i")]

        def field_text() -> str:
            nodes = [n for w in build_frame(world, display) for n in w.root.walk() if n.role == "field"]
            return nodes[0].text if nodes else ""

        await until(lambda: field_text() == "wifi", 5)
        assert scenes.view(pilot).running  # nothing typed reached the chat or stopped the run


async def test_move_on_a_run_already_on_the_main_screen_says_so_and_moves_nothing(tmp_path, sim_phone):
    before = state(sim_phone)
    device = DeviceInfo(sim_phone.serial, "simulated phone", "tcp", 0, is_sim=True)
    app = make_app(tmp_path, takeover_model(), device=device)
    async with app.run_test(size=SIZE) as pilot:
        await scenes.run_to_card(pilot, "open my orders", "takeover")
        await pilot.press("m")
        notice = TEXTS["en"]["takeover_on_main"]

        def said() -> bool:
            return any(str(w.render()) == notice for w in app.main_screen.query("#chat .notice"))

        await until(said, 3)
        assert state(sim_phone)["foreground"] == before["foreground"]
        assert app.main_screen.terminal_takeover().moved == {}
        card = app.main_screen.query_one(TakeoverCard)
        await until(lambda: not card.query_one("#takeover-operate").disabled, 3)  # the other way is still offered
        assert card.way == ""
        await pilot.press("d")
        await until(lambda: scenes.view(pilot).status == "answered")
