"""Which tasks an evaluation runs: a suite (shipped topic, tag, or a task file), a task
filter, and a shard of the result.

    all              every shipped task
    core, collect …  one shipped task file (tasks.json is "core", tasks_<topic>.json <topic>)
    tag:payment      shipped tasks with that tag
    PATH.json        a task file of the same format as the shipped ones (validated)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mika.sim.tasks import SimTask, TaskFileError, parse_task, task_files


class SuiteError(ValueError):
    """A suite, task list or shard that cannot be used; the message says what to give instead."""


def suite_names() -> list[str]:
    return ["all", *(topic for topic, _ in task_files())]


def load_suite(name: str) -> list[SimTask]:
    if name == "all":
        return [task for _, tasks in task_files() for task in tasks]
    for topic, tasks in task_files():
        if topic == name:
            return list(tasks)
    if name.startswith("tag:"):
        tag = name[4:]
        found = [task for _, tasks in task_files() for task in tasks if tag in task.tags]
        if not found:
            tags = sorted({t for _, tasks in task_files() for task in tasks for t in task.tags})
            raise SuiteError(f"no shipped task has the tag {tag!r}; tags: {', '.join(tags)}")
        return found
    path = Path(name).expanduser()
    if name.endswith(".json") or path.exists():
        return load_task_file(path)
    raise SuiteError(f"no suite {name!r}: give one of {', '.join(suite_names())}, tag:NAME, or a task file (.json)")


def load_task_file(path: Path) -> list[SimTask]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SuiteError(f"suite file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"suite file {path} cannot be read: {exc}") from None
    except ValueError as exc:
        raise SuiteError(f"suite file {path} is not valid JSON: {exc}") from None
    if not isinstance(raw, list) or not raw:
        raise SuiteError(
            f"suite file {path} must be a non-empty JSON list of tasks (the format of `mika sim tasks --json`)"
        )
    tasks = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        try:
            task = parse_task(item, f"{path.name}[{i}]")
        except TaskFileError as exc:
            raise SuiteError(f"suite file {exc}") from None
        if task.id in seen:
            raise SuiteError(f"suite file {path.name}[{i}]: the id {task.id!r} is used twice")
        seen.add(task.id)
        tasks.append(task)
    return tasks


def pick_tasks(tasks: list[SimTask], wanted: str | None) -> list[SimTask]:
    """Only the comma-separated task ids in `wanted` (in the suite's order)."""
    if not wanted:
        return tasks
    ids = [w.strip() for w in wanted.split(",") if w.strip()]
    known = {t.id for t in tasks}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise SuiteError(f"no task {', '.join(map(repr, unknown))} in this suite; see `mika sim tasks` for the ids")
    return [t for t in tasks if t.id in ids]


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        head, sep, tail = text.partition("/")
        if not sep or not head.strip().isdigit() or not tail.strip().isdigit():
            raise SuiteError(f"--shard {text!r}: give I/N, e.g. 1/3 (this machine runs the first of three parts)")
        index, count = int(head), int(tail)
        if count < 1 or not 1 <= index <= count:
            raise SuiteError(f"--shard {text!r}: I must be between 1 and N, and N at least 1")
        return cls(index, count)

    def take(self, tasks: list[SimTask]) -> list[SimTask]:
        """Every N-th task by sorted id, starting at the I-th: the same split on every
        machine whatever order the suite lists them in, and the shards together are all."""
        ordered = sorted(tasks, key=lambda t: t.id)
        mine = {t.id for t in ordered[self.index - 1 :: self.count]}
        return [t for t in tasks if t.id in mine]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
