"""One step opened from the timeline: what it did in words, its effect and result code,
where its time went (the model's thinking before it, acting, waiting), its arguments, and
the text the model read back (the result with the screen listing after the action)."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from mika.record.step_words import step_action, step_result, step_words
from mika_tui.bindings import TranslatedBindings
from mika_tui.i18n import Tr
from mika_tui.plain import markup, plain
from mika_tui.run_view import Step


def _secs(ms: int) -> str:
    return f"{ms / 1000:.1f}s"


class StepDetail(TranslatedBindings, ModalScreen[None]):
    DEFAULT_CSS = """
    StepDetail { align: center middle; }
    StepDetail > VerticalScroll { width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1; }
    StepDetail .step-head { text-style: bold; }
    StepDetail .step-meta { color: $text-muted; }
    StepDetail .step-failed { color: $error; }
    StepDetail #step-text { height: auto; border: round $panel-lighten-2; }
    """
    BINDINGS = [
        Binding("escape", "close", "b_close", id="step.close", tooltip="d_step_close"),
        Binding("enter", "close", "b_close", id="step.close_enter", show=False, tooltip="d_step_close"),
    ]

    def __init__(self, step: Step, tr: Tr) -> None:
        super().__init__()
        self.step = step
        self.tr = tr

    @property
    def words(self) -> str:
        return step_words(self.step, self.tr.lang)

    def compose(self) -> ComposeResult:
        s, tr = self.step, self.tr
        # One scroll for it all: in a short terminal the listing still shows, below the facts.
        with VerticalScroll(id="step-detail"):
            yield Static(
                markup("[b]$title[/b]", title=tr("step_detail_title", n=s.index, words=step_action(s, tr.lang))),
                classes="step-head",
            )
            yield Static(
                plain(tr("step_detail_effect", effect=step_result(s, tr.lang))),
                classes="step-failed" if s.ok is False else "step-meta",
            )
            if s.code:
                yield Static(plain(tr("step_detail_code", code=s.code)), classes="step-meta")
            yield Static(
                plain(
                    tr(
                        "step_detail_time",
                        think=_secs(s.think_ms),
                        act=_secs(s.duration_ms),
                        wait=_secs(s.wait_ms),
                        tokens=s.tokens,
                    )
                ),
                id="step-time",
                classes="step-meta",
            )
            if s.arguments:
                args = json.dumps(s.arguments, ensure_ascii=False)
                yield Static(plain(tr("step_detail_args", args=args)), classes="step-meta")
            yield Static(plain(tr("step_detail_saw")), classes="step-meta")
            yield Static(plain(s.text or tr("step_detail_nothing")), id="step-text")
            yield Static(plain(tr("step_detail_close")), classes="step-meta")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#step-detail").focus()

    def action_close(self) -> None:
        self.dismiss(None)
