"""run_command: one shell line in the sandbox, in /workspace; the sandbox group's entry.

The guard is asked first (the run's CPU time left, the same failing command again); the
command runs with the run's remaining CPU time as its limit; how it ended is noted for the
repeat rule. What it printed comes back fenced: it is data, not orders.
"""

from __future__ import annotations

from typing import Any

from mika.cap.sandbox.output import command_outcome
from mika.cap.sandbox.port import TIMEOUT_DEFAULT, TIMEOUT_MAX
from mika.cap.sandbox.tools.base import SandboxTool, int_arg, text_arg
from mika.tool.context import ToolContext
from mika.tool.declaration import EntryKind, Risk, ToolOutcome
from mika.tool.errors import BadArguments

COMMAND_MAX = 20_000  # characters of one command line


class RunCommand(SandboxTool):
    name = "run_command"
    risk = Risk.WRITE  # it changes the workspace
    entry = EntryKind.OPENS
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "A shell command line (/bin/sh), run in /workspace."},
            "timeout": {
                "type": "integer",
                "description": f"Seconds before it is stopped; default {TIMEOUT_DEFAULT:g}, at most {TIMEOUT_MAX:g}.",
            },
        },
        "required": ["command"],
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        command = text_arg(args, "command")
        if len(command) > COMMAND_MAX:
            raise BadArguments(
                f"the command is {len(command)} characters; keep it under {COMMAND_MAX} (write a script file)"
            )
        timeout = float(int_arg(args, "timeout", int(TIMEOUT_DEFAULT), 1, int(TIMEOUT_MAX)))
        session = self.session(ctx)
        refused = session.guard.refusal(command)
        if refused is not None:
            return ToolOutcome.error(*refused)
        result = await session.run(command, ctx=ctx, timeout=timeout)
        failures = session.guard.record(command, result)
        return command_outcome(command, result, session.guard, timeout=timeout, step=ctx.step, failures=failures)
