"""The sandbox in the run environment: does bubblewrap work here, and one run's sandbox.

Whether the sandbox can run is found once per process (`sandbox_problem` starts one `true`
inside bwrap); a machine without it (not Linux, no bwrap, no user namespaces) gets one
notice with the first run and no sandbox tools, never a traceback. A run's sandbox is
built per run for its conversation's workspace and costs nothing until a command runs.

Every run's sandbox gets the bridge (`mika phone <op>` inside a command). It opens a socket
only when the run has tools declared `sandbox_callable` — the phone's — so a run with a
phone and a sandbox has it and a run without a phone gets the client's "nothing to call".
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mika.config.settings import Settings
from mika.runtypes.spec import RunSpec

_NOTICE = {
    "en": "The sandbox tools are off for now: {problem}.",
    "zh": "沙箱工具暂时不可用：{problem}。",
}


def sandbox_problem(settings: Settings) -> str | None:
    """None when the sandbox is off in the config (quietly), "" when it works, else why not."""
    if not settings.sandbox_enabled:
        return None
    from mika.cap.sandbox.bwrap import sandbox_problem as probe

    return probe()


class SandboxProbe:
    """`sandbox_problem` in a thread of its own, begun as the assembly opens: bubblewrap's
    one `true` (10-50 ms of a process start) runs while the models and the phone are set
    up instead of after them, on the way to a run's first request."""

    def __init__(self, settings: Settings) -> None:
        self._answer: list[str | None] = []
        self._error: list[BaseException] = []
        self._thread = threading.Thread(target=self._probe, args=(settings,), name="sandbox-probe", daemon=True)
        self._thread.start()

    def _probe(self, settings: Settings) -> None:
        try:
            self._answer.append(sandbox_problem(settings))
        except BaseException as exc:  # raised where the answer is asked for, as before
            self._error.append(exc)

    def result(self) -> str | None:
        self._thread.join()
        if self._error:
            raise self._error[0]
        return self._answer[0]


def no_sandbox_notice(problem: str) -> str:
    from mika.config.language import ui_language

    return _NOTICE.get(ui_language(), _NOTICE["en"]).format(problem=problem)


def sandbox_opener(
    settings: Settings, state_dir: Path, *, knowledge: Any = None, skills: Any = None
) -> Callable[[RunSpec], Any]:
    """`RunEnvironment.sandbox`: the sandbox for one run, in its conversation's workspace
    (a run outside a conversation gets one of its own, by run id)."""

    def opener(spec: RunSpec) -> Any:
        from mika.cap.sandbox import open_sandbox
        from mika.cap.sandbox.bridge import SandboxBridge

        return open_sandbox(
            state_dir,
            spec.conversation_id or f"run-{spec.id}",
            network=settings.sandbox_network,
            cpu_seconds=settings.sandbox_cpu_seconds,
            knowledge=knowledge,
            skills=skills,
            extras=(SandboxBridge().extras,),
        )

    return opener
