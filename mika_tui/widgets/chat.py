"""The chat: one TurnBlock per run — what you said, your steers and decisions, the answer
streaming as Markdown, its sources, and the finished run folded into one line. The empty
chat shows an idle panel (ChatIdle): recent conversations, the phone, the model, examples."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from mika.terminal_text import for_terminal
from mika_tui.i18n import Tr
from mika_tui.plain import markup, plain, plain_line
from mika_tui.widgets.cards import CardAnswered, decision_text


class TurnBlock(Vertical):
    DEFAULT_CSS = """
    TurnBlock { height: auto; margin: 0 0 1 0; }
    TurnBlock .user-row { height: auto; background: $boost; padding: 0 1; }
    TurnBlock .speaker { width: auto; color: $text; text-style: bold; margin: 0 2 0 0; }
    TurnBlock .user-text { width: 1fr; color: $text; }
    TurnBlock .steer { color: $text-muted; padding: 0 1; }
    TurnBlock .decision { color: $text-muted; padding: 0 1; text-style: bold; }
    TurnBlock Markdown { margin: 0; padding: 0 1; background: transparent; }
    TurnBlock .sources { color: $text-muted; padding: 0 1; }
    TurnBlock .summary { color: $text-muted; padding: 0 1; text-style: italic; }
    TurnBlock .summary:hover { color: $accent; }
    TurnBlock .failed { color: $error; padding: 0 1; }
    """

    class ViewRun(Message):
        def __init__(self, run_id: str) -> None:
            super().__init__()
            self.run_id = run_id

    class OpenSource(Message):
        def __init__(self, run_id: str, index: int) -> None:
            super().__init__()
            self.run_id = run_id
            self.index = index

    def on_mount(self) -> None:
        if isinstance(self.parent, ChatLog):
            self.parent.refresh_idle()

    def __init__(self, run_id: str, user: str, tr: Tr) -> None:
        super().__init__(id=f"turn-{run_id}")
        self.run_id = run_id
        self.user = user
        self.tr = tr
        self._stream: MarkdownStream | None = None
        self._text = ""

    def compose(self) -> ComposeResult:
        # The speaker and the words in two columns: a long message wraps under itself, and
        # "You" never runs into its first word, whatever the width or the language.
        with Horizontal(classes="user-row"):
            yield Static(plain_line(self.tr("you")), classes="speaker")
            yield Static(plain(self.user), classes="user user-text")
        yield Markdown("", id="answer")

    async def on_card_answered(self, message: CardAnswered) -> None:
        # Not stopped: the screen still turns the answer into confirm / answer / hand_back.
        # The card goes once the run moves on; the decision stays, above the answer.
        await self.mount(Static(plain(decision_text(message, self.tr)), classes="decision"), before=self.markdown)

    @property
    def markdown(self) -> Markdown:
        return self.query_one("#answer", Markdown)

    async def add_steer(self, text: str) -> None:
        await self.mount(Static(plain(self.tr("steer_sent", text=text)), classes="steer"), before=self.markdown)

    async def stream(self, delta: str) -> None:
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        delta = for_terminal(delta)
        self._text += delta
        await self._stream.write(delta)

    async def reset_stream(self) -> None:
        """Text before a tool call was commentary: the answer starts again."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self._text = ""
        await self.markdown.update("")

    async def finish(self, answer: str, *, failed: bool = False) -> None:
        answer = for_terminal(answer)
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if failed:
            await self.markdown.update("")
            await self.mount(Static(plain(answer), classes="failed"), after=self.markdown)
        elif answer and answer != self._text:
            await self.markdown.update(answer)

    async def add_sources(self, titles: list[str]) -> None:
        if titles:
            # Mika's words and click actions around titles that came from screens: the titles
            # go in as $variables, so they stay text whatever brackets they hold.
            head, _, tail = self.tr("sources", titles="\0").partition("\0")
            links = " · ".join(
                f"[@click=screen.open_source({self.run_id!r},{i})]\\[{i + 1}] $t{i}[/]" for i in range(len(titles))
            )
            values = {f"t{i}": t for i, t in enumerate(titles)}
            line = markup("$head" + links + "$tail", head=head, tail=tail, **values)
            await self.mount(Static(line, classes="sources"))

    async def add_summary(self, steps: int, elapsed: str) -> None:
        line = self.tr("run_summary", steps=steps, elapsed=elapsed, s="" if steps == 1 else "s")
        await self.mount(
            Static(markup(f"[@click=screen.view_run({self.run_id!r})]$line[/]", line=line), classes="summary")
        )


RECENT_SHOWN = 3


class ChatIdle(Vertical):
    """What an empty chat shows: the phone, the model, recent conversations and three
    tasks to try. Read from the app when it mounts; it goes with the first turn."""

    DEFAULT_CSS = """
    ChatIdle { height: auto; margin: 1 1; padding: 1 2; border: round $panel-lighten-2; }
    ChatIdle .idle-title { text-style: bold; color: $accent; }
    ChatIdle .idle-line { color: $text; }
    ChatIdle .idle-head { color: $text-muted; margin: 1 0 0 0; }
    ChatIdle .idle-item { color: $text-muted; padding: 0 0 0 2; }
    """

    def compose(self) -> ComposeResult:
        app = self.app
        tr: Tr = getattr(app, "tr", None) or Tr("en")
        deps = getattr(app, "deps", None)
        device = getattr(deps, "device", None)
        yield Static(plain_line(tr("idle_title")), classes="idle-title")
        if device is not None and device.serial:
            name = f"{device.name or device.serial} · {device.transport} · {device.serial}"
        else:
            name = tr("no_device")
        yield Static(plain_line(tr("idle_device", device=name)), classes="idle-line", id="idle-device")
        model = getattr(deps, "model_label", "") or tr("no_model")
        yield Static(plain_line(tr("idle_model", model=model)), classes="idle-line", id="idle-model")
        center = getattr(app, "center", None)
        recent = center.conversations.list()[:RECENT_SHOWN] if center is not None else []
        if recent:
            yield Static(plain_line(tr("idle_recent")), classes="idle-head")
            for summary in recent:
                yield Static(plain_line(f"• {summary.title or '…'}"), classes="idle-item recent")
        yield Static(plain_line(tr("idle_examples")), classes="idle-head")
        for n in (1, 2, 3):
            yield Static(plain_line(f"• {tr(f'idle_example_{n}')}"), classes="idle-item example")


class ChatLog(VerticalScroll):
    DEFAULT_CSS = """
    ChatLog { height: 1fr; padding: 0 1; }
    ChatLog .notice { color: $text-muted; padding: 0 1; }
    ChatLog .error { color: $error; padding: 0 1; }
    """

    def on_mount(self) -> None:
        self.anchor()
        self.refresh_idle()

    def refresh_idle(self) -> None:
        """The idle panel while the chat holds no turn; gone once one is there."""
        has_turn = bool(self.query(TurnBlock))
        idle = self.query(ChatIdle)
        if has_turn:
            idle.remove()
        elif not idle:
            self.mount(ChatIdle())

    def turn(self, run_id: str) -> TurnBlock | None:
        found = self.query(f"#turn-{run_id}")
        return found.first(TurnBlock) if found else None

    async def add_notice(self, text: str, *, error: bool = False) -> None:
        await self.mount(Static(plain(text), classes="error" if error else "notice"))
        # A reloaded, empty conversation starts with a notice: the idle panel comes back.
        self.refresh_idle()
