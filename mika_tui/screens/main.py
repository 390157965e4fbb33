"""The main screen: header, conversations, chat, live phone picture, step timeline, input.

It reads runs only through RunEvents (folded into RunViews) and acts on them only
through the task center (submit, stop) and the run's own answer / confirm / hand_back.
"""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static

from mika.assembly.live_page import LivePage, LivePages
from mika.observe.untrusted import unfence
from mika.record import events as ev
from mika.run.conversations import ConversationError, new_conversation_id
from mika.run.task_center import CenterState, Submitted
from mika.run.ui_text import t as core_text
from mika_tui.bindings import TranslatedBindings
from mika_tui.host import AppHost
from mika_tui.page_takeover import PageTakeover
from mika_tui.plain import plain_line
from mika_tui.run_view import Card, RunView, format_elapsed
from mika_tui.screens.dialogs import ConfirmDialog, PromptDialog, SourceDialog
from mika_tui.widgets.cards import ApprovalCard, CardAnswered, TakeoverCard, TakeoverChosen, card_widget
from mika_tui.widgets.chat import ChatIdle, ChatLog, IdleOptions, TurnBlock
from mika_tui.widgets.preview import PhonePreview
from mika_tui.widgets.prompt import PromptInput
from mika_tui.widgets.sidebar import ConversationList
from mika_tui.widgets.status import StatusBar
from mika_tui.widgets.timeline import Timeline


class RunEventPosted(Message):
    def __init__(self, event: ev.RunEvent) -> None:
        super().__init__()
        self.event = event


class CenterChanged(Message):
    def __init__(self, state: CenterState) -> None:
        super().__init__()
        self.state = state


SLASH = ("/new", "/stop", "/device", "/model", "/usage", "/runs", "/memory", "/plans", "/routes", "/settings", "/help")


