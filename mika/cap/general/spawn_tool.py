"""spawn_agent: hand one bounded question to a child run and read back its answer (seed §6).

The child itself is built by the assembly (`ChildRuns`, mika.tool.children): web and
sandbox only, read-only, unattended, at most 15 steps. Its answer was written by a model
that read pages: here it is cut to `ANSWER_MAX` characters and fenced as untrusted, once,
where the observation is built, so nothing in it can close the fence or pass for Mika's
own words.
"""

from __future__ import annotations

from typing import Any

from mika.observe.observation import Observation, ObsKind
from mika.resources import prompt
from mika.tool.children import ChildResult, ChildRuns
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, Risk, ToolOutcome

# Characters of the child's answer the parent reads; the rest is cut (and said so).
ANSWER_MAX = 4000


class SpawnAgent(AgentTool):
    group = "more"  # rarely needed: listed by more_tools until opened
    name = "spawn_agent"
    capability = "general"
    # The child only reads (its spec is read-only), so starting one is a read.
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "goal": {"type": "string", "description": "What the child should find out, and what to answer with."},
            "context": {"type": "string", "description": "What the child needs to know from this task (optional)."},
        },
        "required": ["goal"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        # Looked up directly, not through ctx.service: ChildRuns is an abstract base (its
        # implementation is the assembly's).
        children = ctx.services.get(ChildRuns)
        if not isinstance(children, ChildRuns):
            return ToolOutcome.error("child_unavailable", prompt("feedback/child_unavailable.md"))
        goal = str(args.get("goal") or "").strip()
        if not goal:
            return ToolOutcome.error("bad_arguments", "spawn_agent needs a non-empty `goal`.")
        context = str(args.get("context") or "").strip()
        result = await children.run_child(goal, context, ctx)
        return child_outcome(result, ctx.step)


def child_outcome(result: ChildResult, step: int) -> ToolOutcome:
    """The parent's view of a finished child: Mika's line naming the child run, then its
    answer cut and fenced."""
    answer = result.answer
    tail = ""
    if len(answer) > ANSWER_MAX:
        answer = answer[:ANSWER_MAX]
        tail = prompt("feedback/child_answer_cut.md").format(limit=ANSWER_MAX)
    head = prompt("feedback/child_answer.md").format(
        run_id=result.run_id, status=result.status, steps=result.steps, limit=ANSWER_MAX
    )
    obs = Observation.build(
        ObsKind.REPLY,
        "general",
        answer or "(no answer)",
        fence_attrs={"source": "child_run", "run": result.run_id},
        head=head,
        tail=tail,
        title="child run",
        step=step,
    )
    return ToolOutcome(
        text=obs.text,
        ok=result.status == "answered",
        code="done" if result.status == "answered" else f"child_{result.status}",
        observations=(obs,),
        data={"child_run_id": result.run_id, "status": result.status, "steps": result.steps},
    )
