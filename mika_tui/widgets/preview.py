"""The live phone picture: a Line-API widget fed by a worker thread.

Two feeds: the agent's own display from its decoded H.264 video (`video`, up to
`VIDEO_FPS` frames a second, the newest frame wins), and screencap PNGs of a display
(`source`, 2–5 a second) — today's feed, and the "main display" view. Frames are turned
into half-block strips off the UI thread; the widget only swaps the strip list and
repaints. Nothing is converted while the widget is hidden or its screen is not current.

During a takeover "from the terminal" `control` is set: a click on the picture is a tap
on the agent's display at the mapped point, a drag is a swipe, typed text goes to the
focused field and Esc / Backspace / Enter are the phone's Back / Del / Enter. Input goes
out in order on one thread, since adb calls block.

While a web step runs the preview shows the run's browser page instead (`show_page`: the
newest screencast frame, ≤5 a second) and goes back to the phone's feed with
`show_phone`. A takeover of a page sets `control` to the page's input: clicks map into the
page's viewport CSS px, keys are the page's own (Escape, arrows…), the wheel scrolls it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import get_current_worker

from mika_tui.frames import FrameError, FrameSource, ImageSource
from mika_tui.halfblock import fit, to_strips
from mika_tui.plain import plain_line

VIDEO_FPS = 30.0


class PhonePreview(Widget, can_focus=True):
    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    PhonePreview {
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        height: 1fr;
        width: 1fr;
    }
    PhonePreview.-working { border: round $accent; border-title-color: $accent; }
    PhonePreview.-needs-you { border: heavy $warning; border-title-color: $warning; }
    PhonePreview.-control { border: double $success; border-title-color: $success; }
    """

    class FrameReady(Message):
        def __init__(
            self,
            strips: list[Strip] | None,
            error: str = "",
            image: object = None,
            size: tuple[int, int] = (0, 0),
            feed: object = None,
        ) -> None:
            super().__init__()
            # Where the picture came from (the phone's grab, a video, the page): a phone
            # grab still in flight when the page took the preview must not land over it.
            self.feed = feed
            self.strips = strips
            self.error = error
            self.image = image  # a PIL image, for the kitty / sixel child
            self.size = size  # the picture's pixels

    class InputFailed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(
        self,
        source: FrameSource | None,
        *,
        fps: float = 4.0,
        title: str = "phone",
        waiting: str = "…",
        display_index: int = 0,
        graphics: str = "halfcell",
        video: ImageSource | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.graphics = resolve_graphics(graphics)
        self.source = source
        self.video = video
        self.show_main = False  # True: the main display's screencap even when there is video
        self.fps = max(0.5, min(5.0, fps))
        self.display_index = display_index
        self._strips: list[Strip] = []
        self._message = waiting
        self._busy = False
        self._consumed = threading.Event()
        self._consumed.set()
        self.frames_shown = 0
        # Set on every frame shown, for whoever waits for a picture (tests, first paint).
        self._frame_seen = asyncio.Event()
        self.picture_size = (0, 0)
        self.border_title = title
        # Takeover from the terminal: where input goes, and the display's size in pixels
        # when the video is scaled down (None: the picture's own size).
        self.control = None  # mika.cap.phone.display.input.DisplayInput
        self.display_size: tuple[int, int] | None = None
        self._press: tuple[float, float, float] | None = None
        self._inputs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._input_thread: threading.Thread | None = None
        # While the page is shown: the phone's feed to go back to (its video, its size).
        self.page: ImageSource | None = None
        self._phone_feed: tuple[ImageSource | None, tuple[int, int] | None] = (None, None)

    def compose(self):
        # Kitty / Sixel pictures are drawn by textual-image; half blocks by this widget.
        if self.graphics == "kitty":
            from textual_image.widget import TGPImage

            yield TGPImage(None, id="graphics-image")
        elif self.graphics == "sixel":
            from textual_image.widget.sixel import Image as SixelImage

            yield SixelImage(None, id="graphics-image")

    def on_mount(self) -> None:
        self.set_interval(1 / self.fps, self._tick)
        self.call_after_refresh(self._tick)
        if self.video is not None:
            self._watch_video()

    def on_unmount(self) -> None:
        self._inputs.put(None)

    def set_state(self, state: str, label: str) -> None:
        """state: idle | working | needs_you."""
        self.set_class(state == "working", "-working")
        self.set_class(state == "needs_you", "-needs-you")
        self.border_subtitle = plain_line(label)

    @property
    def paused(self) -> bool:
        return not self.display or self.app.screen is not self.screen or not self.app.is_running

    @property
    def showing_video(self) -> bool:
        return self.video is not None and not self.show_main

    # -- feeds ---------------------------------------------------------------------------

    def use_video(self, video: ImageSource | None) -> None:
        """The run's display got (or lost) its video stream."""
        self.workers.cancel_group(self, "preview-video")
        self.video = video
        if video is not None:
            self._watch_video()

    def show_agent_display(
        self, video: ImageSource | None, display: int, display_size: tuple[int, int] | None = None
    ) -> None:
        """The run works on display N: show its video (None: back to screencap of N),
        and map takeover clicks into its `display_size` pixels (None: the picture's).
        While the page is shown this is the feed `show_phone` goes back to."""
        self.display_index = display
        if self.page is not None:
            self._phone_feed = (video, display_size)
            return
        self.display_size = display_size
        self.use_video(video)

    @property
    def showing_page(self) -> bool:
        return self.page is not None

    def show_page(self, page: ImageSource, viewport: tuple[int, int] | None = None) -> None:
        """A web step runs: the page's frames instead of the phone's, takeover clicks
        mapped into the page's `viewport` CSS px (None: the frame's own pixels)."""
        if self.page is None:
            self._phone_feed = (self.video, self.display_size)
        elif self.page is page:
            self.display_size = viewport or self.display_size
            return
        self.page = page
        self.show_main = False
        self.display_size = viewport
        self.use_video(page)

    def show_phone(self) -> None:
        """Back to the phone's picture (a phone step runs, or the run ended)."""
        if self.page is None:
            return
        self.page = None
        video, self.display_size = self._phone_feed
        self._phone_feed = (None, None)
        self._strips = []
        self.refresh()
        self.use_video(video)
        self._tick()

    def toggle_main(self) -> None:
        """Switch between the agent's display and the main display's picture."""
        self.show_main = not self.show_main
        self._strips = []
        self.refresh()
        self._tick()

    def _tick(self) -> None:
        if self.showing_video or self.source is None or self._busy or self.paused:
            return
        width, height = self.content_size
        if width <= 0 or height <= 0:
            return
        self._busy = True
        self._grab(width, height)

    @work(thread=True, exclusive=True, exit_on_error=False, group="preview")
    def _grab(self, width: int, height: int) -> None:
        try:
            display = 0 if self.show_main else self.display_index
            png = self.source.grab(display)  # type: ignore[union-attr]
            import io

            from PIL import Image

            self._post_image(Image.open(io.BytesIO(png)), width, height, feed=self.source)
        except FrameError as exc:
            self.post_message(self.FrameReady(None, str(exc)))
        except Exception as exc:  # a bad PNG must not kill the preview: say it, try again
            self.post_message(self.FrameReady(None, f"{type(exc).__name__}: {exc}"))

    def _post_image(self, image, width: int, height: int, feed: object = None) -> None:
        size = image.size
        if self.graphics != "halfcell":
            self.post_message(self.FrameReady([], image=image, size=size, feed=feed))
        else:
            self.post_message(self.FrameReady(to_strips(image, (width, height)), size=size, feed=feed))

    @work(thread=True, exclusive=True, exit_on_error=False, group="preview-video")
    def _watch_video(self) -> None:
        """Waits for each new decoded frame; converts only the newest, only when shown."""
        worker = get_current_worker()
        last = 0
        while not worker.is_cancelled:
            video = self.video
            if video is None:
                return
            try:
                got = video.next_image(last, 0.25)
            except FrameError as exc:
                self.post_message(self.FrameReady(None, str(exc)))
                return
            if got is None or self.show_main or self.paused:
                continue
            # The UI has not drawn the last one yet: skip, a newer frame will come.
            if not self._consumed.wait(0.25):
                continue
            started = time.perf_counter()
            last, image = got
            width, height = self.content_size
            if width <= 0 or height <= 0:
                continue
            self._consumed.clear()
            try:
                self._post_image(image, width, height, feed=video)
            except Exception as exc:  # a frame that can't be drawn is said, not fatal
                self._consumed.set()
                self.post_message(self.FrameReady(None, f"{type(exc).__name__}: {exc}"))
            # The page feed says its own cap (5 a second); the phone's video goes up to 30.
            rest = 1 / getattr(video, "fps", VIDEO_FPS) - (time.perf_counter() - started)
            if rest > 0:
                worker_wait = threading.Event()
                worker_wait.wait(rest)  # frame-rate cap for the terminal, not synchronisation

    def on_phone_preview_frame_ready(self, message: FrameReady) -> None:
        message.stop()
        self._busy = False
        self._consumed.set()
        if self.page is not None and message.feed is not None and message.feed is not self.page:
            return  # the phone's picture, grabbed before the page took the preview
        if message.strips is None:
            self._message = message.error
            self._strips = []
        elif message.image is not None:
            self.query_one("#graphics-image").image = message.image  # type: ignore[attr-defined]
            self.picture_size = message.size
            self.frames_shown += 1
            self._frame_seen.set()
        else:
            self._strips = message.strips
            self.picture_size = message.size
            self.frames_shown += 1
            self._frame_seen.set()
        self.refresh()

    async def wait_frames(self, count: int) -> None:
        """Until `count` frames have been shown (the handler runs on this loop: no gap
        between the check and the clear)."""
        while self.frames_shown < count:
            self._frame_seen.clear()
            await self._frame_seen.wait()

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size
        if not self._strips:
            if y == height // 2:
                text = self._message[:width]
                pad = max(0, (width - len(text)) // 2)
                return Strip([Segment(" " * pad + text, Style(dim=True))]).extend_cell_length(width)
            return Strip.blank(width)
        top = max(0, (height - len(self._strips)) // 2)
        row = y - top
        if not 0 <= row < len(self._strips):
            return Strip.blank(width)
        strip = self._strips[row]
        pad = max(0, (width - strip.cell_length) // 2)
        if pad:
            strip = Strip([Segment(" " * pad), *strip], pad + strip.cell_length)
        return strip.crop_extend(0, width, None)

    # -- takeover from the terminal -------------------------------------------------------

    def take_control(self, control) -> None:
        """Clicks, drags and keys on the preview now drive the agent's display."""
        self.control = control
        self.show_main = False
        self.set_class(control is not None, "-control")
        if control is not None:
            self.focus()

    def picture_box(self) -> tuple[int, int, int, int] | None:
        """(left, top, width, height) in cells of the picture inside the content area:
        the same fit and centring `render_line` draws with (a cell is 1×2 pixels)."""
        w, h = self.picture_size
        cw, ch = self.content_size
        if w <= 0 or h <= 0 or cw <= 0 or ch <= 0:
            return None
        bw, bh = fit((w, h), (cw, ch))
        return (cw - bw) // 2, (ch - bh) // 2, bw, bh

    def to_display(self, cx: float, cy: float) -> tuple[int, int] | None:
        """A content-area cell (its centre) → the display pixel under it; None off the picture."""
        box = self.picture_box()
        if box is None:
            return None
        left, top, bw, bh = box
        u, v = (cx - left + 0.5) / bw, (cy - top + 0.5) / bh
        if not (0 <= u < 1 and 0 <= v < 1):
            return None
        dw, dh = self.display_size or self.picture_size
        return min(dw - 1, int(u * dw)), min(dh - 1, int(v * dh))

    def _send(self, call: Callable[[], None]) -> None:
        if self._input_thread is None:
            self._input_thread = threading.Thread(target=self._input_loop, name="mika-takeover-input", daemon=True)
            self._input_thread.start()
        self._inputs.put(call)

    def _input_loop(self) -> None:
        while (call := self._inputs.get()) is not None:
            try:
                call()
            except Exception as exc:  # DisplayInputError and adb faults: said in the UI
                self.post_message(self.InputFailed(str(exc)))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if self.control is None:
            return
        offset = event.get_content_offset(self)
        if offset is not None:
            self._press = (offset.x, offset.y, time.monotonic())
            event.stop()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        control, press = self.control, self._press
        self._press = None
        if control is None or press is None:
            return
        event.stop()
        offset = event.get_content_offset(self)
        if offset is None:
            return
        start = self.to_display(press[0], press[1])
        end = self.to_display(offset.x, offset.y)
        if start is None or end is None:
            return
        if abs(offset.x - press[0]) + abs(offset.y - press[1]) < 1:
            self._send(lambda: control.tap(*end))
        else:
            duration = int(min(2000, max(100, (time.monotonic() - press[2]) * 1000)))
            self._send(lambda: control.swipe(*start, *end, duration))

    def on_key(self, event: events.Key) -> None:
        control = self.control
        if control is None:
            return
        # A page's input names its own keys (Escape, arrows, PageDown…); the phone's are these.
        keys = getattr(control, "KEY_NAMES", None) or {
            "escape": "BACK",
            "backspace": "DEL",
            "enter": "ENTER",
            "tab": "TAB",
        }
        if event.key in keys:
            name = keys[event.key]
            self._send(lambda: control.key(name))
        elif event.is_printable and event.character:
            text = event.character
            self._send(lambda: control.text(text))
        else:
            return
        event.stop()
        event.prevent_default()

    def _wheel(self, event: events.MouseScrollDown | events.MouseScrollUp, dy: float) -> None:
        control = self.control
        scroll = getattr(control, "scroll", None)
        if scroll is None:
            return  # the phone is swiped by dragging; only a page takes the wheel
        offset = event.get_content_offset(self)
        at = self.to_display(offset.x, offset.y) if offset is not None else None
        self._send(lambda: scroll(0.0, dy, at))
        event.stop()
        event.prevent_default()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._wheel(event, WHEEL_PX)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._wheel(event, -WHEEL_PX)


WHEEL_PX = 120.0  # one wheel notch on a page, in CSS px (what browsers scroll per notch)


def resolve_graphics(choice: str) -> str:
    """`auto` means kitty only where the terminal says it is kitty; half blocks otherwise,
    since probing a terminal for Sixel can hang on ones that never answer."""
    import os

    if choice == "auto":
        return "kitty" if os.environ.get("KITTY_WINDOW_ID") or os.environ.get("TERM") == "xterm-kitty" else "halfcell"
    return choice if choice in ("halfcell", "kitty", "sixel") else "halfcell"
