"""The terminal app: `MikaApp` over the task center, and `run_app` that the CLI opens.

The app owns one TaskCenter on Textual's event loop. It wraps the run factory so it can
reach a run to answer / confirm / hand back; everything it shows comes from RunEvents.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from mika.record.events import RunEvent
from mika.run.contracts import TaskRunLike
from mika.run.task_center import CenterState, TaskCenter
from mika.runtypes.spec import RunSpec
from mika.terminal_text import for_terminal
from mika_tui.commands import MikaCommands
from mika_tui.deps import AppDeps
from mika_tui.global_keys import GLOBAL_BINDINGS
from mika_tui.host import AppHost
from mika_tui.i18n import Tr
from mika_tui.notify import Attention
from mika_tui.theme import MIKA_THEME, TEST_THEME

QUIT_WINDOW_S = 2.0


class MikaApp(App):
    TITLE = "Mika"
    COMMANDS = App.COMMANDS | {MikaCommands}
    BINDINGS = list(GLOBAL_BINDINGS)

    def __init__(self, deps: AppDeps, *, theme: str = "mika", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.deps = deps
        self.tr = Tr(deps.settings.ui_language)
        self.runs: dict[str, TaskRunLike] = {}
        self.center: TaskCenter | None = None
        self._last_ctrl_c = 0.0
        self.register_theme(MIKA_THEME)
        self.register_theme(TEST_THEME)
        self.theme = theme
        # Bell and desktop notification when a run needs the user while the terminal is in
        # the background (mika_tui/notify.py).
        self.attention = Attention(deps.settings.notify, self.tr, self.write_terminal)

    def write_terminal(self, data: str) -> None:
        """Raw bytes to the terminal (the bell, a notification escape); nothing before start."""
        if self._driver is not None:
            self._driver.write(data)

    def _make_run(self, spec: RunSpec) -> TaskRunLike:
        assert self.deps.run_factory is not None
        run = self.deps.run_factory(spec)
        self.runs[spec.id] = run
        return run

    async def on_mount(self) -> None:
        from mika_tui.screens.main import MainScreen

        if self.deps.settings.keymap:
            self.set_keymap(self.deps.settings.keymap)
        self._make_center()
        self.main_screen = MainScreen()
        await self.push_screen(self.main_screen)
        self._connect_center()

    def _make_center(self) -> None:
        if self.deps.run_factory is None:
            return
        from mika.run.outbox import CallbackChannel, Outbox
        from mika.run.recovery import recover_at_start

        # What a closed or killed Mika left unfinished is marked now and told once,
        # in the background, through the same delivery ledger the answers go through.
        recover_at_start(self.deps.state_dir)
        self._channel = CallbackChannel(self._delivered, name="transcript")
        outbox = Outbox(self.deps.state_dir, [self._channel])
        if self.deps.assembly is not None:  # the real app: the assembly's center
            self.center = self.deps.assembly.task_center(outbox=outbox, factory=self._make_run)
        else:
            from mika.run.conversations import ConversationStore

            # The app's one clock dates the conversations too (the sidebar shows when each
            # changed, against that clock).
            self.center = TaskCenter(
                self._make_run,
                state_dir=self.deps.state_dir,
                outbox=outbox,
                limit=self.deps.settings.max_parallel,
                conversations=ConversationStore(self.deps.state_dir, clock=self.deps.clock),
            )

    def _connect_center(self) -> None:
        from mika_tui.screens.main import CenterChanged, RunEventPosted

        if self.center is None:
            return
        screen = self.main_screen

        def on_event(e: RunEvent) -> None:
            screen.post_message(RunEventPosted(e))

        def on_state(s: CenterState) -> None:
            screen.post_message(CenterChanged(s))

        self.center.subscribe(on_event)
        self.center.watch(on_state)
        self.run_worker(self._settle(), group="recovery", exit_on_error=False)

    def models_changed(self) -> None:
        """The Models screen saved a provider or a role (tmodels): an app that opened
        without a model gets its TaskCenter now, and the status line names the new model,
        with no restart. A running center keeps going: its factory reads deps.run_factory
        at each new run."""
        if self.center is None and self.deps.run_factory is not None:
            self._make_center()
            self._connect_center()
        self.main_screen.refresh_status()

    async def _settle(self) -> None:
        from mika.cap.phone.restore import phone_ledger
        from mika.run.recovery import settle

        await settle(
            self.deps.state_dir,
            self._channel,
            borrowed=phone_ledger(self.deps.state_dir),
            lang=self.deps.settings.ui_language,
        )

    def _delivered(self, delivery) -> None:
        """Answers of this session's runs are already in the transcript (from their events);
        what recovery tells about earlier sessions shows as a notice."""
        if delivery.recovered or delivery.kind != "answer" or delivery.run_id not in self.runs:
            self.notify(for_terminal(delivery.display_text), timeout=12, markup=False)

    async def on_unmount(self) -> None:
        if self.center is not None:
            await self.center.aclose(wait_s=3.0)

    # -- faults ---------------------------------------------------------------------------

    def _fatal_error(self) -> None:
        # Textual's own handler prints a full traceback on exit; a person gets one line
        # and the details go to crash.log (the CLI does the same for headless runs).
        import sys

        from rich.text import Text

        from mika.config.secrets import scrub
        from mika.crash_log import write_crash_log

        exc = sys.exc_info()[1] or self._exception
        where = write_crash_log(self.deps.state_dir, exc, who="mika terminal app")
        self.bell()
        self._exit_renderables.append(
            Text(scrub(f"mika: internal error: {type(exc).__name__}: {exc} (details: {where})"))
        )
        self._close_messages_no_wait()

    # -- actions --------------------------------------------------------------------------

    def action_quit_request(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            self.exit(0)
            return
        self._last_ctrl_c = now
        self.notify(self.tr("quit_again"), timeout=QUIT_WINDOW_S)

    def action_open(self, name: str) -> None:
        # Imported on first use, not with the app: the secondary screens together take
        # about 0.4 s to import, which would delay the first picture.
        from mika_tui.screens import devices, memory, models, plans, routes, runs, settings, usage
        from mika_tui.screens import help as help_screen

        factories = {
            "devices": devices.DevicesScreen,
            "models": models.ModelsScreen,
            "usage": usage.UsageScreen,
            "runs": runs.RunsScreen,
            "memory": memory.MemoryScreen,
            "plans": plans.PlansScreen,
            "routes": routes.RoutesScreen,
            "settings": settings.SettingsScreen,
            "help": help_screen.HelpScreen,
        }
        if type(self.screen).__name__ == factories[name].__name__:
            return
        if self.screen is not self.main_screen:
            self.pop_screen()
        self.push_screen(factories[name]())

    def action_back(self) -> None:  # type: ignore[override]  # Textual's is a coroutine; ours pops at once, callable from sync code and tests
        if self.screen is not self.main_screen and len(self.screen_stack) > 1:
            self.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return len(self.screen_stack) > 2
        return True

    def open_run(self, run_id: str) -> None:
        from mika_tui.screens.runs import RunViewerScreen

        self.push_screen(RunViewerScreen(run_id))

    def frame_bytes(self, run_id: str, name: str) -> bytes | None:
        """A frame a run recorded, by file name, or None."""
        if not name:
            return None
        from mika.record.recorder import find_run

        run_dir = find_run(self.deps.state_dir, run_id)
        if run_dir is None:
            return None
        path = run_dir / "frames" / Path(name).name
        try:
            return path.read_bytes()
        except OSError:
            return None


if TYPE_CHECKING:

    def _hosts_the_screens(app: MikaApp) -> AppHost:
        """Never called: mypy checks here that MikaApp still offers all the screens use."""
        return app


def run_app(*, settings: Any, device: str | None = None, model: str | None = None, graphics: str | None = None) -> int:
    """Open the app (the CLI's `mika` with no arguments). Returns the exit code."""
    from mika_tui.launch import build_deps

    deps, cleanup = build_deps(settings, device=device, model=model, graphics=graphics)
    try:
        app = MikaApp(deps)
        app.run()
        return int(app.return_code or 0)
    finally:
        cleanup()
