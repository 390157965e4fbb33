"""phone_diagnose: why the last touch did nothing, read off the screen as it is now."""

from __future__ import annotations

from typing import Any

from mika.cap.phone.adb.parse.input_method import parse_input_shown
from mika.cap.phone.diagnosis import diagnose
from mika.cap.phone.tools.base import (
    ELEMENT_OR_POINT,
    PhoneTool,
    current_screen,
    resolve_element,
    screen_point,
    stale_outcome,
)
from mika.observe.untrusted import fence
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome
from mika.tool.errors import BadArguments
from mika.uistate.elements import Element
from mika.uistate.errors import StaleElement, UnknownElement


class PhoneDiagnose(PhoneTool):
    group = "phone_more"  # the less common tools: listed by phone_more until opened
    name = "phone_diagnose"
    risk = Risk.READ
    batchable = False
    parameters = {"type": "object", "properties": dict(ELEMENT_OR_POINT)}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        element: Element | None
        if args.get("element") is not None:
            await current_screen(session)
            try:
                element = resolve_element(session, int(args["element"]))
            except (StaleElement, UnknownElement) as exc:
                return stale_outcome(exc, session)
            point = element.centre
            aimed = "element " + str(args["element"])
        elif args.get("x") is not None or args.get("y") is not None:
            if args.get("x") is None or args.get("y") is None:
                return ToolOutcome.error("bad_arguments", "phone_diagnose: give both x and y, or an element number.")
            try:
                point = screen_point(args, session, self.name) or (0, 0)
            except BadArguments as exc:
                return ToolOutcome.error("bad_arguments", str(exc))
            shown = session.reader.current
            element = shown.element_at(*point) if shown is not None else None
            aimed = f"the point {point[0]},{point[1]}"
        elif session.last_target is not None:
            tool, x, y, element = session.last_target
            point = (x, y)
            aimed = f"the last {tool.removeprefix('phone_')} (at {x},{y})"
        else:
            return ToolOutcome.error(
                "nothing_to_diagnose",
                "Nothing was touched yet in this run: give the element number (or x and y) that did not react.",
            )
        ime = await session.port.shell("dumpsys input_method")
        ime_shown = parse_input_shown(ime.output) if ime.exit_code == 0 else None
        screen = await session.reader.read()
        findings = diagnose(
            screen,
            (int(point[0]), int(point[1])),
            element,
            ime_shown=ime_shown,
            quote=lambda text: fence(text, {"source": "screen"}, block=False),
        )
        data = {"findings": [f.as_dict() for f in findings], "point": [int(point[0]), int(point[1])]}
        if not findings:
            return ToolOutcome(
                text=f"Nothing on the screen explains why {aimed} did nothing: it is shown, enabled, takes taps "
                "and nothing lies over it. The app may be slow (phone_wait, then read again) or need another "
                "gesture (a long press).",
                data=data,
            )
        lines = [f"{i}. [{f.cause}] {f.what} Next: {f.do}" for i, f in enumerate(findings, 1)]
        return ToolOutcome(
            text=f"Why {aimed} did nothing, most likely first:\n" + "\n".join(lines),
            data=data,
        )
