"""phone_run: an ordered list of commands that name their targets by what the screen
says (text, description, resource id), never by element numbers.

Each command re-reads the screen and finds its target there, so a button that only
appears after an earlier step is found where it is now, not where something was. A
command runs only if its `if_text` is on screen / its `unless_text` is not. Each one is
sent back through the single action entry as a `do_steps` step would be (BatchRunner,
origin batch): approval, the payment check and records apply to it exactly as to a
direct call. The run stops and hands back to the model, naming the step, the reason and
the screen now, when a target is missing or matches several elements, or when another
app comes to the front that no `launch` (or `expect_app`) asked for.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mika.action.origin import Origin
from mika.agent.batch import BatchResult, BatchRunner, BatchStep, Performed
from mika.cap.phone.fenced import unseen_steps
from mika.cap.phone.tools.base import PhoneTool, quoted
from mika.model.messages import ToolCall
from mika.observe.untrusted import defuse
from mika.tool.context import ToolContext
from mika.tool.declaration import AgentTool, ToolOutcome
from mika.uistate import Element, Screen

MAX_COMMANDS = 20
# action → (the tool that does it, whether it needs a target, whether a target is allowed)
ACTIONS: dict[str, tuple[str, bool, bool]] = {
    "tap": ("phone_tap", True, True),
    "long_press": ("phone_long_press", True, True),
    "type": ("phone_type_text", False, True),
    "clear": ("phone_clear_text", False, True),
    "scroll": ("phone_scroll", False, False),
    "press_key": ("phone_press_key", False, False),
    "back": ("phone_back", False, False),
    "wait_for": ("phone_wait", False, False),
    "launch": ("phone_launch_app", False, False),
}
TARGET_KEYS = ("text", "desc", "id")

_WHY = {
    "missing_target": "its target is not on the screen",
    "ambiguous_target": "its target matches several elements; name it more precisely (e.g. by id)",
    "app_switch": "another app came to the front",
    "failed": "it failed",
    "no_effect": "it had no visible effect, so it probably did not happen",
    "timeout": "the text it waited for did not show in time",
    "dialog": "a dialog came up while it waited",
    "skipped_for_new_message": "the user sent a new message; read it and decide again",
}


class RunSpecError(ValueError):
    """Commands phone_run can't use; the message names the command and the field."""


@dataclass(frozen=True)
class Command:
    action: str
    target: dict[str, str]
    args: dict[str, Any]
    if_text: str | None = None
    unless_text: str | None = None
    expect_app: str | None = None
    optional: bool = False

    def describe(self) -> str:
        what = ", ".join(f"{k}={defuse(v)!r}" for k, v in self.target.items())
        extra = self.args.get("text") if self.action == "wait_for" else self.args.get("app") or self.args.get("key")
        return f"{self.action}" + (f" {what}" if what else "") + (f" {defuse(str(extra))!r}" if extra else "")


