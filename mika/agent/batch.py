"""`BatchRunner`: `do_steps` — 1–20 known actions run one by one, each checked (seed §3).

Each step goes back through the ActionExecutor (origin batch), so guards, the payment
check and records apply to it exactly as to a single call. A step may carry a wait
condition, which the capability's waiter checks in code before the next step instead of
asking the model whether the page is still loading. The batch stops early when a step
fails, when a dialog, a foreign window or another app comes up (the capability's
`interrupted` check), when a wait stops for one of those, or when the user sends a new
message — then the rest is skipped as `skipped_for_new_message`, which is not a failure.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

MAX_STEPS = 20


class BatchSpecError(ValueError):
    """The steps can't be run as given; the message names the step and what to fix."""


@dataclass(frozen=True)
class BatchStep:
    tool: str
    args: dict[str, Any]
    wait: dict[str, Any] | None = None


@dataclass(frozen=True)
class StepReport:
    index: int
    tool: str
    ok: bool
    code: str
    text: str
    wait: dict[str, Any] | None = None
    wait_ms: int = 0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.index, "tool": self.tool, "ok": self.ok, "code": self.code}
        if self.wait is not None:
            out["wait"] = self.wait
        return out


@dataclass(frozen=True)
class BatchResult:
    steps: tuple[StepReport, ...]
    total: int
    stopped: str | None = None  # None: all done; failed | dialog | app_changed | foreign_window | skipped_for_new_message
    skipped: tuple[int, ...] = field(default=())

    @property
    def completed(self) -> bool:
        return self.stopped is None and len(self.steps) == self.total and all(s.ok for s in self.steps)


# One step's outcome as the runner needs it: (ok, code, text, wait_ms, data).
Performed = tuple[bool, str, str, int, dict[str, Any]]


def parse_steps(raw: Any, *, known: Callable[[str], bool], batchable: Callable[[str], bool]) -> list[BatchStep]:
    if not isinstance(raw, list) or not raw:
        raise BatchSpecError("do_steps needs 'steps': a list of 1 to 20 actions.")
    if len(raw) > MAX_STEPS:
        raise BatchSpecError(f"do_steps takes at most {MAX_STEPS} steps; got {len(raw)}. Split the work.")
    steps = []
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
            raise BatchSpecError(f"step {i}: each step is an object with 'tool' and 'args'.")
        name = item["tool"]
        if not known(name):
            raise BatchSpecError(f"step {i}: there is no tool {name!r} in this run.")
        if not batchable(name):
            raise BatchSpecError(f"step {i}: {name} can't run inside do_steps; call it on its own.")
        args = item.get("args") or {}
        if not isinstance(args, dict):
            raise BatchSpecError(f"step {i}: 'args' must be an object.")
        wait = item.get("wait")
        if wait is not None and not isinstance(wait, dict):
            raise BatchSpecError(f"step {i}: 'wait' must be an object like {{\"expect\": \"Done\"}}.")
        steps.append(BatchStep(name, dict(args), dict(wait) if wait else None))
    return steps


class BatchRunner:
    def __init__(
        self,
        perform: Callable[[int, BatchStep], Awaitable[Performed]],
        *,
        steer_signal: asyncio.Event,
        wait: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
        interrupted: Callable[[BatchStep, dict[str, Any]], Awaitable[str | None]] | None = None,
    ) -> None:
        self.perform = perform
        self.steer_signal = steer_signal
        self.wait = wait
        self.interrupted = interrupted

    async def run(self, steps: list[BatchStep]) -> BatchResult:
        reports: list[StepReport] = []
        for i, step in enumerate(steps, 1):
            if self.steer_signal.is_set():
                return self._stop(reports, steps, i, "skipped_for_new_message")
            ok, code, text, wait_ms, data = await self.perform(i, step)
            wait_info: dict[str, Any] | None = None
            if ok and step.wait and self.wait is not None:
                wait_info = await self.wait(step.wait)
                wait_ms += int(wait_info.get("waited_ms", 0))
            reports.append(StepReport(i, step.tool, ok, code, text, wait_info, wait_ms))
            if code == "skipped_for_new_message":
                return self._stop(reports, steps, i + 1, "skipped_for_new_message")
            if not ok:
                return self._stop(reports, steps, i + 1, "failed")
            if wait_info is not None and not wait_info.get("met"):
                stopped = str(wait_info.get("stopped") or "timeout")
                reason = "skipped_for_new_message" if stopped == "new_message" else stopped
                return self._stop(reports, steps, i + 1, reason)
            if self.interrupted is not None and i < len(steps):
                reason = await self.interrupted(step, data)
                if reason:
                    return self._stop(reports, steps, i + 1, reason)
        return BatchResult(tuple(reports), len(steps))

    @staticmethod
    def _stop(reports: list[StepReport], steps: list[BatchStep], next_index: int, reason: str) -> BatchResult:
        skipped = tuple(range(next_index, len(steps) + 1))
        return BatchResult(tuple(reports), len(steps), reason, skipped)


def summary(result: BatchResult) -> str:
    lines = []
    for r in result.steps:
        mark = "ok" if r.ok else f"failed ({r.code})"
        head = f"{r.index}. {r.tool}: {mark}"
        if r.wait is not None:
            head += f" · wait met={r.wait.get('met')} stopped={r.wait.get('stopped')} waited_ms={r.wait.get('waited_ms')}"
        first = r.text.split("\n", 1)[0]
        lines.append(f"{head} — {first}")
    if result.stopped is None:
        lines.append(f"All {result.total} steps done.")
    else:
        why = {
            "skipped_for_new_message": "the user sent a new message; read it and decide again",
            "failed": "a step failed",
            "dialog": "a dialog came up",
            "app_changed": "another app came to the front",
            "foreign_window": "another app's window came over the screen",
            "timeout": "a wait timed out",
        }.get(result.stopped, result.stopped)
        rest = f" Steps {', '.join(map(str, result.skipped))} were not done." if result.skipped else ""
        lines.append(f"Stopped after step {len(result.steps)}: {why}.{rest}")
    return "\n".join(lines)
