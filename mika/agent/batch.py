"""`BatchRunner`: `do_steps` — 1–20 known actions run one by one, each checked (seed §3).

Each step goes back through the ActionExecutor (origin batch), so guards, the payment
check and records apply to it exactly as to a single call. A step may carry a wait
condition, which the capability's waiter checks in code before the next step instead of
asking the model whether the page is still loading. The batch stops early when a step
fails, when a dialog, a foreign window or another app comes up (the capability's
`interrupted` check), when a wait stops for one of those, or when the user sends a new
message — then the rest is skipped as `skipped_for_new_message`, which is not a failure.

Each step's effect (done / place_changed / no_effect, treeBlind) is kept on its report. A
step that had no visible effect, or whose wait was not met, stops the batch too: the next
steps were planned on the screen that step should have made, and "all done" would hide a
Send that never sent. A step marked `optional` (a popup that may not be there) goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

MAX_STEPS = 20


class BatchSpecError(ValueError):
    """The steps can't be run as given; the message names the step and what to fix."""


@dataclass(frozen=True)
class BatchStep:
    tool: str
    args: dict[str, Any]
    wait: dict[str, Any] | None = None
    # No effect or an unmet wait is fine for this step (it need not have changed anything).
    optional: bool = False


@dataclass(frozen=True)
class StepReport:
    index: int
    tool: str
    ok: bool
    code: str
    text: str
    wait: dict[str, Any] | None = None
    wait_ms: int = 0
    # done | place_changed | no_effect, as the capability judged it ("" when not judged).
    effect: str = ""
    tree_blind: bool = False
    optional: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.index, "tool": self.tool, "ok": self.ok, "code": self.code}
        if self.effect:
            out["effect"] = self.effect
        if self.tree_blind:
            out["treeBlind"] = True
        if self.optional:
            out["optional"] = True
        if self.wait is not None:
            out["wait"] = self.wait
        return out


@dataclass(frozen=True)
class BatchResult:
    steps: tuple[StepReport, ...]
    total: int
    # None: all done; failed | no_effect | timeout | dialog | app_changed | foreign_window | skipped_for_new_message
    stopped: str | None = None
    skipped: tuple[int, ...] = field(default=())

    @property
    def completed(self) -> bool:
        return self.stopped is None and len(self.steps) == self.total and all(s.ok for s in self.steps)


# One step's outcome as the runner needs it: (ok, code, text, wait_ms, data); `data` carries
# the capability's judgement of the step as "effect" and "treeBlind" when it made one.
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
            raise BatchSpecError(f'step {i}: \'wait\' must be an object like {{"expect": "Done"}}.')
        args = dict(args)
        # Models put the flag next to the tool's own arguments as often as beside them.
        optional = item.get("optional", args.pop("optional", False))
        if not isinstance(optional, bool):
            raise BatchSpecError(f"step {i}: 'optional' must be true or false.")
        steps.append(BatchStep(name, args, dict(wait) if wait else None, optional))
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
            effect = str(data.get("effect") or "")
            reports.append(
                StepReport(
                    i, step.tool, ok, code, text, wait_info, wait_ms, effect, bool(data.get("treeBlind")), step.optional
                )
            )
            if code == "skipped_for_new_message":
                return self._stop(reports, steps, i + 1, "skipped_for_new_message")
            if not ok:
                # Even an optional step: a refusal or a fault is never skipped over.
                return self._stop(reports, steps, i + 1, "failed")
            if wait_info is not None and not wait_info.get("met"):
                stopped = str(wait_info.get("stopped") or "timeout")
                reason = "skipped_for_new_message" if stopped == "new_message" else stopped
                if not (step.optional and reason == "timeout"):
                    return self._stop(reports, steps, i + 1, reason)
            if effect == "no_effect" and not step.optional:
                return self._stop(reports, steps, i + 1, "no_effect")
            if self.interrupted is not None and i < len(steps):
                interruption = await self.interrupted(step, data)
                if interruption:
                    return self._stop(reports, steps, i + 1, interruption)
        return BatchResult(tuple(reports), len(steps))

    @staticmethod
    def _stop(reports: list[StepReport], steps: list[BatchStep], next_index: int, reason: str) -> BatchResult:
        skipped = tuple(range(next_index, len(steps) + 1))
        return BatchResult(tuple(reports), len(steps), reason, skipped)


_WHY = {
    "skipped_for_new_message": "the user sent a new message; read it and decide again",
    "failed": "it failed",
    "no_effect": "it had no visible effect, so it probably did not happen",
    "dialog": "a dialog came up",
    "chooser": "the phone asks which copy of the app to open (it is installed twice); pick one",
    "app_changed": "another app came to the front",
    "foreign_window": "another app's window came over the screen",
    "timeout": "its wait timed out before the screen showed what was expected",
}


def summary(result: BatchResult) -> str:
    lines = []
    for r in result.steps:
        mark = "ok" if r.ok else f"failed ({r.code})"
        if r.effect:
            mark += f" · {r.effect}" + (" (treeBlind)" if r.tree_blind else "")
        if r.optional:
            mark += " · optional"
        head = f"{r.index}. {r.tool}: {mark}"
        if r.wait is not None:
            head += (
                f" · wait met={r.wait.get('met')} stopped={r.wait.get('stopped')} waited_ms={r.wait.get('waited_ms')}"
            )
        first = r.text.split("\n", 1)[0]
        lines.append(f"{head} — {first}")
    if result.stopped is None:
        lines.append(f"All {result.total} steps done.")
    else:
        last = result.steps[-1] if result.steps else None
        why = _WHY.get(result.stopped, result.stopped)
        if last is None:
            head = f"Stopped before step 1: {why}."
        elif result.stopped == "skipped_for_new_message":
            head = f"Stopped after step {last.index}: {why}."
        else:
            head = f"Stopped after step {last.index} ({last.tool}): {why}."
            if result.stopped == "no_effect" and last.tree_blind:
                head += " The tree cannot see that spot (treeBlind): look at the screen before going on."
            elif result.stopped == "no_effect":
                head += " Look at the screen, then redo it or mark the step optional if it may change nothing."
        rest = f" Steps {', '.join(map(str, result.skipped))} were not done." if result.skipped else ""
        lines.append(head + rest)
    return "\n".join(lines)
