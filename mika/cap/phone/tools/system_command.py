"""phone_system_command: one shell command on the phone, steered away from what the
phone tools do (seed `CommandSteer`).

Commands that tap, swipe, type, press keys or open apps are what the dedicated tools
are for: the first such command runs but its result says which tool to use; after that
hint, commands of that kind are not run (`use_phone_tool`). Two failures in a row get
the same hint. Sharing text through `am start … SEND` never runs: phone_share_text does
it. Commands that read state or settings are never steered.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from mika.cap.phone.tools.base import PhoneTool
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import ToolOutcome

TIMEOUT_S = 10.0
OUTPUT_MAX = 6000

_KINDS: list[tuple[str, re.Pattern[str], str]] = [
    ("tap", re.compile(r"^input(\s+\w+)?(\s+-d\s+\d+)?\s+(tap|swipe|draganddrop|motionevent|press|roll)\b"),
     "phone_tap / phone_swipe / phone_scroll"),
    ("type", re.compile(r"^input(\s+\w+)?(\s+-d\s+\d+)?\s+text\b|ADB_INPUT_"), "phone_type_text"),
    ("key", re.compile(r"^input(\s+\w+)?(\s+-d\s+\d+)?\s+(keyevent|keycombination)\b"), "phone_press_key / phone_back"),
    ("launch", re.compile(r"^(monkey\s+-p|am\s+start(-activity)?\b(?!.*android\.intent\.action\.SEND))"),
     "phone_launch_app / phone_open_link"),
]
_SHARE = re.compile(r"^am\s+start\b.*android\.intent\.action\.SEND\b")


def command_kind(command: str) -> str | None:
    first = command.strip().split("&&")[0].split(";")[0].strip()
    for kind, pattern, _ in _KINDS:
        if pattern.search(first):
            return kind
    return None


def _tool_for(kind: str) -> str:
    return next(t for k, _, t in _KINDS if k == kind)


class PhoneSystemCommand(PhoneTool):
    name = "phone_system_command"
    changes_screen = True
    parameters = {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "One shell command, run as the shell user."}},
        "required": ["command"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        command = str(args["command"]).strip()
        if not command:
            return ToolOutcome.error("bad_arguments", "phone_system_command: the command is empty.")
        try:
            shlex.split(command)
        except ValueError as exc:
            return ToolOutcome.error("bad_arguments", f"The command can't be parsed ({exc}); check its quotes.")
        if _SHARE.search(command) and "--eu" not in command and "STREAM" not in command:
            return ToolOutcome.error("use_phone_tool", "Sharing text is done with phone_share_text; this command was not run.")
        kind = command_kind(command)
        if kind is not None and kind in session.steered:
            return ToolOutcome.error("use_phone_tool", f"Not run: use {_tool_for(kind)} for this — it checks the "
                                                       "screen before and after, which a raw command can't.")
        result = await session.port.shell(command, timeout=TIMEOUT_S)
        output = result.output
        if len(output) > OUTPUT_MAX:
            output = output[:OUTPUT_MAX] + f"\n… ({len(result.output) - OUTPUT_MAX} more characters cut)"
        failed = result.exit_code != 0
        session.command_failures = session.command_failures + 1 if failed else 0
        hint = ""
        if kind is not None:
            session.steered.add(kind)
            hint = f"\nNext time use {_tool_for(kind)} for this; commands of this kind will not be run again."
        elif session.command_failures >= 2:
            hint = "\nTwo commands in a row failed; the phone tools (phone_tap, phone_type_text, …) may do this better."
        shown = fence(output.rstrip(), {"source": "command"}) if output.strip() else ""
        text = f"exit {result.exit_code}\n{shown}".rstrip() + hint
        return ToolOutcome(text=text, ok=not failed, code="command_failed" if failed else "done",
                           data={"exit_code": result.exit_code})
