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
        Binding("a", "allow", "b_allow", id="card.allow", tooltip="d_allow"),
        Binding("r", "reject", "b_reject", id="card.reject", tooltip="d_reject"),
    ]

    def __init__(self, card: Card, tr: Tr) -> None:
        super().__init__(classes="card")
        self.card = card
        self.tr = tr
        self.resolved = False

    def compose(self) -> ComposeResult:
        setting = self.card.reason == "setting"
        yield Static(self.tr("setting_title" if setting else "approval_title"), classes="card-title")
        # What the screen shows (mika/action/approval_summary.py), never just the model's words;
        # for a risky setting, the change the port read from the command.
        body = "setting_body" if setting else "approval_body"
        yield Static(
            self.tr(body, what=self.card.text, amount=self.card.amount, app=self.card.app or "—"), markup=False
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
    (the agent's display from the preview); for a page (`page`): `operate` (the page from
    the preview) or `window` (the page in a visible browser window). The screen does it;
    the card only asks."""

    def __init__(self, card: Card, way: str, page: bool = False) -> None:
        super().__init__()
        self.card = card
        self.way = way
        self.page = page


class TakeoverCard(Vertical, can_focus=True):
    DEFAULT_CSS = CARD_CSS.format(name="TakeoverCard")
    BINDINGS = [
        Binding("m", "move", "takeover_move", id="takeover.move", tooltip="takeover_move_tip"),
        Binding("o", "operate", "takeover_operate", id="takeover.operate", tooltip="takeover_operate_tip"),
        Binding("w", "window", "takeover_window", id="takeover.window", tooltip="takeover_window_tip"),
        Binding("d", "done", "takeover_done", id="takeover.done", tooltip="takeover_done"),
        Binding("s", "skip", "takeover_skip", id="takeover.skip", tooltip="takeover_skip"),
    ]

    def __init__(self, card: Card, tr: Tr, page: bool = False) -> None:
        super().__init__(classes="card")
        self.card = card
        self.tr = tr
        self.resolved = False
        self.way = ""
        # The run handed over a browser page (login, captcha): operate it from the
        # preview, or open it in a browser window; there is no task to move.
        self.page = page

    def _ways(self) -> tuple[str, ...]:
        return ("takeover-operate", "takeover-window") if self.page else ("takeover-move", "takeover-operate")

    def compose(self) -> ComposeResult:
        title = "takeover_page_title" if self.page else "takeover_title"
        yield Static(plain(self.tr(title, reason=self.card.reason)), classes="card-title")
        yield Static(plain(self.card.text), id="takeover-text")
        with Horizontal():
            if self.page:
                yield Button(Content(self.tr("takeover_operate_button")), id="takeover-operate", compact=True)
                yield Button(Content(self.tr("takeover_window_button")), id="takeover-window", compact=True)
            else:
                yield Button(Content(self.tr("takeover_move_button")), id="takeover-move", compact=True)
                yield Button(Content(self.tr("takeover_operate_button")), id="takeover-operate", compact=True)
            yield Button(Content(self.tr("takeover_done_button")), id="takeover-done", variant="success", compact=True)
            yield Button(Content(self.tr("takeover_skip_button")), id="takeover-skip", compact=True)

    def _choose(self, way: str) -> None:
        if self.resolved or self.way == way:
            return
        if ("takeover-" + way) not in self._ways():
            return  # a key of the other kind of takeover (m on a page, w on the phone)
        self.way = way
        notes = {"move": "takeover_moved", "operate": "takeover_operating", "window": "takeover_window_opening"}
        if self.page and way == "operate":
            notes["operate"] = "takeover_page_operating"
        note = self.tr(notes[way])
        self.query_one("#takeover-text", Static).update(plain(self.card.text + "\n" + note))
        for bid in self._ways():
            self.query_one("#" + bid, Button).disabled = True
        self.post_message(TakeoverChosen(self.card, way, page=self.page))

    def reopen(self) -> None:
        """The chosen way could not be taken: both are offered again."""
        self.way = ""
        self.query_one("#takeover-text", Static).update(plain(self.card.text))
        for bid in self._ways():
            self.query_one("#" + bid, Button).disabled = False

    def _finish(self, done: bool) -> None:
        if self.resolved:
            return
        self.resolved = True
        self.post_message(CardAnswered(self.card, done=done))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Only this kind of takeover's ways are offered (and shown in the footer).
        if action == "window":
            return self.page
        if action == "move":
            return not self.page
        return True

    def action_move(self) -> None:
        self._choose("move")

    def action_operate(self) -> None:
        self._choose("operate")

    def action_window(self) -> None:
        self._choose("window")

    def action_done(self) -> None:
        self._finish(True)

    def action_skip(self) -> None:
        self._finish(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {
            "takeover-move": self.action_move,
            "takeover-operate": self.action_operate,
            "takeover-window": self.action_window,
            "takeover-done": self.action_done,
            "takeover-skip": self.action_skip,
        }[event.button.id or "takeover-skip"]()


def decision_text(answered: CardAnswered, tr: Tr) -> str:
    """The line the chat keeps once a card is answered and gone: what the person decided
    ("Payment approved once." / "Payment refused.", the answer given, the takeover's end)."""
    card = answered.card
    if card.kind == "approval":
        return tr("decision_approved" if answered.allowed else "decision_refused")
    if card.kind == "question":
        return tr("decision_answered", text=answered.text)
    return tr("decision_took_over" if answered.done else "decision_skipped")


def card_widget(card: Card, tr: Tr, *, page: bool = False) -> ApprovalCard | QuestionCard | TakeoverCard:
    if card.kind == "takeover":
        return TakeoverCard(card, tr, page=page)
    kinds: dict[str, Callable[[Card, Tr], ApprovalCard | QuestionCard | TakeoverCard]] = {
        "approval": ApprovalCard,
        "question": QuestionCard,
        "takeover": TakeoverCard,
    }
    return kinds[card.kind](card, tr)
