"""Inline cards for the moments a run waits on the person: approval, question, takeover.

Each card only posts `CardAnswered`; the screen turns that into confirm / answer /
hand_back on the run. The approval card is released by `a` or `r` and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static

from mika_tui.i18n import Tr
from mika_tui.plain import plain, plain_line
from mika_tui.run_view import Card


class CardAnswered(Message):
    def __init__(self, card: Card, *, text: str = "", allowed: bool = False, done: bool = False) -> None:
        super().__init__()
        self.card = card
        self.text = text
        self.allowed = allowed
        self.done = done


CARD_CSS = """
{name} {{ border: heavy $warning; padding: 0 1; height: auto; margin: 1 0 0 0; background: $warning 10%; }}
{name}:focus-within, {name}:focus {{ border: heavy $accent; }}
{name} .card-title {{ text-style: bold; color: $warning; }}
{name} .approval-mismatch {{ text-style: bold; color: $error; }}
{name} Horizontal {{ height: auto; }}
{name} Button {{ margin: 0 1 0 0; min-width: 8; }}
"""


class ApprovalCard(Vertical, can_focus=True):
    DEFAULT_CSS = CARD_CSS.format(name="ApprovalCard")
    BINDINGS = [
        Binding("a", "allow", "Allow once", id="card.allow", tooltip="Allow this one payment step"),
        Binding("r", "reject", "Reject", id="card.reject", tooltip="Refuse the payment step"),
    ]

    def __init__(self, card: Card, tr: Tr) -> None:
        super().__init__(classes="card")
        self.card = card
        self.tr = tr
        self.resolved = False

    def compose(self) -> ComposeResult:
        yield Static(self.tr("approval_title"), classes="card-title")
        # What the screen shows (mika/action/approval_summary.py), never just the model's words.
        yield Static(
            self.tr("approval_body", what=self.card.text, amount=self.card.amount, app=self.card.app or "—"),
            markup=False,
        )
        for note in self.card.notes:
            yield Static(f"⚠ {note}", classes="approval-mismatch", markup=False)
        yield Static(self.tr("approval_keys"), id="approval-keys", markup=False)

    def _resolve(self, allowed: bool) -> None:
        if self.resolved:
            return
        self.resolved = True
        self.query_one("#approval-keys", Static).update(self.tr("approval_allowed" if allowed else "approval_rejected"))
        self.post_message(CardAnswered(self.card, allowed=allowed))

    def action_allow(self) -> None:
        self._resolve(True)

    def action_reject(self) -> None:
        self._resolve(False)


class QuestionCard(Vertical):
    DEFAULT_CSS = CARD_CSS.format(name="QuestionCard")

    def __init__(self, card: Card, tr: Tr) -> None:
        super().__init__(classes="card")
        self.card = card
        self.tr = tr
        self.resolved = False

    def compose(self) -> ComposeResult:
        yield Static(self.tr("question_title"), classes="card-title")
        yield Static(plain(self.card.text))
        if self.card.options:
            with Horizontal():
                for i, option in enumerate(self.card.options):
                    yield Button(plain_line(option), id=f"option-{i}", compact=True)
        yield Input(placeholder=self.tr("question_free"), id="free-answer")

    def _resolve(self, text: str) -> None:
        if self.resolved or not text.strip():
            return
        self.resolved = True
        self.post_message(CardAnswered(self.card, text=text.strip()))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        index = int((event.button.id or "option-0").split("-")[1])
        self._resolve(self.card.options[index])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._resolve(event.value)


class TakeoverChosen(Message):
    """The user picked how to take over: `move` (the task to their screen) or `operate`
    (the agent's display from the preview). The screen does it; the card only asks."""

    def __init__(self, card: Card, way: str) -> None:
        super().__init__()
        self.card = card
        self.way = way


class TakeoverCard(Vertical, can_focus=True):
    DEFAULT_CSS = CARD_CSS.format(name="TakeoverCard")
    BINDINGS = [
        Binding("m", "move", "takeover_move", id="takeover.move", tooltip="takeover_move_tip"),
        Binding("o", "operate", "takeover_operate", id="takeover.operate", tooltip="takeover_operate_tip"),
        Binding("d", "done", "takeover_done", id="takeover.done", tooltip="takeover_done"),
        Binding("s", "skip", "takeover_skip", id="takeover.skip", tooltip="takeover_skip"),
    ]

    def __init__(self, card: Card, tr: Tr) -> None:
        super().__init__(classes="card")
        self.card = card
        self.tr = tr
        self.resolved = False
        self.way = ""

    def compose(self) -> ComposeResult:
        yield Static(plain(self.tr("takeover_title", reason=self.card.reason)), classes="card-title")
        yield Static(plain(self.card.text), id="takeover-text")
        with Horizontal():
            yield Button(Content(self.tr("takeover_move_button")), id="takeover-move", compact=True)
            yield Button(Content(self.tr("takeover_operate_button")), id="takeover-operate", compact=True)
            yield Button(Content(self.tr("takeover_done_button")), id="takeover-done", variant="success", compact=True)
            yield Button(Content(self.tr("takeover_skip_button")), id="takeover-skip", compact=True)

    def on_mount(self) -> None:
        from mika_tui.bindings import localize

        localize(self, self.tr)

    def _choose(self, way: str) -> None:
        if self.resolved or self.way == way:
            return
        self.way = way
        note = self.tr("takeover_moved" if way == "move" else "takeover_operating")
        self.query_one("#takeover-text", Static).update(plain(self.card.text + "\n" + note))
        for bid in ("takeover-move", "takeover-operate"):
            self.query_one("#" + bid, Button).disabled = True
        self.post_message(TakeoverChosen(self.card, way))

    def reopen(self) -> None:
        """The chosen way could not be taken: both are offered again."""
        self.way = ""
        self.query_one("#takeover-text", Static).update(plain(self.card.text))
        for bid in ("takeover-move", "takeover-operate"):
            self.query_one("#" + bid, Button).disabled = False

    def _finish(self, done: bool) -> None:
        if self.resolved:
            return
        self.resolved = True
        self.post_message(CardAnswered(self.card, done=done))

    def action_move(self) -> None:
        self._choose("move")

    def action_operate(self) -> None:
        self._choose("operate")

    def action_done(self) -> None:
        self._finish(True)

    def action_skip(self) -> None:
        self._finish(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {
            "takeover-move": self.action_move,
            "takeover-operate": self.action_operate,
            "takeover-done": self.action_done,
            "takeover-skip": self.action_skip,
        }[event.button.id or "takeover-skip"]()


def card_widget(card: Card, tr: Tr) -> ApprovalCard | QuestionCard | TakeoverCard:
    kinds: dict[str, Callable[[Card, Tr], ApprovalCard | QuestionCard | TakeoverCard]] = {
        "approval": ApprovalCard,
        "question": QuestionCard,
        "takeover": TakeoverCard,
    }
    return kinds[card.kind](card, tr)
