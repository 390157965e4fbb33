"""A still frame (a recorded screenshot) drawn with half blocks, sized to the widget."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widget import Widget

from mika_tui.halfblock import to_strips


class FrameView(Widget):
    COMPONENT_CLASSES = {"frame-view--empty"}
    DEFAULT_CSS = """
    FrameView { height: 20; width: 1fr; }
    FrameView > .frame-view--empty { color: $text-muted; }
    """

    def __init__(self, png: bytes | None, *, id: str | None = None, empty: str = "") -> None:
        super().__init__(id=id)
        self.png = png
        self.empty = empty  # said when there is no picture (else the pane is just blank)
        self._strips: list[Strip] = []
        self._drawn_for = (0, 0)

    def show(self, png: bytes | None) -> None:
        self.png = png
        self._drawn_for = (0, 0)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size
        if self.png is None:
            if y == 0 and self.empty:
                return Strip([Segment(self.empty, self.get_component_rich_style("frame-view--empty"))]).crop_extend(
                    0, width, None
                )
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
