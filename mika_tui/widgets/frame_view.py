"""A still frame (a recorded screenshot) drawn with half blocks, sized to the widget."""

from __future__ import annotations

from textual.strip import Strip
from textual.widget import Widget

from mika_tui.halfblock import to_strips


class FrameView(Widget):
    DEFAULT_CSS = "FrameView { height: 20; width: 1fr; }"

    def __init__(self, png: bytes | None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.png = png
        self._strips: list[Strip] = []
        self._drawn_for = (0, 0)

    def show(self, png: bytes | None) -> None:
        self.png = png
        self._drawn_for = (0, 0)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size
        if self.png is None:
            return Strip.blank(width)
        if self._drawn_for != (width, height):
            try:
                self._strips = to_strips(self.png, (width, height))
            except Exception:  # an unreadable frame file: draw nothing rather than crash
                self._strips = []
            self._drawn_for = (width, height)
        if y < len(self._strips):
            return self._strips[y].crop_extend(0, width, None)
        return Strip.blank(width)