def parse_commands(raw: Any) -> list[Command]:
    if not isinstance(raw, list) or not raw:
        raise RunSpecError("phone_run needs 'commands': a list of 1 to 20 commands.")
    if len(raw) > MAX_COMMANDS:
        raise RunSpecError(f"phone_run takes at most {MAX_COMMANDS} commands; got {len(raw)}. Split the work.")
    out = []
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise RunSpecError(f'command {i}: each command is an object like {{"action": "tap", "text": "Send"}}.')
        action = item.get("action")
        if action not in ACTIONS:
            raise RunSpecError(f"command {i}: 'action' must be one of {', '.join(ACTIONS)}; got {action!r}.")
        _, needs, allows = ACTIONS[action]
        if "element" in item or "x" in item:
            raise RunSpecError(
                f"command {i}: phone_run finds targets by text, desc or id, not by element number or point; "
                "use do_steps for numbers."
            )
        target = {k: item[k] for k in TARGET_KEYS if item.get(k) not in (None, "")}
        for k, v in target.items():
            if not isinstance(v, str):
                raise RunSpecError(f"command {i}: '{k}' must be a string.")
        if action == "wait_for":
            if not isinstance(item.get("text"), str) or not item["text"]:
                raise RunSpecError(f"command {i}: wait_for needs 'text', the text to wait for.")
            target = {}
        elif needs and not target:
            raise RunSpecError(f"command {i}: {action} needs its target as 'text', 'desc' or 'id'.")
        elif target and not allows:
            raise RunSpecError(f"command {i}: {action} takes no target; drop {', '.join(target)}.")
        args = _tool_args(i, action, item)
        for k in ("if_text", "unless_text", "expect_app"):
            if item.get(k) is not None and not isinstance(item.get(k), str):
                raise RunSpecError(f"command {i}: '{k}' must be a string.")
        optional = item.get("optional", False)
        if not isinstance(optional, bool):
            raise RunSpecError(f"command {i}: 'optional' must be true or false.")
        out.append(
            Command(
                action,
                target,
                args,
                item.get("if_text") or None,
                item.get("unless_text") or None,
                item.get("expect_app") or None,
                optional,
            )
        )
    return out


def _tool_args(i: int, action: str, item: dict[str, Any]) -> dict[str, Any]:
    if action == "type":
        if not isinstance(item.get("value"), str):
            raise RunSpecError(f"command {i}: type needs 'value', the text to type.")
        return {"text": item["value"], **({"submit": True} if item.get("submit") else {})}
    if action == "press_key":
        if not isinstance(item.get("key"), str) or not item["key"]:
            raise RunSpecError(f"command {i}: press_key needs 'key', e.g. \"ENTER\".")
        return {"key": item["key"]}
    if action == "launch":
        if not isinstance(item.get("app"), str) or not item["app"]:
            raise RunSpecError(f"command {i}: launch needs 'app', the app's name or package.")
        return {"app": item["app"]}
    if action == "scroll":
        args: dict[str, Any] = {"direction": item.get("direction") or "down"}
        if item.get("find"):
            args["find"] = str(item["find"])
        return args
    if action == "wait_for":
        return {"text": item["text"], "timeout_s": item.get("timeout_s") or 8}
    return {}


def _fold(s: str) -> str:
    return " ".join(s.split()).casefold()


def _values(el: Element, key: str) -> list[str]:
    node = el.node
    if key == "id":
        return [node.resource_id] if node.resource_id else []
    if key == "desc":
        return [v for v in (node.content_desc,) if v]
    # text: what the element says, its description, or an empty field's hint
    return [v for v in (el.label, node.safe_text, node.content_desc, node.hint) if v]


def _id_matches(value: str, want: str) -> bool:
    return value == want or value.endswith("/" + want)


def locate(screen: Screen, target: dict[str, str], *, editable: bool = False) -> list[Element]:
    """The elements this target names on the screen: exact matches if any, else ones that
    contain the words; then, of several, the ones that can take the action."""
    candidates = list(screen.elements)
    for key, want in target.items():
        if key == "id":
            candidates = [e for e in candidates if any(_id_matches(v, want) for v in _values(e, "id"))]
            continue
        exact = [e for e in candidates if any(_fold(v) == _fold(want) for v in _values(e, key))]
        candidates = exact or [e for e in candidates if any(_fold(want) in _fold(v) for v in _values(e, key))]
    if len(candidates) > 1:
        able = [e for e in candidates if (e.node.editable if editable else e.actionable)]
        candidates = able or candidates
    # One control read twice (a row and the text in it at the same place) is one target.
    unique: dict[tuple[int, int, int, int], Element] = {}
    for e in candidates:
        b = e.bounds
        unique.setdefault((b.left, b.top, b.right, b.bottom), e)
    return list(unique.values())


def _has_text(screen: Screen, text: str) -> bool:
    want = _fold(text)
    return any(want in _fold(t) for t in screen.texts())


