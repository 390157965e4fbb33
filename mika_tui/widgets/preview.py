"""The live phone picture: a Line-API widget fed by a worker thread, 2–5 frames a second.

Frames are grabbed and turned into half-block strips off the UI thread; the widget only
swaps the strip list and repaints. Nothing is grabbed while the widget is hidden or its
screen is not the current one. The border says whether Mika is working or needs you.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from mika_tui.frames import FrameError, FrameSource
from mika_tui.halfblock import to_strips
from mika_tui.plain import plain_line


class PhonePreview(Widget):
    DEFAULT_CSS = """
    PhonePreview {
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        height: 1fr;
        width: 1fr;
    }
    PhonePreview.-working { border: round $accent; border-title-color: $accent; }
    PhonePreview.-needs-you { border: heavy $warning; border-title-color: $warning; }
    """

    class FrameReady(Message):
        def __init__(self, strips: list[Strip] | None, error: str = "", image: object = None) -> None:
            super().__init__()
            self.strips = strips
            self.error = error
            self.image = image  # a PIL image, for the kitty / sixel child

    def __init__(
        self,
        source: FrameSource | None,
        *,
        fps: float = 4.0,
        title: str = "phone",
        waiting: str = "…",
        display_index: int = 0,
        graphics: str = "halfcell",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.graphics = resolve_graphics(graphics)
        self.source = source
        self.fps = max(0.5, min(5.0, fps))
        self.display_index = display_index
        self._strips: list[Strip] = []
        self._message = waiting
        self._busy = False
        self.frames_shown = 0
        self.border_title = title

    def compose(self):
        # Kitty / Sixel pictures are drawn by textual-image; half blocks by this widget.
        if self.graphics == "kitty":
            from textual_image.widget import TGPImage

            yield TGPImage(None, id="graphics-image")
        elif self.graphics == "sixel":
            from textual_image.widget.sixel import Image as SixelImage

            yield SixelImage(None, id="graphics-image")

    def on_mount(self) -> None:
        if self.source is not None:
            self.set_interval(1 / self.fps, self._tick)
            self.call_after_refresh(self._tick)

    def set_state(self, state: str, label: str) -> None:
        """state: idle | working | needs_you."""
        self.set_class(state == "working", "-working")
        self.set_class(state == "needs_you", "-needs-you")
        self.border_subtitle = plain_line(label)

    @property
    def paused(self) -> bool:
        return not self.display or self.app.screen is not self.screen or not self.app.is_running

    def _tick(self) -> None:
        if self.source is None or self._busy or self.paused:
            return
        width, height = self.content_size
        if width <= 0 or height <= 0:
            return
        self._busy = True
        self._grab(width, height)

    @work(thread=True, exclusive=True, exit_on_error=False, group="preview")
    def _grab(self, width: int, height: int) -> None:
        try:
            png = self.source.grab(self.display_index)  # type: ignore[union-attr]
            if self.graphics != "halfcell":
                import io

                from PIL import Image

                self.post_message(self.FrameReady([], image=Image.open(io.BytesIO(png))))
                return
            strips = to_strips(png, (width, height))
        except FrameError as exc:
            self.post_message(self.FrameReady(None, str(exc)))
            return
        except Exception as exc:  # a bad PNG must not kill the preview: say it, try again
            self.post_message(self.FrameReady(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.FrameReady(strips))

    def on_phone_preview_frame_ready(self, message: FrameReady) -> None:
        message.stop()
        self._busy = False
        if message.strips is None:
            self._message = message.error
            self._strips = []
        elif message.image is not None:
            self.query_one("#graphics-image").image = message.image  # type: ignore[attr-defined]
            self.frames_shown += 1
        else:
            self._strips = message.strips
            self.frames_shown += 1
        self.refresh()

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


def resolve_graphics(choice: str) -> str:
    """`auto` means kitty only where the terminal says it is kitty; half blocks otherwise,
    since probing a terminal for Sixel can hang on ones that never answer."""
    import os

    if choice == "auto":
        return "kitty" if os.environ.get("KITTY_WINDOW_ID") or os.environ.get("TERM") == "xterm-kitty" else "halfcell"
    return choice if choice in ("halfcell", "kitty", "sixel") else "halfcell"
