"""The person at the terminal of a `mika --no-ui` run, when there is one.

A headless run started from a terminal (stdin and stderr are both a terminal, or `--ask`)
is attended: what the TUI shows as a card is asked here, on stderr, and answered with a
line on stdin — an approval (payment step or risky setting: only "y" / "yes" / "是" allows,
anything else, an empty line or the end of input refuses), a question, a hand-over (the
person does it on the phone and presses Enter). stdout stays data only. A script (no
terminal) gets the unattended run it always had: payment steps refused, exit 5.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import IO, Any

from mika.record.events import ConfirmationAsked, QuestionAsked, RunEvent, TakeoverEvent
from mika.run.task_center import TaskCenter
from mika.run.ui_text import t
from mika.terminal_text import for_terminal

YES = frozenset({"y", "yes", "是", "是的", "好", "允许"})


class TerminalPerson:
    """Subscribed to the task center: asks each card on `err`, reads the answer from `inp`
    (in a thread: a blocking read never stalls the run's loop), and hands it back."""

    def __init__(self, center: TaskCenter, conversation_id: Callable[[], str], inp: IO[str], err: IO[str]) -> None:
        self.center = center
        self.conversation_id = conversation_id
        self.inp = inp
        self.err = err
        self._tasks: set[asyncio.Task[None]] = set()
        self._turn = asyncio.Lock()  # one question at a time on the terminal

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, ConfirmationAsked):
            self._spawn(self._confirm(event))
        elif isinstance(event, QuestionAsked):
            self._spawn(self._question(event))
        elif isinstance(event, TakeoverEvent) and event.state == "asked":
            self._spawn(self._takeover(event))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _line(self, prompt: str) -> str | None:
        """The person's line, or None at the end of input."""
        self.err.write(prompt)
        self.err.flush()
        line = await asyncio.to_thread(self.inp.readline)
        return None if line == "" else line.strip()

    def _say(self, text: str) -> None:
        self.err.write(for_terminal(text) + "\n")
        self.err.flush()

    async def _confirm(self, e: ConfirmationAsked) -> None:
        async with self._turn:
            unknown = t("ask_unknown")
            app = e.screen_app or e.app or unknown
            if e.kind == "setting":
                self._say(t("ask_setting", item=e.screen_item or e.screen_button or e.what, app=app))
            else:
                self._say(
                    t(
                        "ask_payment",
                        item=e.screen_item or e.what or unknown,
                        amount=e.screen_amount or e.amount or unknown,
                        app=app,
                        button=e.screen_button or unknown,
                    )
                )
            for text in e.mismatch:
                self._say(t("ask_mismatch", text=text))
            line = await self._line(t("ask_allow"))
            allowed = line is not None and line.casefold() in YES
            self._say(t("ask_allowed") if allowed else t("ask_refused"))
            self.center.confirm(self.conversation_id(), e.question_id, allowed)

    async def _question(self, e: QuestionAsked) -> None:
        async with self._turn:
            self._say(t("ask_question", question=e.question))
            if e.options:
                self._say(t("ask_options", options=" / ".join(e.options)))
            line = await self._line(t("ask_answer"))
            self.center.answer(self.conversation_id(), e.question_id, line or "")

    async def _takeover(self, e: TakeoverEvent) -> None:
        async with self._turn:
            self._say(t("ask_takeover", message=e.message))
            line = await self._line(t("ask_takeover_do"))
            done = line is not None and line.casefold() not in ("s", "skip", "跳过")
            self.center.hand_back(self.conversation_id(), e.question_id, done)
