"""phone_system_command: one shell line on the phone, run only when every command in it
is known to read state or change a setting without touching the screen.

The line is parsed the way the phone's sh would read it (mika/cap/phone/shell_line.py, shell_wrappers.py)
and each command it would run is checked against an allow-list
(mika/cap/phone/command_rules.py). Commands that tap, swipe, type, press keys, start
activities or services, broadcast or inject input are never run — not even once — and
the result names the phone tool to use (`use_phone_tool`): those tools check the screen
before and after and ask before payments, which a raw command would skip. A line that
can't be read with confidence is refused with the reason (`command_refused`). Two
failures in a row get a hint towards the phone tools.

The gated port (mika/cap/phone/gated_port.py) judges what a line reaches: a risky setting
it changes is asked first, and a refused line that would have opened a payment place is
refused as the payment step it is.
"""

from __future__ import annotations

from typing import Any

from mika.cap.phone.command_rules import USE_PHONE_TOOL, judge
from mika.cap.phone.tools.base import PhoneTool
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome

TIMEOUT_S = 10.0
OUTPUT_MAX = 6000
SHOWN_COMMAND_MAX = 200  # characters of a refused command quoted back to the model


class PhoneSystemCommand(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_system_command"
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "description": "One shell command line that reads state or changes a setting, run as the shell user.",
            }
        },
        "required": ["command"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        raw = args.get("command")
        if not isinstance(raw, str):
            return ToolOutcome.error(
                "bad_arguments", f"phone_system_command: `command` must be one string (got {type(raw).__name__})."
            )
        command = raw.strip()
        if not command:
            return ToolOutcome.error("bad_arguments", "phone_system_command: the command is empty.")
        verdict = judge(command)
        if not verdict.runs:
            judge_started = getattr(session.port, "judge_started", None)
            if verdict.code == USE_PHONE_TOOL and judge_started is not None:
                # Not run either way; a line that would have opened a checkout is refused by
                # the payment rule (InputHeld: its code, its event, exit 5 when unattended).
                await judge_started(command)
            return self._refused(verdict.code, verdict.reason, verdict.tool, verdict.command)
        result = await session.port.shell(command, timeout=TIMEOUT_S)
        output = result.output
        if len(output) > OUTPUT_MAX:
            output = output[:OUTPUT_MAX] + f"\n… ({len(result.output) - OUTPUT_MAX} more characters cut)"
        failed = result.exit_code != 0
        session.command_failures = session.command_failures + 1 if failed else 0
        hint = ""
        if session.command_failures >= 2:
            hint = "\nTwo commands in a row failed; the phone tools (phone_tap, phone_type_text, …) may do this better."
        shown = fence(output.rstrip(), {"source": "command"}) if output.strip() else ""
        text = f"exit {result.exit_code}\n{shown}".rstrip() + hint
        return ToolOutcome(
            text=text, ok=not failed, code="command_failed" if failed else "done", data={"exit_code": result.exit_code}
        )

    @staticmethod
    def _refused(code: str, reason: str, tool: str, command: str) -> ToolOutcome:
        shown = command if len(command) <= SHOWN_COMMAND_MAX else command[:SHOWN_COMMAND_MAX] + "…"
        if code == USE_PHONE_TOOL:
            text = (
                f"Not run: {reason}. Use {tool} for this — it checks the screen before and after and asks "
                "before payments, which a raw command can't. Nothing was done."
            )
        else:
            text = f"Not run: {reason} Nothing was done."
        return ToolOutcome.error(code, text, refused_command=shown, tool=tool)
