"""What `mika serve` does between start and exit: assemble, recover, run the trigger
loop until a signal, stop cleanly. Kept out of mika/commands/serve.py so `mika serve
--help` imports none of it."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time

from mika.assembly import Assembly
from mika.cap.phone import PhoneOpenError
from mika.config.errors import ConfigError
from mika.config.paths import schedules_file
from mika.config.settings import load_settings
from mika.exit_codes import ExitCode
from mika.run.conversations import ConversationStore
from mika.run.outbox import Channel, Outbox
from mika.run.recovery import recover_at_start, settle
from mika.terminal_text import echo, for_terminal
from mika.trigger import serve_lock
from mika.trigger.channels import ConversationChannel, DesktopChannel
from mika.trigger.runtime import TriggerRuntime, WindowLog
from mika.trigger.store import TriggerStore
from mika.trigger.texts import t

log = logging.getLogger("mika.trigger")


def _err(message: str) -> None:
    echo(message, err=True)


def _window_line(entry: WindowLog) -> None:
    # One line a window, on stdout: the data of this command (a log a unit's journal keeps).
    sys.stdout.write(for_terminal(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {entry.line()}") + "\n")
    sys.stdout.flush()


def serve_main(*, config_path: str | None, device: str | None, model: str | None, poll_s: float) -> ExitCode:
    try:
        settings = load_settings(config_path)
    except ConfigError as exc:
        _err(f"mika: {exc}")
        return ExitCode.USAGE
    try:
        # Lenient: a schedule file with reminders only needs no model; a missing model or
        # phone is told once and the tasks wait (or fail in their conversation) instead.
        asm = Assembly.open(settings, device=device, model=model, lenient=True)
    except (ConfigError, PhoneOpenError) as exc:
        _err(f"mika: {exc}")
        return ExitCode.USAGE
    try:
        return asyncio.run(_serve(asm, poll_s))
    except KeyboardInterrupt:
        return ExitCode.DONE
    finally:
        asm.close()


async def _serve(asm: Assembly, poll_s: float) -> ExitCode:
    state = asm.state_dir
    held = serve_lock.hold(state)  # kept until exit: tells the schedule tool a serve is running
    try:
        return await _serve_held(asm, poll_s)
    finally:
        os.close(held)


async def _serve_held(asm: Assembly, poll_s: float) -> ExitCode:
    state = asm.state_dir
    recover_at_start(state)
    conversations = ConversationStore(state)
    channels: list[Channel] = [ConversationChannel(conversations), DesktopChannel()]
    outbox = Outbox(state, channels)
    center = asm.task_center(outbox=outbox, conversations=conversations) if asm.models is not None else None
    if center is None:
        _err(t("serve_no_model", error=asm.model_problem))
    store = TriggerStore(state)
    runtime = TriggerRuntime(
        store, outbox=outbox, center=center, conversations=conversations, poll_s=poll_s, on_window=_window_line
    )
    # Windows first: a task window killed mid-run is told "result unknown" in the run's own
    # notice slot, so settle doesn't also call it "interrupted, start it again".
    runtime.recover()
    await settle(state, channels)
    _err(t("serve_start", n=len(store.list()), path=schedules_file(state)))

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        if not stop.is_set():
            _err(t("serve_stop"))
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
    try:
        await runtime.loop(stop)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        if center is not None:
            await center.aclose()
    return ExitCode.DONE
