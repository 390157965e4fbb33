"""The step timeline: one row per step, the current one live, failures highlighted and
expandable; waiting time shown apart from acting time. A Line-API widget, so a long run
costs only the rows on screen.
"""

from __future__ import annotations

import textwrap

from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mika.terminal_text import one_line
from mika_tui.run_view import Step


def _secs(ms: int) -> str:
    return f"{ms / 1000:.1f}s"


class Timeline(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"timeline--live", "timeline--failed", "timeline--detail", "timeline--cursor", "timeline--dim"}
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="timeline.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="timeline.down"),
        Binding("enter", "toggle", "Expand", id="timeline.expand", tooltip="Show or hide a step's full result"),
    ]
    DEFAULT_CSS = """
    Timeline { height: 12; border: round $panel-lighten-2; border-title-color: $text-muted; }
    Timeline:focus { border: round $accent; }
    Timeline > .timeline--live { color: $accent; text-style: bold; }
    Timeline > .timeline--failed { color: $error; }
    Timeline > .timeline--detail { color: $text-muted; }
    Timeline > .timeline--cursor { background: $boost; }
    Timeline > .timeline--dim { color: $text-muted; }
    """

    def __init__(
        self, *, title: str = "steps", empty: str = "", wait_label: str = "wait {wait}", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.border_title = title
        self.empty = empty
        self.wait_label = wait_label
        self.steps: list[Step] = []
        self.cursor = -1
        self.expanded: set[int] = set()
        self._rows: list[tuple[str, str, int]] = []  # text, component, step index

    def set_steps(self, steps: list[Step]) -> None:
        self.steps = list(steps)
        # Failures open by themselves once; the person can fold them.
        self._layout()

    def _layout(self) -> None:
        width = max(20, self.scrollable_content_region.width or 40)
        rows: list[tuple[str, str, int]] = []
        for i, step in enumerate(self.steps):
            rows.append((self._row(step), self._kind(step), i))
            if i in self.expanded and step.text:
                for line in textwrap.wrap(step.text, max(10, width - 4))[:12]:
                    rows.append(("    " + line, "timeline--detail", i))
        self._rows = rows
        self.virtual_size = Size(width, max(1, len(rows)))
        at_end = self.scroll_y >= self.max_scroll_y - 1
        self.refresh()
        if at_end and self.cursor < 0:
            self.scroll_end(animate=False)

    @staticmethod
    def _kind(step: Step) -> str:
        if step.live:
            return "timeline--live"
        if step.ok is False:
            return "timeline--failed"
        return ""

    def _row(self, step: Step) -> str:
        """Left: number, mark, tool, target; right: effect, acting time, wait, tokens."""
        width = max(20, self.scrollable_content_region.width or 40)
        mark = "…" if step.live else ("✓" if step.ok else "✗")
        result = step.effect or step.code or ("" if step.live else "done")
        right = [result] if result else []
        if not step.live:
            right.append(_secs(step.duration_ms))
        if step.wait_ms:
            right.append(self.wait_label.format(wait=_secs(step.wait_ms)))
        if step.tokens:
            right.append(f"{step.tokens}t")
        # In a narrow column what the step did matters most: drop tokens, then time, then
        # the capability prefix of the tool name ("phone_tap" → "tap"), before cutting short.
        short = step.name.split("_", 1)[1] if "_" in step.name.strip("_") else step.name
        tries = [(step.name, right[:n]) for n in range(len(right), 0, -1)] + [(short, right[:1])]
        for name, parts in tries:
            tail = " ".join(parts)
            left = f"{step.index:>2} {mark} {name} {one_line(step.target)}".rstrip()
            room = max(8, width - len(tail) - 1)
            if len(left) <= room:
                break
        else:
            left = left[: room - 1] + "…"
        return f"{left:<{room}} {tail}"

    def on_resize(self) -> None:
        self._layout()

    def action_cursor(self, delta: int) -> None:
        if not self.steps:
            return
        self.cursor = max(0, min(len(self.steps) - 1, self.cursor + delta))
        self.refresh()

    # Deliberately replaces DOMNode's generic action_toggle(attribute) on this widget: the
    # timeline's "toggle" binding expands or folds the step under the cursor.
    def action_toggle(self) -> None:  # type: ignore[override]
        if 0 <= self.cursor < len(self.steps):
            self.expanded ^= {self.cursor}
            self._layout()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_y)
        if not self._rows:
            if y == 0:
                return Strip(
                    [Segment(self.empty[:width], self.get_component_rich_style("timeline--dim"))]
                ).extend_cell_length(width)
            return Strip.blank(width)
        if index >= len(self._rows):
            return Strip.blank(width)
        text, kind, step_index = self._rows[index]
        style = self.rich_style
        if kind:
            style = style + self.get_component_rich_style(kind)
        if step_index == self.cursor and self.has_focus:
            style = style + self.get_component_rich_style("timeline--cursor")
        return Strip([Segment(text[:width], style)]).extend_cell_length(width, style)
