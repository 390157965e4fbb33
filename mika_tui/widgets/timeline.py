"""The step timeline: one row per step said in words ("Scroll down · list moved"), the
current one live, failures highlighted; waiting time shown apart from acting time. Enter
opens the step under the cursor (mika_tui/widgets/step_detail.py). A Line-API widget, so a
long run costs only the rows on screen.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mika.record.step_words import step_action, step_result
from mika.terminal_text import one_line
from mika_tui.i18n import Tr
from mika_tui.run_view import Step

# A step no model chose at that moment gets a mark after its ✓/✗; the border says what
# the marks mean (timeline_legend) once a run has such a step.
ORIGIN_MARKS = {"replay": "↻", "sandbox": "▣"}


def origin_mark(step: Step) -> str:
    return ORIGIN_MARKS.get(step.origin, "")


def _secs(ms: int) -> str:
    return f"{ms / 1000:.1f}s"


class Timeline(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"timeline--live", "timeline--failed", "timeline--detail", "timeline--cursor", "timeline--dim"}
    BINDINGS = [
        Binding("up", "cursor(-1)", "b_step_up", show=False, id="timeline.up", tooltip="d_step_up"),
        Binding("down", "cursor(1)", "b_step_down", show=False, id="timeline.down", tooltip="d_step_down"),
        Binding("enter", "open_step", "b_open_step", id="timeline.expand", tooltip="d_open_step"),
    ]
    DEFAULT_CSS = """
    Timeline { height: 12; border: round $panel-lighten-2; border-title-color: $text-muted; }
    Timeline:focus { border: round $accent; }
    Timeline > .timeline--live { color: $accent; text-style: bold; }
    Timeline > .timeline--failed { color: $error; }
    Timeline > .timeline--detail { color: $text-muted; }
    Timeline > .timeline--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
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
        self._rows: list[tuple[str, str, int]] = []  # text, component, step index

    @property
    def tr(self) -> Tr:
        # The app's language when the timeline sits in Mika's app; English elsewhere.
        found = getattr(self.app, "tr", None) if self.is_attached else None
        return found if isinstance(found, Tr) else Tr("en")

    def set_steps(self, steps: list[Step]) -> None:
        self.steps = list(steps)
        self._layout()

    def _layout(self) -> None:
        width = max(20, self.scrollable_content_region.width or 40)
        rows: list[tuple[str, str, int]] = []
        for i, step in enumerate(self.steps):
            rows.append((self._row(step), self._kind(step), i))
        self._rows = rows
        # The legend only when there is something to explain.
        self.border_subtitle = self.tr("timeline_legend") if any(origin_mark(s) for s in self.steps) else ""
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
        """Left: number, mark, what was done and what came of it; right: time, wait, tokens."""
        width = max(20, self.scrollable_content_region.width or 40)
        tr = self.tr
        mark = "…" if step.live else ("✓" if step.ok else "✗")
        action, result = one_line(step_action(step, tr.lang)), one_line(step_result(step, tr.lang))
        right = [] if step.live else [_secs(step.duration_ms)]
        if step.wait_ms:
            right.append(self.wait_label.format(wait=_secs(step.wait_ms)))
        if step.tokens:
            right.append(f"{step.tokens}t")
        # In a narrow column what the step did matters most: drop tokens, then the waits,
        # then the time, before cutting the words short (the result is kept whole).
        # Widths are terminal cells: a Chinese character takes two.
        extra = origin_mark(step)
        head = f"{step.index:>2} {mark} {extra + ' ' if extra else ''}"
        whole = f"{head}{action} · {result}"

        def room_for(n: int) -> tuple[str, int]:
            tail = " ".join(right[:n])
            return tail, width - cell_len(tail) - (1 if tail else 0)

        # The most of the right side that lets the words fit; if none does, a finished
        # step keeps its time (a live one has none) and the words are cut.
        fits = [n for n in range(len(right), -1, -1) if cell_len(whole) <= room_for(n)[1]]
        tail, room = room_for(fits[0] if fits else (0 if step.live else 1))
        left = whole
        if cell_len(left) > room:
            keep = max(1, room - cell_len(head) - cell_len(result) - 4)
            left = set_cell_size(f"{head}{set_cell_size(action, keep).rstrip()}… · {result}", max(1, room))
        return f"{set_cell_size(left, room)} {tail}" if tail else left

    def on_resize(self) -> None:
        self._layout()

    class CursorMoved(Message):
        """The cursor is on another step (the run viewer shows that step's frame)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def action_cursor(self, delta: int) -> None:
        if not self.steps:
            return
        last = len(self.steps) - 1
        # Before the cursor has moved it stands, unseen, on the latest step (the one Enter
        # opens): the first key starts from there, not from the top.
        start = self.cursor if 0 <= self.cursor <= last else last + (1 if delta < 0 else 0)
        self.move_cursor(max(0, min(last, start + delta)))

    def move_cursor(self, index: int) -> None:
        """Put the cursor on step `index`, keep its row in view, and say so."""
        if not self.steps:
            return
        index = max(0, min(len(self.steps) - 1, index))
        changed = index != self.cursor
        self.cursor = index
        row = next((y for y, (_, _, i) in enumerate(self._rows) if i == index), None)
        if row is not None:
            height = self.scrollable_content_region.height or 1
            if row < self.scroll_y:
                self.scroll_to(y=row, animate=False)
            elif row >= self.scroll_y + height:
                self.scroll_to(y=row - height + 1, animate=False)
        self.refresh()
        if changed:
            self.post_message(self.CursorMoved(index))

    def action_open_step(self) -> None:
        """The step under the cursor, or the latest one before the cursor has moved."""
        if not self.steps:
            return
        from mika_tui.widgets.step_detail import StepDetail

        index = self.cursor if 0 <= self.cursor < len(self.steps) else len(self.steps) - 1
        self.app.push_screen(StepDetail(self.steps[index], self.tr))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_y)
        if not self._rows:
            if y == 0:
                return (
                    Strip([Segment(self.empty, self.get_component_rich_style("timeline--dim"))])
                    .crop(0, width)
                    .extend_cell_length(width)
                )
            return Strip.blank(width)
        if index >= len(self._rows):
            return Strip.blank(width)
        text, kind, step_index = self._rows[index]
        style = self.rich_style
        if kind:
            style = style + self.get_component_rich_style(kind)
        if step_index == self.cursor and self.has_focus:
            style = style + self.get_component_rich_style("timeline--cursor")
        return Strip([Segment(text, style)]).crop(0, width).extend_cell_length(width, style)
