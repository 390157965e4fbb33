"""What plays the model in an evaluation (`--model`).

reference      each task's own reference solution (its `solution` model script);
               a task without one is reported "no_solution", not run
lazy           a built-in wrong policy: answers "Done." at once, without touching
               the phone — what a careless model scores (only tasks whose check
               already holds and whose outcome is an answer can pass)
script:PATH    one model script for every task
PROVIDER/MODEL a configured model, as for `mika run --model`
"""

from __future__ import annotations

from pathlib import Path

from mika.atomic_write import write_json
from mika.sim.tasks import SimTask

REFERENCE = "reference"
LAZY = "lazy"
LAZY_SCRIPT = ["Done."]
BUILT_IN = (REFERENCE, LAZY)


# Tools a run offers only with a person present (RunProvenance attended): an unattended
# run (every `mika eval` run, as every headless run) answers them "no such tool".
ATTENDED_TOOLS = frozenset({"hand_to_user", "request_confirmation", "ask_user"})


class NoSolution(LookupError):
    pass


class NeedsPerson(LookupError):
    """The task's reference solution is written for a run with a person present."""

    def __init__(self, tools: list[str]) -> None:
        super().__init__(", ".join(tools))
        self.tools = tools


def attended_tools(script: tuple | list) -> list[str]:
    used = {
        c.get("name")
        for step in script
        if isinstance(step, dict)
        for c in step.get("tool_calls", [])
        if isinstance(c, dict)
    }
    return sorted(str(t) for t in used & ATTENDED_TOOLS)


def model_for(choice: str, task: SimTask, work: Path) -> str:
    """The `--model` argument of the task's headless run; writes the task's script into
    `work` when the policy is built in. Raises NoSolution for a reference run of a task
    without a solution."""
    if choice == REFERENCE:
        if not task.solution:
            raise NoSolution(task.id)
        tools = attended_tools(task.solution)
        if tools:
            raise NeedsPerson(tools)
        return "script:" + str(_write(work / "solution.json", list(task.solution)))
    if choice == LAZY:
        return "script:" + str(_write(work / "lazy.json", LAZY_SCRIPT))
    if choice.startswith("script:"):  # the run's process may start elsewhere: an absolute path
        return "script:" + str(Path(choice[len("script:") :]).expanduser().resolve())
    return choice


def _write(path: Path, script: list) -> Path:
    write_json(path, script)
    return path
