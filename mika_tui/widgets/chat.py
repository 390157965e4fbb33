"""The chat: one TurnBlock per run — what you said, your steers, the answer streaming as
Markdown, its sources, and the finished run folded into one line."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from mika.terminal_text import for_terminal
from mika_tui.i18n import Tr
from mika_tui.plain import markup, plain


class TurnBlock(Vertical):
    DEFAULT_CSS = """
    TurnBlock { height: auto; margin: 0 0 1 0; }
    TurnBlock .user { color: $text; background: $boost; padding: 0 1; }
    TurnBlock .steer { color: $text-muted; padding: 0 1; }
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

    def __init__(self, run_id: str, user: str, tr: Tr) -> None:
        super().__init__(id=f"turn-{run_id}")
        self.run_id = run_id
        self.user = user
        self.tr = tr
        self._stream: MarkdownStream | None = None
        self._text = ""

    def compose(self) -> ComposeResult:
        yield Static(markup("[b]$you[/b]  $text", you=self.tr("you"), text=self.user), classes="user")
        yield Markdown("", id="answer")

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


class ChatLog(VerticalScroll):
    DEFAULT_CSS = """
    ChatLog { height: 1fr; padding: 0 1; }
    ChatLog .notice { color: $text-muted; padding: 0 1; }
    ChatLog .error { color: $error; padding: 0 1; }
    """

    def on_mount(self) -> None:
        self.anchor()

    def turn(self, run_id: str) -> TurnBlock | None:
        found = self.query(f"#turn-{run_id}")
        return found.first(TurnBlock) if found else None

    async def add_notice(self, text: str, *, error: bool = False) -> None:
        await self.mount(Static(plain(text), classes="error" if error else "notice"))
