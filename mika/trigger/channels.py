"""Where `mika serve` delivers (Outbox channels): into the conversation the schedule
belongs to, and a desktop notification where there is a desktop.

A run's answer is already in its conversation turn (the TaskCenter writes it), so the
conversation channel only writes what has no turn yet: reminders and notices ("result
unknown"). Checks of a condition never notify: they are looks, not results.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping

from mika.run.conversations import ConversationStore
from mika.run.outbox import Delivery, DeliveryFailed
from mika.trigger.condition import is_check_conversation
from mika.trigger.texts import t

log = logging.getLogger("mika.trigger")
NOTIFY_TIMEOUT_S = 5.0
BODY_CHARS = 300


class ConversationChannel:
    name = "conversation"

    def __init__(self, conversations: ConversationStore) -> None:
        self.conversations = conversations

    def send(self, delivery: Delivery) -> None:
        if not delivery.conversation_id:
            raise DeliveryFailed("no conversation to write into")
        if delivery.run_id:
            return  # about a run: its own turn holds it already (the TaskCenter, recovery)
        turn_id = delivery.id  # one turn per delivery id: written once, like the delivery
        self.conversations.begin_turn(delivery.conversation_id, turn_id, "", outcome="running")
        self.conversations.finish_turn(
            delivery.conversation_id,
            turn_id,
            outcome="answered" if delivery.level == "info" else "failed",
            subtype=delivery.kind,
            answer=delivery.text,
        )


def desktop_session(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


class DesktopChannel:
    """notify-send, when it is on PATH and a desktop session can show it. It runs on a
    thread with a timeout: a hung notification daemon never holds up a schedule."""

    name = "desktop"

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] = shutil.which,
    ) -> None:
        self.environ = os.environ if environ is None else environ
        self.which = which

    def send(self, delivery: Delivery) -> None:
        if is_check_conversation(delivery.conversation_id):
            raise DeliveryFailed("condition checks are not notified")
        exe = self.which("notify-send") if desktop_session(self.environ) else None
        if exe is None:
            raise DeliveryFailed("no desktop notifications here (notify-send or a desktop session missing)")
        body = " ".join(delivery.display_text.split())[:BODY_CHARS]
        # `--` so a body starting with "-" (a model's words) is never read as an option.
        argv = [exe, "--app-name=Mika", "--", t("notify_title"), body]
        threading.Thread(target=_run, args=(argv,), daemon=True, name="notify-send").start()


def _run(argv: list[str]) -> None:
    try:
        subprocess.run(argv, timeout=NOTIFY_TIMEOUT_S, check=False, capture_output=True)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.info("notify-send did not finish: %s", exc)
