"""Child runs (seed §6 子任务): `spawn_agent`'s child, built here because only the assembly
knows every capability.

A child gets the web and the sandbox only (no phone, no MCP), is read-only and unattended
(so nothing that needs a person, sends, or writes is offered), has at most 15 steps, no
memory (no memory tools, no extraction), no conversation history, no knowledge or skill lookups, no learning, no
outcome judge, and no children of its own. Its run is recorded like any run
(runs/<…>/events.jsonl) and the parent's record names it (`ChildRunEvent`). Its model
calls go through the assembly's metered models, so its usage is in the ledger under the
same purposes as a normal run's. Stopping the parent stops the child: its run ends
stopped, recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from mika.observe.untrusted import fence
from mika.record.events import ChildRunEvent
from mika.resources import prompt
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from mika.tool.children import CHILD_STEPS, ChildResult, ChildRuns

if TYPE_CHECKING:
    from mika.assembly.environment import RunEnvironment
    from mika.run.task_run import RunOptions, TaskRun
    from mika.tool.context import ToolContext

CHILD_CAPABILITIES = ("web", "sandbox")
CHILD = RunProvenance(RunOrigin.CHILD, Attendance.UNATTENDED)
# Runs that never get spawn_agent, whatever else they have: a child (no grandchildren),
# and runs nobody started from a conversation with Mika.
NO_CHILDREN = frozenset({RunOrigin.CHILD, RunOrigin.MCP, RunOrigin.TRIGGER})


def offers_children(spec: RunSpec, env: RunEnvironment) -> bool:
    """spawn_agent only for an attended conversation run that has the web or the sandbox
    (a child would have nothing to work with otherwise)."""
    if spec.provenance.origin in NO_CHILDREN or not spec.provenance.can_ask:
        return False
    wanted = set(spec.capabilities)
    present = {"web": env.web, "sandbox": env.sandbox}
    return any(opener is not None and (not wanted or cid in wanted) for cid, opener in present.items())


def child_spec(goal: str, context: str, parent: RunSpec) -> RunSpec:
    # The context is the parent model's words, which may repeat what a page said: fenced,
    # so the child reads it as data, never as orders.
    fenced = fence(context, {"source": "parent_run", "run": parent.id})
    text = prompt("roles/child_goal.md").format(goal=goal, context=fenced) if context else goal
    return RunSpec(
        goal=text,
        provenance=CHILD,
        # The parent's conversation: its sandbox workspace is the one the child reads.
        conversation_id=parent.conversation_id,
        capabilities=CHILD_CAPABILITIES,
        read_only=True,
        parent=parent.id,
        step_budget=CHILD_STEPS,
    )


def child_parts(env: RunEnvironment, options: RunOptions) -> tuple[RunEnvironment, RunOptions]:
    """What a child run is built from: the parent's environment without the phone, MCP,
    memory, conversation history, knowledge, skills, extra capabilities and children; options without memory,
    learning, judge or final review, and without the start notices (the parent tells them)."""
    # No state folder in the environment: no history_read either (the parent passes what
    # the child needs to know in `context`).
    env = replace(
        env, state_dir=None, phone=None, mcp=None, memory=None, knowledge=None, skills=None, extra=(), children=None
    )
    options = replace(
        options,
        memory=None,
        memory_extract=False,
        learning=None,
        knowledge=None,
        skills=None,
        judge_outcome=False,
        review_final_answer=False,
        start_notices=(),
    )
    return env, options


class AssemblyChildRuns(ChildRuns):
    """Makes each child with the assembly's run factory (`Assembly.make_run`)."""

    def __init__(self, make_run: Callable[[RunSpec], TaskRun]) -> None:
        self._make_run = make_run

    async def run_child(self, goal: str, context: str, parent: ToolContext) -> ChildResult:
        spec = child_spec(goal, context, parent.spec)
        run = self._make_run(spec)
        step = parent.step

        def event(state: str, **kw: object) -> None:
            parent.emit(
                ChildRunEvent(
                    run_id=parent.run_id,
                    conversation_id=parent.spec.conversation_id,
                    step=step,
                    child_run_id=spec.id,
                    state=state,
                    **kw,  # type: ignore[arg-type]
                )
            )

        event("started", goal=spec.goal)
        task = asyncio.ensure_future(run.run())
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            # The parent was stopped: the child's loop sees its own cancel, ends stopped and
            # closes its record (no stop summary: the parent's covers the task).
            run.inbox.cancel("The task that started this child run was stopped.")
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
            status = run.result.status.value if run.result is not None else "stopped"
            event("ended", status=status)
            raise
        event("ended", status=result.status.value, steps=result.steps, record_dir=result.record_dir)
        return ChildResult(spec.id, result.status.value, result.answer, result.steps, result.record_dir)
