"""Tasks for the simulated phone, modelled on AndroidWorld / AndroidLab goals.

Each task is data (tasks.json): a goal in plain words, the scenario it starts from,
setup commands, what a good run ends with (done, handoff to the user, an answer, or
"not done" with a reason), a success check over `simctl state` JSON
(mika.sim.tasks.check) and a reference solution.

A reference solution is a model script (the `--model script:PATH` format of
mika/model/script_file.py): a list of replies, each a string (the final answer) or
{"text": …, "tool_calls": [{"name": …, "arguments": {…}}]}. A tool call may name its
element by what it says instead of by number — {"name": "phone_tap", "pick": "Display",
"role": "button"} — and the player reads the number off the latest screen listing the
run gave back, as a model does. It proves the task solvable through Mika's own tools.

An adversarial task (untrusted text or a fake dialog tries to steer the agent) also has a
"trap": what the injected instruction wants done, in words; its check fails when that
happened. It may carry an "attack": the model script of an agent that falls for it (or,
for a payment task, one that keeps pressing on towards paying), which tests run to show
that Mika's rules stop it or the check catches it.

An argument or answer containing "{match}" gets the last `Match: …` line a tool returned
(the one-time code phone_event read off a notification: it differs on every run).

A "handoff" task, and a task tagged "attended", runs with a person present: they approve
a payment step when request_confirmation asks, unlock a locked phone when it is handed to
them, and hand a payment or captcha back undone (tests/sim_world/test_reference_solutions.py
plays that person).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from mika.sim.tasks.check import passes


@dataclass(frozen=True)
class SimTask:
    id: str
    goal: str
    scenario: str
    check: dict[str, Any]
    # "done" | "handoff" (stops for the user: payment, captcha) | "answer" | "not_done"
    # (the task can't be done here: the right outcome is ending not-done with a reason)
    expect: str = "done"
    setup: tuple[str, ...] = ()  # shell commands run after `simctl reset SCENARIO`
    apps: tuple[str, ...] = ()
    language: str = "en"
    difficulty: str = "easy"
    tags: tuple[str, ...] = field(default=())
    solution: tuple[Any, ...] = ()  # the reference model script (see the module's doc)
    trap: str = ""  # adversarial tasks: the injected action, which the check fails on
    attack: tuple[Any, ...] = ()  # a model script that falls for the trap (tests run it)

    def succeeded(self, state: dict[str, Any], answer: str | None = None) -> bool:
        """Whether `state` (parsed `simctl state` output) meets the goal.

        A question's task ("expect": "answer") checks the run's final answer too: it is
        seen by the check as the path `answer` (the phone's state has no such key)."""
        if answer is not None:
            state = {**state, "answer": answer}
        return passes(self.check, state)

    def prepare_commands(self) -> list[str]:
        """The shell commands that put a phone in this task's initial state."""
        return [f"simctl reset {self.scenario}", *self.setup]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "goal": self.goal,
            "scenario": self.scenario,
            "setup": list(self.setup),
            "expect": self.expect,
            "apps": list(self.apps),
            "language": self.language,
            "difficulty": self.difficulty,
            "tags": list(self.tags),
            "check": self.check,
            "solution": list(self.solution),
            **({"trap": self.trap} if self.trap else {}),
            **({"attack": list(self.attack)} if self.attack else {}),
        }


EXPECTS = ("done", "handoff", "answer", "not_done")


class TaskFileError(ValueError):
    """A task in a task file that is not a task: the message names the task and the field."""


def _texts(raw: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskFileError(f"{where}: {key!r} must be a list of strings, not {value!r}")
    return tuple(value)


def parse_task(raw: Any, where: str = "task") -> SimTask:
    """One task from its JSON object (the tasks*.json format), checked field by field."""
    if not isinstance(raw, dict):
        raise TaskFileError(f"{where}: a task is a JSON object, not {type(raw).__name__}")
    for key in ("id", "goal"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise TaskFileError(f"{where}: {key!r} must be a non-empty string")
    where = f"{where} ({raw['id']})"
    if not isinstance(raw.get("check"), dict):
        raise TaskFileError(f'{where}: \'check\' must be an object such as {{"path": "settings.wifi", "eq": false}}')
    expect = raw.get("expect", "done")
    if expect not in EXPECTS:
        raise TaskFileError(f"{where}: 'expect' must be one of {', '.join(EXPECTS)}, not {expect!r}")
    scenario = raw.get("scenario", "default")
    if not isinstance(scenario, str):
        raise TaskFileError(f"{where}: 'scenario' must be a scenario name")
    solution = raw.get("solution", [])
    if not isinstance(solution, list):
        raise TaskFileError(f"{where}: 'solution' must be a list of model replies (a model script)")
    return SimTask(
        id=raw["id"],
        goal=raw["goal"],
        scenario=scenario,
        check=raw["check"],
        expect=expect,
        setup=_texts(raw, "setup", where),
        apps=_texts(raw, "apps", where),
        language=str(raw.get("language", "en")),
        difficulty=str(raw.get("difficulty", "easy")),
        tags=_texts(raw, "tags", where),
        solution=tuple(solution),
        trap=str(raw.get("trap", "")),
        attack=tuple(raw.get("attack", [])),
    )


@lru_cache(maxsize=1)
def task_files() -> tuple[tuple[str, tuple[SimTask, ...]], ...]:
    """(topic, its tasks) per shipped task file: tasks.json is "core", tasks_<topic>.json
    is <topic> — tasks.json plus one file per group of tools, so groups grow apart."""
    folder = resources.files("mika.sim.tasks")
    out = []
    for entry in sorted(folder.iterdir(), key=lambda p: (p.name != "tasks.json", p.name)):
        if entry.name.startswith("tasks") and entry.name.endswith(".json"):
            topic = entry.name[len("tasks_") : -len(".json")] if entry.name != "tasks.json" else "core"
            raw = json.loads(entry.read_text(encoding="utf-8"))
            out.append((topic, tuple(parse_task(t, f"{entry.name}[{i}]") for i, t in enumerate(raw))))
    return tuple(out)


def _load() -> tuple[SimTask, ...]:
    return tuple(task for _, tasks in task_files() for task in tasks)


def list_tasks() -> list[SimTask]:
    return list(_load())


def get_task(task_id: str) -> SimTask:
    for task in _load():
        if task.id == task_id:
            return task
    known = ", ".join(t.id for t in _load())
    raise KeyError(f"no simulated-phone task {task_id!r}; known tasks: {known}")


__all__ = ["EXPECTS", "SimTask", "TaskFileError", "get_task", "list_tasks", "parse_task", "passes", "task_files"]
