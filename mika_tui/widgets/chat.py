"""The chat: one TurnBlock per run — what you said, your steers and decisions, the answer
streaming as Markdown, its sources, and the finished run folded into one line. The empty
chat shows an idle panel (ChatIdle): recent conversations, the phone, the model, examples."""

from __future__ import annotations

from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.markdown import MarkdownStream
from textual.widgets.option_list import Option

from mika.run.conversations import ConversationSummary
from mika.terminal_text import for_terminal
from mika_tui.examples import AppsOf, examples_for
from mika_tui.i18n import Tr
from mika_tui.plain import markup, plain, plain_line
from mika_tui.widgets.cards import CardAnswered, decision_text
from mika_tui.widgets.sidebar import when_label


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


class IdleOptions(OptionList):
    """The idle panel's rows: recent conversations and the examples (headings disabled)."""

    BINDINGS = [Binding("escape", "leave", "idle_back", id="idle.back", tooltip="idle_back")]

    class Left(Message):
        """Esc (or Up on the first row): the focus goes back to the input."""

    def action_leave(self) -> None:
        self.post_message(self.Left())

    def action_cursor_up(self) -> None:
        first = next((i for i, o in enumerate(self.options) if not o.disabled), None)
        if self.highlighted is None or self.highlighted == first:
            self.post_message(self.Left())
            return
        super().action_cursor_up()


class ChatIdle(Vertical):
    """What an empty chat shows: the phone, the model, recent conversations and three
    tasks to try (mika_tui/examples.py: fitted to the apps the phone reports). Read from
    the app when it mounts; it goes with the first turn. The rows are a list: Down from
    the empty input reaches it, Enter on a conversation opens it (as the sidebar does),
    Enter on an example puts it in the input to send or edit."""

    DEFAULT_CSS = """
    ChatIdle { height: auto; margin: 1 1; padding: 1 2; border: round $panel-lighten-2; }
    ChatIdle .idle-title { text-style: bold; color: $accent; }
    ChatIdle .idle-line { color: $text; }
    ChatIdle IdleOptions { height: auto; max-height: 14; border: none; padding: 0; margin: 1 0 0 0;
        background: transparent; }
    ChatIdle IdleOptions:focus { border: none; background-tint: $foreground 4%; }
    """

    class OpenConversation(Message):
        def __init__(self, conversation_id: str) -> None:
            super().__init__()
            self.conversation_id = conversation_id

    class UseExample(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self) -> None:
        super().__init__()
        self.examples: list[str] = []
        self.recent: list[ConversationSummary] = []

    def compose(self) -> ComposeResult:
        app = self.app
        tr: Tr = getattr(app, "tr", None) or Tr("en")
        deps = getattr(app, "deps", None)
        device = getattr(deps, "device", None)
        yield Static(plain_line(tr("idle_title")), classes="idle-title")
        has_phone = device is not None and bool(device.serial)
        if device is not None and has_phone:
            name = f"{device.name or device.serial} · {device.transport} · {device.serial}"
        else:
            name = tr("no_device")
        yield Static(plain_line(tr("idle_device", device=name)), classes="idle-line", id="idle-device")
        model = getattr(deps, "model_label", "") or tr("no_model")
        yield Static(plain_line(tr("idle_model", model=model)), classes="idle-line", id="idle-model")
        center = getattr(app, "center", None)
        self.recent = center.conversations.list()[:RECENT_SHOWN] if center is not None else []
        known = getattr(deps, "known_apps", {}) if deps is not None else {}
        packages = known.get(device.serial) if has_phone and device is not None else None
        self.examples = examples_for(has_phone, packages, tr, getattr(deps, "app_names", None))
        yield IdleOptions(*self._options(tr), id="idle-options")

    def on_mount(self) -> None:
        deps = getattr(self.app, "deps", None)
        device = getattr(deps, "device", None)
        apps_of = getattr(deps, "apps_of", None)
        if deps is None or device is None or apps_of is None or not device.serial:
            return
        if device.serial not in deps.known_apps:
            self.run_worker(partial(self._ask_apps, apps_of, device.serial), thread=True, exclusive=True)

    def _ask_apps(self, apps_of: AppsOf, serial: str) -> None:
        """Worker thread: the phone's packages (once per phone), then the examples again."""
        try:
            packages = apps_of(serial)
        except Exception:  # an unreachable phone keeps the examples any phone can do
            return
        self.app.call_from_thread(self._got_apps, serial, packages)

    def _got_apps(self, serial: str, packages: tuple[str, ...]) -> None:
        deps = self.app.deps  # type: ignore[attr-defined]
        deps.known_apps[serial] = packages
        if deps.device.serial != serial or not self.is_mounted:
            return
        tr: Tr = self.app.tr  # type: ignore[attr-defined]
        self.examples = examples_for(True, packages, tr, deps.app_names)
        options = self.query_one(IdleOptions)
        keep = options.highlighted
        options.clear_options()
        options.add_options(self._options(tr))
        if keep is not None and keep < options.option_count:
            options.highlighted = keep

    def _options(self, tr: Tr) -> list[Option]:
        deps = getattr(self.app, "deps", None)
        now = deps.clock() if deps is not None else 0.0
        tz = getattr(deps, "tz", None)
        rows: list[Option] = []
        if self.recent:
            rows.append(Option(plain_line(tr("idle_recent")), disabled=True))
            for s in self.recent:
                when = when_label(s.updated_at, now, tz)
                # The title is the user's words: plain, never markup.
                label = Content.assemble("• ", f"{when} " if when else "", plain_line(s.title or "…"))
                rows.append(Option(label, id=f"conv:{s.id}"))
        rows.append(Option(plain_line(tr("idle_examples")), disabled=True))
        for n, text in enumerate(self.examples):
            rows.append(Option(Content.assemble("• ", plain_line(text)), id=f"ex:{n}"))
        return rows

    def focus_rows(self) -> bool:
        """Focus the list on its first row (False when there is none to choose)."""
        options = self.query_one(IdleOptions)
        first = next((i for i, o in enumerate(options.options) if not o.disabled), None)
        if first is None:
            return False
        options.highlighted = first
        options.focus()
        return True

    @on(OptionList.OptionSelected, "#idle-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        kind, _, value = (event.option.id or "").partition(":")
        if kind == "conv":
            self.post_message(self.OpenConversation(value))
        elif kind == "ex" and value.isdigit() and int(value) < len(self.examples):
            example = self.examples[int(value)]
            # The no-phone rows are directions, not tasks: nothing to send.
            deps = getattr(self.app, "deps", None)
            if deps is not None and deps.device.serial:
                self.post_message(self.UseExample(example))


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