class PhoneRun(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_run"
    changes_screen = True
    # Like do_steps: the action entry's dwell is per command, not for the run itself.
    composite = True
    parameters = {
        "type": "object",
        "properties": {
            "commands": {
                "type": "array",
                "description": "1 to 20 commands, in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "action": {"type": "string", "enum": list(ACTIONS)},
                        "text": {
                            "type": "string",
                            "description": "Target by its text (or the text wait_for waits for).",
                        },
                        "desc": {"type": "string", "description": "Target by its content description."},
                        "id": {"type": "string", "description": "Target by resource id, e.g. send_button."},
                        "value": {"type": "string", "description": "type: the text to type."},
                        "submit": {"type": "boolean", "description": "type: press Enter afterwards."},
                        "key": {"type": "string", "description": "press_key: e.g. ENTER."},
                        "app": {"type": "string", "description": "launch: the app."},
                        "direction": {"type": "string", "description": "scroll: up, down, left, right."},
                        "find": {"type": "string", "description": "scroll: keep scrolling until this text shows."},
                        "timeout_s": {"type": "number", "description": "wait_for: default 8, at most 20."},
                        "if_text": {
                            "type": "string",
                            "description": "Run this command only if this text is on screen.",
                        },
                        "unless_text": {
                            "type": "string",
                            "description": "Skip this command if this text is on screen.",
                        },
                        "expect_app": {
                            "type": "string",
                            "description": "This command is meant to bring this package to the front.",
                        },
                        "optional": {
                            "type": "boolean",
                            "description": "It may change nothing (no_effect does not stop the run).",
                        },
                    },
                    "required": ["action"],
                },
            }
        },
        "required": ["commands"],
    }

    def __init__(self, tools: Mapping[str, AgentTool]) -> None:
        self._tools = tools

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        if ctx.perform is None:
            return ToolOutcome.error(
                "unavailable", "phone_run can't run here: there is no action entry to send steps through."
            )
        try:
            commands = parse_commands(args.get("commands"))
        except RunSpecError as exc:
            return ToolOutcome.error("bad_arguments", str(exc))
        missing = sorted({ACTIONS[c.action][0] for c in commands} - set(self._tools))
        if missing:
            return ToolOutcome.error("unavailable", f"phone_run can't use {', '.join(missing)} in this run.")
        session = self.session(ctx)
        start = await session.reader.read()
        baseline = {"package": start.foreground_package}
        run_id = secrets.token_hex(3)
        # The model reads only what the whole batch hands back: no step's listing is a delta's base.
        perform = unseen_steps(ctx.perform, session.reader)
        # Which command each BatchStep is (the runner only sees tool names and args).
        by_index = dict(enumerate(commands, 1))
        stops: dict[int, str] = {}

        async def run_step(index: int, step: BatchStep) -> Performed:
            command = by_index[index]
            screen = await session.reader.read()
            if command.if_text and not _has_text(screen, command.if_text):
                return True, "skipped", f"skipped: {defuse(command.if_text)!r} is not on the screen", 0, {}
            if command.unless_text and _has_text(screen, command.unless_text):
                return True, "skipped", f"skipped: {defuse(command.unless_text)!r} is on the screen", 0, {}
            tool, _, _ = ACTIONS[command.action]
            call_args = dict(step.args)
            if command.action == "wait_for":
                call_args = {"expect": call_args["text"], "timeout_s": call_args["timeout_s"]}
            if command.target:
                found = locate(screen, command.target, editable=command.action in ("type", "clear"))
                if not found:
                    stops[index] = "missing_target"
                    return False, "target_missing", f"no element matches {command.describe()}", 0, {}
                if len(found) > 1:
                    stops[index] = "ambiguous_target"
                    names = "; ".join(f"{e.role} {quoted(e.label, e.package)}" for e in found[:6])
                    return False, "target_ambiguous", f"{len(found)} elements match: {names}", 0, {}
                # The number is the one this fresh read gave it: the entry checks it against
                # this very screen, so nothing older is reused.
                session.reader.mark_shown(screen)
                call_args["element"] = found[0].number
            out = await perform(ToolCall(f"run-{run_id}-{index}", tool, call_args), ctx, Origin.BATCH)
            if out.code == "stale_element" and command.target:
                # The screen moved between our read and the entry's (a toast went away):
                # find the target once more on the screen as it is now.
                screen = await session.reader.read()
                found = locate(screen, command.target, editable=command.action in ("type", "clear"))
                if len(found) != 1:
                    stops[index] = "missing_target" if not found else "ambiguous_target"
                    return False, "target_missing" if not found else "target_ambiguous", out.text, 0, {}
                session.reader.mark_shown(screen)
                call_args["element"] = found[0].number
                out = await perform(ToolCall(f"run-{run_id}-{index}b", tool, call_args), ctx, Origin.BATCH)
            if command.action == "wait_for" and not out.ok and str(out.code).startswith("wait_"):
                why = str(out.code)[len("wait_") :]
                stops[index] = {"app_changed": "app_switch", "new_message": "skipped_for_new_message"}.get(why, why)
            data = dict(out.data)
            if out.effect and "effect" not in data:
                data["effect"] = out.effect
            return out.ok, out.code, out.text, out.wait_ms, data

        async def interrupted(step: BatchStep, data: dict[str, Any]) -> str | None:
            index = next(i for i, s in steps_by_index.items() if s is step)
            command = by_index[index]
            screen = session.reader.current or await session.reader.read()
            if command.action == "launch" or command.expect_app:
                baseline["package"] = screen.foreground_package
                return None
            if screen.foreground_package and screen.foreground_package != baseline["package"]:
                return "app_switch"
            return None

        steps = [BatchStep(ACTIONS[c.action][0], dict(c.args), None, c.optional) for c in commands]
        steps_by_index = dict(enumerate(steps, 1))
        runner = BatchRunner(run_step, steer_signal=ctx.inbox.steer_signal, interrupted=interrupted)
        result = await runner.run(steps)
        return self._outcome(result, commands, stops)

    @staticmethod
    def _outcome(result: BatchResult, commands: list[Command], stops: dict[int, str]) -> ToolOutcome:
        reason = result.stopped
        last = result.steps[-1] if result.steps else None
        if reason == "failed" and last is not None and last.index in stops:
            reason = stops[last.index]
        waited = sum(r.wait_ms for r in result.steps)  # the commands' own waits, for the record
        lines = []
        for r in result.steps:
            c = commands[r.index - 1]
            mark = "skipped" if r.code == "skipped" else ("ok" if r.ok else f"failed ({r.code})")
            if r.effect:
                mark += f" · {r.effect}"
            lines.append(f"{r.index}. {c.describe()}: {mark} — {r.text.split(chr(10), 1)[0]}")
        data: dict[str, Any] = {
            "steps": [{**r.as_dict(), "action": commands[r.index - 1].action} for r in result.steps],
            "stopped": reason,
            "stopped_at": last.index if last is not None and reason else None,
            "skipped": list(result.skipped),
        }
        if reason is None:
            lines.append(f"All {result.total} commands done.")
            return ToolOutcome(text="\n".join(lines), data=data, wait_ms=waited)
        why = _WHY.get(reason, reason)
        where = f"command {last.index} ({commands[last.index - 1].describe()})" if last is not None else "command 1"
        rest = f" Commands {', '.join(map(str, result.skipped))} were not done." if result.skipped else ""
        lines.append(f"Stopped at {where}: {why}.{rest}")
        if reason == "skipped_for_new_message":
            return ToolOutcome(
                text="\n".join(lines), ok=True, code="skipped_for_new_message", data=data, wait_ms=waited
            )
        # The screen as it is now follows: the phone's surface attaches the fresh listing
        # to every call that changes the screen, this one included.
        lines.append("The screen now is below.")
        code = last.code if last is not None and reason == "failed" else f"stopped_{reason}"
        return ToolOutcome(text="\n".join(lines), ok=False, code=code, data=data, wait_ms=waited)
