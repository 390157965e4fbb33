"""Takeover from the terminal: what the takeover card's two choices do on the phone.

`move`: the agent's display's top task goes to the main screen (`am display move-stack
ROOT 0`) and back to the agent's display when the user says Done. `operate`: the preview
takes clicks, drags and keys and sends them to the agent's display. Phone calls block,
so they run in the caller's worker thread; this class only keeps what was done, so
Done / Skip can undo it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mika.cap.phone.display.input import AdbDisplayInput, DisplayInput, RootTask, TaskMover


@dataclass
class TerminalTakeover:
    serial: str
    display: int
    make_input: Callable[[str, int], DisplayInput] = AdbDisplayInput
    make_mover: Callable[[str], TaskMover] = TaskMover
    moved: dict[str, RootTask] = field(default_factory=dict)  # question id → the task moved
    run_id: str = ""  # whose display this is ("" : the preview's, for a face without an assembly)

    def input(self) -> DisplayInput:
        return self.make_input(self.serial, self.display)

    def move_to_main(self, question_id: str) -> RootTask:
        task = self.make_mover(self.serial).to_main(self.display)
        self.moved[question_id] = task
        return task

    def finish(self, question_id: str) -> RootTask | None:
        """The user is done (or skipped): a moved task goes back to the agent's display."""
        task = self.moved.pop(question_id, None)
        if task is not None and self.display != 0:
            self.make_mover(self.serial).back_to(task, self.display)
        return task