class MainScreen(TranslatedBindings, Screen):
    CSS_PATH = "main.tcss"
    # In footer order (idle: new, conversations, devices, models, usage, help, then the
    # app's quit). Devices and usage are priority keys: the input has its own Ctrl+D and
    # Ctrl+U, and the footer promises these work wherever the focus is.
    BINDINGS = [
        Binding("ctrl+n", "new_conversation", "b_new", id="main.new", tooltip="d_new"),
        Binding("ctrl+b", "toggle_sidebar", "b_sidebar", id="main.sidebar", tooltip="d_sidebar"),
        Binding("ctrl+d", "app.open('devices')", "b_devices", id="main.devices", tooltip="d_devices", priority=True),
        Binding("ctrl+l", "app.open('models')", "b_models", id="main.models", tooltip="d_models"),
        Binding("ctrl+u", "app.open('usage')", "b_usage", id="main.usage", tooltip="d_usage", priority=True),
        # `?` opens help only where it is not a character being typed (see action_help).
        Binding("question_mark", "help", "b_help", id="main.help", tooltip="d_help", key_display="?", priority=True),
        Binding("escape", "stop", "b_stop", id="main.stop", tooltip="d_stop"),
        Binding("f2", "rename_conversation", "conv_rename", id="main.rename", tooltip="d_rename", show=False),
        Binding("f3", "pin_conversation", "conv_pin", id="main.pin", tooltip="d_pin", show=False),
        Binding("f8", "delete_conversation", "conv_delete", id="main.delete", tooltip="d_delete", show=False),
        Binding("ctrl+t", "focus_timeline", "b_timeline", id="main.timeline", tooltip="d_timeline", show=False),
        Binding("f6", "zoom_preview", "b_preview_zoom", id="main.preview_zoom", tooltip="d_preview_zoom", show=False),
        Binding("f7", "preview_main", "b_preview_main", id="main.preview_main", tooltip="d_preview_main", show=False),
    ]
    # The footer shows the keys that matter now (footer_binding): idle, running, on a card,
    # in the conversations list.
    IDLE_KEYS = ("main.new", "main.sidebar", "main.devices", "main.models", "main.usage", "main.help", "app.quit")
    RUNNING_KEYS = ("main.stop",)
    SIDEBAR_KEYS = ("sidebar.search", "main.rename", "main.pin", "main.delete", "sidebar.close")

    def __init__(self) -> None:
        super().__init__()
        self.views: dict[str, RunView] = {}
        self.cards: dict[str, Card] = {}
        self.conversation_id = ""
        self.center_state: CenterState | None = None
        # The display each run works on, from its events (-1: not made yet), and the run
        # whose display the preview shows.
        self.run_displays: dict[str, int] = {}
        self.preview_run = ""
        # The browser page: the capability of each step by call id (ToolFinished does not
        # carry it), where each run last acted ("web" | "phone"), and the run whose page
        # the preview shows. Without an assembly (a test's own factory) the screen keeps
        # the runs' live pages itself.
        self.step_places: dict[str, str] = {}
        self.run_places: dict[str, str] = {}
        self.page_run = ""
        self._shown_page: LivePage | None = None
        self.pages = LivePages()
        self._page_takeover: PageTakeover | None = None
        # A takeover window nobody sees (tests on machines without a desktop only).
        self.page_window_headless = False

    @property
    def mika(self) -> AppHost:
        """The app as Mika's screens use it (Textual types `self.app` as a plain App)."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        app = self.mika
        tr = app.tr
        yield StatusBar(id="status")
        if app.deps.device.is_sim:
            yield Static(tr("sim_banner"), id="banner")
        with Horizontal(id="body"):
            yield ConversationList(tr, id="sidebar")
            with Vertical(id="chat-column"):
                yield ChatLog(id="chat")
                yield PromptInput(placeholder=tr("placeholder_idle"), id="prompt")
            with Vertical(id="side-column"):
                yield PhonePreview(
                    app.deps.frames,
                    fps=app.deps.preview_fps,
                    title=tr("preview_title"),
                    waiting=tr("preview_waiting"),
                    display_index=app.deps.device.display,
                    graphics=app.deps.graphics,
                    id="preview",
                )
                yield Timeline(
                    title=tr("timeline_title"),
                    empty=tr("timeline_empty"),
                    wait_label=tr("timeline_wait"),
                    id="timeline",
                )
        yield Footer()

    async def on_mount(self) -> None:
        self.conversation_id = self.mika.deps.conversation_id or new_conversation_id()
        chat = self.query_one(ChatLog)
        await chat.add_notice(self.mika.tr("welcome"))
        if self.mika.deps.model_error:
            await chat.add_notice(self._model_error(), error=True)
        self.set_interval(1.0, self.refresh_status)
        self.set_interval(1.0, self._mend_dark_display)
        self.refresh_status()
        self.query_one("#prompt", Input).focus()
        self._refresh_sidebar()

    def on_resize(self) -> None:
        self.set_class(self.size.width < 110, "-narrow")

    # -- what the header, input and preview say -----------------------------------------

    def current_run(self) -> RunView | None:
        run_id = self.mika.center.running_in(self.conversation_id) if self.mika.center else None
        return self.views.get(run_id) if run_id else None

    def latest_view(self) -> RunView | None:
        runs = [v for v in self.views.values() if v.conversation_id == self.conversation_id]
        return runs[-1] if runs else None

    def refresh_status(self) -> None:
        app, tr = self.mika, self.mika.tr
        view = self.current_run()
        now = app.deps.clock()
        if view is None:
            state, running, needs = tr("state_idle"), False, False
        elif view.needs_you:
            state, running, needs = tr("state_needs_you", elapsed=format_elapsed(view.elapsed(now))), True, True
        else:
            state, running, needs = tr("state_running", elapsed=format_elapsed(view.elapsed(now))), True, False
        d = app.deps.device
        device = (
            tr("device_label", name=d.name or d.serial, transport=d.transport, display=d.display)
            if d.serial
            else tr("no_device")
        )
        model = app.deps.model_label or tr("no_model")
        self.query_one(StatusBar).show(device, model, state, needs_you=needs, running=running)
        prompt = self.query_one("#prompt", Input)
        prompt.placeholder = tr("placeholder_running") if running else tr("placeholder_idle")
        preview = self.query_one(PhonePreview)
        working = (view.activity if view is not None and view.activity else tr("preview_working")) if running else ""
        preview.set_state(
            "needs_you" if needs else ("working" if running else "idle"),
            tr("preview_needs_you") if needs else working[:36],
        )

    def _footer_place(self) -> tuple[str, DOMNode | None]:
        """Where the keys are now: "card" (with the card), "sidebar", "running" or "idle"."""
        focused = self.focused
        chain = list(focused.ancestors_with_self) if focused is not None else []
        card = next((n for n in chain if isinstance(n, (ApprovalCard, TakeoverCard))), None)
        if card is not None:
            return "card", card
        if self.query_one(ConversationList) in chain:
            return "sidebar", None
        if isinstance(focused, IdleOptions):
            return "idle_rows", None
        return ("running" if self.current_run() is not None else "idle"), None

    def footer_binding(self, active: ActiveBinding) -> Binding:
        b, node = active.binding, active.node
        place, card = self._footer_place()
        if place == "card":  # a card's own keys, and Esc to stop the run
            return replace(b, show=node is card or b.id in self.RUNNING_KEYS)
        if place == "sidebar":
            if isinstance(node, OptionList) and b.action == "select":
                return replace(b, description="b_open_conv", show=True)  # Enter opens the row
            return replace(b, show=b.id in self.SIDEBAR_KEYS)
        if place == "idle_rows":
            if isinstance(node, IdleOptions) and b.action == "select":
                return replace(b, description="idle_choose", tooltip="idle_choose", show=True)  # Enter
            return replace(b, show=b.id in ("idle.back", *self.IDLE_KEYS))
        if place == "running":
            if isinstance(node, PromptInput) and b.action == "submit":
                return replace(b, description="b_steer", tooltip="b_steer", show=True)  # Enter steers
            return replace(b, show=b.id in self.RUNNING_KEYS)
        return replace(b, show=b.id in self.IDLE_KEYS)

    def footer_rank(self, binding: Binding) -> int:
        place, _ = self._footer_place()
        if place in ("sidebar", "idle_rows") and binding.action == "select":
            return -1  # Enter (open) first
        if place == "idle_rows" and binding.id == "idle.back":
            return 0
        order = {"sidebar": self.SIDEBAR_KEYS, "running": self.RUNNING_KEYS}.get(place, self.IDLE_KEYS)
        return order.index(binding.id) if binding.id in order else len(order)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            return self.current_run() is not None
        if action in ("rename_conversation", "pin_conversation", "delete_conversation"):
            return self.mika.center is not None and self.mika.center.conversations.exists(self._target_conversation())
        return True

    # -- input ----------------------------------------------------------------------------

    @on(Input.Submitted, "#prompt")
    async def on_prompt(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if not text:
            return
        if text.startswith("/"):
            await self.slash(text)
            return
        await self.send(text)

    async def send(self, text: str) -> None:
        app, chat = self.mika, self.query_one(ChatLog)
        if app.center is None:
            await chat.add_notice(self._model_error(), error=True)
            return
        try:
            sub = app.center.submit(self.conversation_id, text)
        except (ConversationError, OSError) as exc:
            await chat.add_notice(app.tr("error_line", error=str(exc)), error=True)
            return
        if sub.outcome is Submitted.STEERED:
            turn = chat.turn(sub.run_id)
            if turn is not None:
                await turn.add_steer(text)
            return
        view = self.views.setdefault(sub.run_id, RunView(sub.run_id, goal=text, clock=app.deps.clock))
        view.conversation_id = self.conversation_id
        view.started_at = view.started_at or app.deps.clock()
        await chat.mount(TurnBlock(sub.run_id, text, app.tr))
        if sub.outcome is Submitted.QUEUED:
            await chat.add_notice(app.tr("queued", position=sub.position))
        self.refresh_status()
        self._refresh_sidebar()

    def _model_error(self) -> str:
        tr, error = self.mika.tr, self.mika.deps.model_error
        if not error or error == "model_missing":
            return tr("model_missing")
        return tr("error_line", error=error)

    async def slash(self, text: str) -> None:
        cmd = text.split()[0].lower()
        app, chat = self.mika, self.query_one(ChatLog)
        if cmd == "/new":
            await self.action_new_conversation()
        elif cmd == "/stop":
            if not self.action_stop():
                await chat.add_notice(app.tr("nothing_running"))
        elif cmd == "/device":
            app.action_open("devices")
        elif cmd == "/model":
            app.action_open("models")
        elif cmd == "/usage":
            app.action_open("usage")
        elif cmd == "/runs":
            app.action_open("runs")
        elif cmd == "/memory":
            app.action_open("memory")
        elif cmd in ("/plans", "/routes"):
            app.action_open(cmd[1:])
        elif cmd == "/settings":
            app.action_open("settings")
        elif cmd == "/help":
            app.action_open("help")
        else:
            await chat.add_notice(app.tr("unknown_command", cmd=cmd), error=True)

    def action_stop(self) -> bool:
        center = self.mika.center
        if center is None or self.current_run() is None:
            return False
        center.stop(self.conversation_id)
        self.refresh_status()
        return True

    # -- run events -----------------------------------------------------------------------

    async def on_run_event_posted(self, message: RunEventPosted) -> None:
        e = message.event
        app = self.mika
        view = self.views.get(e.run_id)
        if view is None:
            view = self.views[e.run_id] = RunView(e.run_id, clock=app.deps.clock)
            view.conversation_id = e.conversation_id
        card_before = view.card
        view.apply(e)
        await self._follow_display(e)
        await self._follow_page(e)
        if view.card is not None and view.card != card_before:
            self._needs_you(view.card)
        if e.conversation_id != self.conversation_id:
            return
        chat = self.query_one(ChatLog)
        turn = chat.turn(e.run_id)
        if turn is None:
            turn = TurnBlock(e.run_id, view.goal, app.tr)
            await chat.mount(turn)
        if isinstance(e, ev.AnswerDelta):
            await turn.stream(e.text)
        elif isinstance(e, ev.ModelReplied) and e.tool_calls:
            await turn.reset_stream()
        elif isinstance(e, ev.RunOutcome):
            await self._finish(turn, view)
        elif isinstance(e, ev.Notice) and e.text:
            await chat.add_notice(e.text, error=e.level == "error")
        elif isinstance(e, ev.FileShared):
            # The sandbox's share_file: the file's name, size and where it was saved.
            await chat.add_notice(core_text("file_shared", name=e.name, size=e.size, path=e.path))
        elif isinstance(e, ev.ModelFailed) and e.will_retry:
            await chat.add_notice(app.tr("model_retry", error=e.message, seconds=f"{e.retry_in_s:.0f}"))
        elif isinstance(e, ev.MemoryRemembered):
            # What the run remembered from the user's words, each with how to undo or approve it.
            for item in e.items:
                key = "memory_pending" if item.get("status") == "pending" else "memory_remembered"
                await chat.add_notice(core_text(key, **item))
        if isinstance(e, (ev.ToolCalled, ev.ToolFinished, ev.RunOutcome, ev.ModelReplied)):
            self.query_one(Timeline).set_steps(view.steps)
        if view.card != card_before:
            await self._show_card(turn, card_before, view.card)
        self.refresh_status()

    # -- the preview follows the run's own display ---------------------------------------------

    async def _follow_display(self, e: ev.RunEvent) -> None:
        """A run got (or lost) a display of its own: the preview shows its video, and
        back to the screencap picture when the run ends or works on display 0."""
        if isinstance(e, ev.RunOutcome):
            self.run_displays.pop(e.run_id, None)
            if self.preview_run == e.run_id:
                self.preview_run = ""
                self.query_one(PhonePreview).show_agent_display(None, 0, None)
            asm = self.mika.deps.assembly
            if asm is not None:
                import asyncio

                await asyncio.to_thread(asm.run_ended, e.run_id)
            return
        shown: dict = {}
        if isinstance(e, ev.DisplayChosen):
            shown = {"mode": e.mode, "id": e.display_id}
        elif isinstance(e, (ev.RunStarted, ev.ToolFinished)) and e.display:
            shown = e.display
        display = shown.get("id")
        if not isinstance(display, int) or display < 0 or self.run_displays.get(e.run_id) == display:
            return
        self.run_displays[e.run_id] = display
        await self._show_run_display(e.run_id, display)
        self._rehand_takeover(e.run_id)

    # -- the preview follows the run's browser page -------------------------------------------

    def live_page(self, run_id: str) -> LivePage | None:
        """The run's live page (its screencast started), through the assembly when there is one."""
        caps = getattr(self.mika.runs.get(run_id), "capabilities", ())
        asm = self.mika.deps.assembly
        return asm.page_frames(run_id, caps) if asm is not None else self.pages.frames(run_id, caps)

    async def _follow_page(self, e: ev.RunEvent) -> None:
        """A web step runs: the preview shows the run's page; a phone step: the phone's
        picture again; the run's end stops its screencast."""
        if isinstance(e, ev.ToolCalled):
            if e.capability not in ("web", "phone"):
                return
            self.step_places[e.call_id] = e.capability
            self.run_places[e.run_id] = e.capability
            if e.capability == "web":
                await self._show_page(e.run_id, ask_state=False)
            elif self.page_run == e.run_id:
                self._show_phone()
        elif isinstance(e, ev.ToolFinished):
            # The event names its capability (recorded runs of before: the call's, kept above).
            place = self.step_places.pop(e.call_id, "") or getattr(e, "capability", "")
            if place == "web" and self.page_run == e.run_id:
                # The title line follows the page; asked only after a step that worked, so
                # the question never launches the browser or opens a tab of its own.
                await self._show_page(e.run_id, ask_state=e.ok)
        elif isinstance(e, ev.RunOutcome):
            self.run_places.pop(e.run_id, None)
            if self.page_run == e.run_id:
                self._show_phone()
            asm = self.mika.deps.assembly
            if asm is not None:
                asm.page_ended(e.run_id)
            self.pages.ended(e.run_id)

    async def _show_page(self, run_id: str, *, ask_state: bool = True) -> None:
        page = self.live_page(run_id)
        if page is None:
            return
        if ask_state:
            await page.refresh_state()
        self.show_live_page(run_id, page)

    def show_live_page(self, run_id: str, page: LivePage) -> None:
        """The preview shows `page` (the run's browser), its title line the page's title and host."""
        from mika_tui.frames import PageFrameSource

        preview = self.query_one(PhonePreview)
        if self._shown_page is not None and self._shown_page is not page:
            self._shown_page.stop()  # another run's page: nobody watches it now
        current = preview.page
        if isinstance(current, PageFrameSource) and current.page is page:
            preview.show_page(current, page.viewport)
        else:
            preview.show_page(PageFrameSource(page), page.viewport)
        self.page_run, self._shown_page = run_id, page
        self._preview_title()

    def _show_phone(self) -> None:
        if self._shown_page is not None:
            self._shown_page.stop()  # nobody watches the page: its screencast stops until the next web step
        self.page_run, self._shown_page = "", None
        self.query_one(PhonePreview).show_phone()
        self._preview_title()

    def _preview_title(self) -> None:
        """The title line: the page's title and host while the page is shown, else the phone's."""
        preview, tr = self.query_one(PhonePreview), self.mika.tr
        if preview.show_main:
            preview.border_title = tr("preview_main_title")
        elif preview.showing_page:
            label = self._shown_page.label if self._shown_page is not None else ""
            # The title is the page's own text: shown as text, never parsed as markup.
            preview.border_title = plain_line(tr("preview_page_title", page=label or tr("preview_page")))
        else:
            preview.border_title = tr("preview_title")

    async def _mend_dark_display(self) -> None:
        """While the user operates a run's display from the preview the run waits and
        nothing checks that display: if the phone powered it off (black pictures, then
        `dumpsys display` OFF), it is made again now; `_follow_display` moves the hands."""
        takeover = getattr(self, "_takeover", None)
        asm = self.mika.deps.assembly
        if takeover is None or not takeover.run_id or asm is None or self.query_one(PhonePreview).control is None:
            return
        try:
            await asm.mend_display(takeover.run_id)
        except Exception as exc:  # one sentence; the takeover goes on
            self.notify(self.mika.tr("takeover_failed", error=str(exc)), severity="error")

    def _rehand_takeover(self, run_id: str) -> None:
        """The run's display was made again while the user operated it: the preview's
        hands go to the new display (its control socket), not the one that went away."""
        preview = self.query_one(PhonePreview)
        takeover = getattr(self, "_takeover", None)
        view = self.views.get(run_id)
        if preview.control is None or takeover is None or takeover.run_id != run_id or view is None:
            return
        if view.card is None or view.card.kind != "takeover":
            return
        try:
            preview.take_control(self.terminal_takeover(view.card).input())
        except Exception as exc:
            self.notify(self.mika.tr("takeover_failed", error=str(exc)), severity="error")

    async def _show_run_display(self, run_id: str, display: int) -> None:
        import asyncio

        from mika_tui.frames import VideoFrameSource

        preview = self.query_one(PhonePreview)
        asm = self.mika.deps.assembly
        video = await asyncio.to_thread(asm.display_video, run_id) if asm is not None and display else None
        if video is not None and video.display == display:
            self.preview_run = run_id
            preview.show_agent_display(VideoFrameSource(video.decoder, display), display, video.size)
        elif display == 0 or self.preview_run in ("", run_id):
            # The run fell back to the main screen (or has no video): its screencap picture.
            self.preview_run = run_id if display else ""
            preview.show_agent_display(None, display, None)

    async def _finish(self, turn: TurnBlock, view: RunView) -> None:
        tr = self.mika.tr
        failed = view.status not in ("answered", "stopped")
        answer = view.answer or (tr("outcome_stopped") if view.status == "stopped" else "")
        if view.status == "stopped" and view.answer and not view.answer.startswith(tr("outcome_stopped")):
            answer = f"**{tr('outcome_stopped')}** {view.answer}"  # the stop summary, marked as such
        if failed:
            key = "outcome_not_done" if view.status == "not_done" else "outcome_failed"
            answer = tr(key, reason=view.answer or view.reason or view.status)
        await turn.finish(answer, failed=failed)
        titles = [source_title(s) for s in view.sources]
        await turn.add_sources(titles)
        await turn.add_summary(view.step_count, format_elapsed(view.elapsed(self.mika.deps.clock())))
        self._refresh_sidebar()

    async def _show_card(self, turn: TurnBlock, before: Card | None, card: Card | None) -> None:
        if before is not None:
            for widget in list(turn.query(".card")):
                await widget.remove()
            if before.kind == "takeover":
                self.query_one(PhonePreview).take_control(None)  # the run moved on: hands off
        if card is None:
            return
        run_id = self._run_of_card(card)
        # A takeover asked while the run was on a web page is a takeover of the page.
        on_page = card.kind == "takeover" and self.run_places.get(run_id) == "web"
        widget = card_widget(card, self.mika.tr, page=on_page)
        await turn.mount(widget)
        self.query_one(ChatLog).scroll_end(animate=False)
        if isinstance(widget, (ApprovalCard, TakeoverCard)):
            widget.focus()  # the card's keys must reach the card, not the input

    def _needs_you(self, card: Card) -> None:
        # Only when the terminal is in the background, and in our own words (mika_tui/notify.py).
        self.mika.attention.needs_you(card.kind, focused=self.app.app_focus)

    async def on_card_answered(self, message: CardAnswered) -> None:
        card = message.card
        run = self.mika.runs.get(self._run_of_card(card))
        if run is None:
            return
        if card.kind == "approval":
            run.confirm(card.question_id, message.allowed)
        elif card.kind == "question":
            run.answer(card.question_id, message.text)
        else:
            await self._end_takeover(card)
            run.hand_back(card.question_id, message.done)
        self.query_one("#prompt", Input).focus()

    # -- takeover from the terminal (mika_tui/takeover.py does the phone side) -------------

    def terminal_takeover(self, card: Card | None = None):
        """The takeover of the card's run, on that run's display (from its events, not
        the preview's); its input goes through the assembly (control socket, else input -d)."""
        from mika.cap.phone.display.input import AdbDisplayInput
        from mika_tui.takeover import TerminalTakeover

        serial = self.mika.deps.device.serial
        asm = self.mika.deps.assembly
        # Without an assembly (a test's own factory) nothing knows the run's display but
        # the preview: the takeover is the preview's.
        run_id = self._run_of_card(card) if card is not None and asm is not None else ""
        display = max(self.run_displays.get(run_id, self.query_one(PhonePreview).display_index), 0)
        current = getattr(self, "_takeover", None)
        if current is None or (current.serial, current.display, current.run_id) != (serial, display, run_id):
            if run_id and asm is not None:

                def make_input(s: str, d: int):
                    return asm.display_input(run_id) or AdbDisplayInput(s, d)

                self._takeover = TerminalTakeover(serial, display, make_input=make_input, run_id=run_id)
            else:
                self._takeover = TerminalTakeover(serial, display)
        return self._takeover

    async def on_takeover_chosen(self, message: TakeoverChosen) -> None:
        import asyncio

        chat, tr = self.query_one(ChatLog), self.mika.tr
        if message.page:
            await self._take_page(message)
            return
        takeover = self.terminal_takeover(message.card)
        if not takeover.serial:
            await chat.add_notice(tr("takeover_failed", error=tr("no_device")), error=True)
            return
        preview = self.query_one(PhonePreview)
        if message.way == "move" and takeover.display == 0:
            await chat.add_notice(tr("takeover_on_main"))  # the run works on the user's screen already
            self._reopen_takeover(message.card)
            return
        try:
            if message.way == "move":
                await asyncio.to_thread(takeover.move_to_main, message.card.question_id)
            else:
                preview.take_control(takeover.input())
        except Exception as exc:  # DisplayInputError, adb faults: one sentence, the card stays
            await chat.add_notice(tr("takeover_failed", error=str(exc)), error=True)
            self._reopen_takeover(message.card)
            return
        # The user has the app in hand now: the run's end keeps it (on the main screen)
        # instead of closing it with the run's display, and its sound comes back.
        asm = self.mika.deps.assembly
        if asm is not None and takeover.run_id:
            await asm.display_taken(takeover.run_id)

    async def _take_page(self, message: TakeoverChosen) -> None:
        """A takeover of a page: the preview's clicks and keys go to the page, or the page
        opens in a visible browser window on the run's profile."""
        chat, tr = self.query_one(ChatLog), self.mika.tr
        run_id = self._run_of_card(message.card)
        page = self.live_page(run_id)
        if page is None:
            await chat.add_notice(tr("takeover_failed", error=tr("page_none")), error=True)
            self._reopen_takeover(message.card)
            return
        caps = getattr(self.mika.runs.get(run_id), "capabilities", ())
        takeover = self._page_takeover = PageTakeover(
            page, caps, question_id=message.card.question_id, headless_window=self.page_window_headless
        )
        preview = self.query_one(PhonePreview)
        try:
            if message.way == "window":
                await takeover.open_window()
                await chat.add_notice(tr("takeover_window_open", url=takeover.window_url))
            else:
                await self._show_page(run_id)
                preview.take_control(takeover.input())
        except Exception as exc:  # WebError and browser faults: one sentence, the card stays
            self._page_takeover = None
            await chat.add_notice(tr("takeover_failed", error=page_error(exc, tr)), error=True)
            self._reopen_takeover(message.card)

    def _reopen_takeover(self, card: Card) -> None:
        for widget in self.query(TakeoverCard):
            if widget.card.question_id == card.question_id:
                widget.reopen()

    async def _end_takeover(self, card: Card) -> None:
        import asyncio

        preview = self.query_one(PhonePreview)
        preview.take_control(None)
        page = self._page_takeover
        if page is not None and page.question_id == card.question_id:
            self._page_takeover = None
            try:
                await page.finish()
            except Exception as exc:  # the run goes on; the user is told what did not come back
                await self.query_one(ChatLog).add_notice(
                    self.mika.tr("takeover_failed", error=page_error(exc, self.mika.tr)), error=True
                )
            return
        takeover = getattr(self, "_takeover", None)
        if takeover is None:
            return
        try:
            await asyncio.to_thread(takeover.finish, card.question_id)
        except Exception as exc:
            await self.query_one(ChatLog).add_notice(self.mika.tr("takeover_failed", error=str(exc)), error=True)

    def on_phone_preview_input_failed(self, message: PhonePreview.InputFailed) -> None:
        self.notify(self.mika.tr("takeover_failed", error=message.error), severity="error")

    def action_zoom_preview(self) -> None:
        if self.maximized is None:
            self.maximize(self.query_one(PhonePreview), container=False)
        else:
            self.minimize()

    def action_preview_main(self) -> None:
        self.query_one(PhonePreview).toggle_main()
        self._preview_title()

    def _run_of_card(self, card: Card) -> str:
        return next(
            (rid for rid, v in self.views.items() if v.card is not None and v.card.question_id == card.question_id), ""
        )

    # -- center state / conversations -------------------------------------------------------

    def on_center_changed(self, message: CenterChanged) -> None:
        self.center_state = message.state
        self.refresh_status()
        self.refresh_bindings()
        self._refresh_sidebar()

    def _refresh_sidebar(self) -> None:
        center = self.mika.center
        if center is None:
            return
        running = {r.conversation_id for r in center.state().running}
        self.query_one(ConversationList).show(
            center.conversations.list(),
            running,
            self.conversation_id,
            now=self.mika.deps.clock(),
            tz=self.mika.deps.tz,
        )

    def action_toggle_sidebar(self) -> None:
        sidebar = self.query_one(ConversationList)
        if sidebar.has_class("-open"):
            self._close_sidebar()
            return
        sidebar.add_class("-open")
        self._refresh_sidebar()
        # Opened by keyboard, it is used by keyboard: the list takes focus with a row lit.
        sidebar.focus_list()

    def _close_sidebar(self) -> None:
        self.query_one(ConversationList).remove_class("-open")
        self.query_one("#prompt", Input).focus()

    def on_conversation_list_closed(self, message: ConversationList.Closed) -> None:
        self._close_sidebar()

    async def action_new_conversation(self) -> None:
        self.conversation_id = new_conversation_id()
        await self._reload_chat()

    def _target_conversation(self) -> str:
        sidebar = self.query_one(ConversationList)
        if sidebar.has_class("-open") and sidebar.highlighted_id:
            return sidebar.highlighted_id
        return self.conversation_id

    # -- the idle chat's rows ------------------------------------------------------------

    def on_key(self, event) -> None:
        # Down from the empty input reaches the idle chat's rows (recent, examples).
        prompt = self.query_one("#prompt", Input)
        if event.key == "down" and prompt.has_focus and not prompt.value:
            idle = self.query(ChatIdle)
            if idle and idle.first().focus_rows():
                event.stop()
                event.prevent_default()

    def on_idle_options_left(self, message: IdleOptions.Left) -> None:
        self.query_one("#prompt", Input).focus()

    async def on_chat_idle_open_conversation(self, message: ChatIdle.OpenConversation) -> None:
        await self.on_conversation_list_chosen(ConversationList.Chosen(message.conversation_id))

    def on_chat_idle_use_example(self, message: ChatIdle.UseExample) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.value = message.text
        prompt.cursor_position = len(message.text)
        prompt.focus()  # Enter sends it; it can be edited first

    async def on_conversation_list_chosen(self, message: ConversationList.Chosen) -> None:
        self.conversation_id = message.conversation_id
        await self._reload_chat()
        self.query_one("#prompt", Input).focus()  # opened to go on with it

    async def _reload_chat(self) -> None:
        chat = self.query_one(ChatLog)
        await chat.remove_children()
        center = self.mika.center
        if center is not None and center.conversations.exists(self.conversation_id):
            conv = center.conversations.get(self.conversation_id)
            for t in conv.turns:
                block = TurnBlock(t.run_id, t.user, self.mika.tr)
                await chat.mount(block)
                for steer in t.steers:
                    await block.add_steer(steer)
                await block.finish(
                    t.answer or t.outcome, failed=t.outcome not in ("answered", "stopped", "running", "queued")
                )
        else:
            await chat.add_notice(self.mika.tr("welcome"))
        view = self.latest_view()
        self.query_one(Timeline).set_steps(view.steps if view else [])
        self.refresh_status()
        self._refresh_sidebar()
        self.refresh_bindings()

    def action_rename_conversation(self) -> None:
        cid = self._target_conversation()
        center = self.mika.center
        title = center.conversations.get(cid).display_title if center else ""

        def done(name: str | None) -> None:
            if name and center is not None:
                center.conversations.rename(cid, name)
                self._refresh_sidebar()

        self.app.push_screen(PromptDialog(self.mika.tr("conv_rename_prompt"), title), done)

    def action_pin_conversation(self) -> None:
        center = self.mika.center
        cid = self._target_conversation()
        if center is not None:
            conv = center.conversations.get(cid)
            center.conversations.pin(cid, not conv.pinned_at)
            self._refresh_sidebar()

    def action_delete_conversation(self) -> None:
        center = self.mika.center
        if center is None:
            return
        cid = self._target_conversation()
        conv = center.conversations.get(cid)
        text = self.mika.tr("conv_delete_confirm", title=conv.display_title, turns=len(conv.turns))

        async def done(yes: bool | None) -> None:
            if yes:
                from mika.trigger.store import TriggerStore

                # Its schedules first, so none starts a task in a conversation being deleted.
                schedules = TriggerStore(center.conversations.state_dir)
                await center.delete_conversation(cid, remove_schedules=schedules.delete_conversation)
                if cid == self.conversation_id:
                    self.conversation_id = new_conversation_id()
                await self._reload_chat()

        self.app.push_screen(ConfirmDialog(text, self.mika.tr), done)

    def action_help(self) -> None:
        # A `?` typed into a task (or a search) is a character, not a request for help.
        focused = self.focused
        if isinstance(focused, Input) and (focused.id != "prompt" or focused.value):
            raise SkipAction()
        self.mika.action_open("help")

    def action_focus_timeline(self) -> None:
        self.query_one(Timeline).focus()

    # -- sources and past runs ----------------------------------------------------------------

    def action_open_source(self, run_id: str, index: int) -> None:
        view = self.views.get(run_id)
        if view is None or not 0 <= index < len(view.sources):
            return
        source = view.sources[index]
        frame = self.mika.frame_bytes(run_id, str(source.get("frame") or ""))
        title = self.mika.tr("source_title", n=index + 1, title=source_title(source))
        # The fence tags are for the model; a person reads the content (shown as text by the dialog).
        text = unfence(str(source.get("text", ""))).strip()
        self.app.push_screen(SourceDialog(title, text, frame))

    def action_view_run(self, run_id: str) -> None:
        self.mika.open_run(run_id)


def page_error(exc: Exception, tr) -> str:
    """A browser fault as one sentence in the user's language where we know its kind."""
    code = getattr(exc, "code", "")
    key = {"no_display": "page_window_no_display"}.get(code)
    return tr(key) if key else str(exc)


def source_title(source: dict) -> str:
    """What a person recognises a source by: its title and where it was seen."""
    title = str(source.get("title") or source.get("source") or source.get("id") or "?")
    place = source.get("place") or {}
    where = place.get("label") or place.get("id") if isinstance(place, dict) else ""
    return f"{title} · {where}" if where else title
