"""web_evaluate_js: a read-only script in the page's isolated world.

Writes, clicks, navigation and the network are blocked there (seed §6 只读脚本); a script
that tries is stopped and the result says which (`blocked`, `blocked_network`). What it
returns is the page's data, fenced."""

from __future__ import annotations

import json
from typing import Any

from mika.cap.web.fenced import text_observation
from mika.cap.web.port import WebError
from mika.cap.web.tools.base import WebTool
from mika.tool.context import ToolContext
from mika.tool.declaration import Risk, ToolOutcome

RESULT_MAX = 8000
TIMEOUT_S = 5.0
_WHY = {
    "blocked": "The script tried to change the page (write, click or navigate); web_evaluate_js only reads. "
    "Act with web_tap / web_type_text instead.",
    "blocked_network": "The script tried to use the network; web_evaluate_js may not. Read what the page "
    "already shows.",
}


class WebEvaluateJs(WebTool):
    name = "web_evaluate_js"
    risk = Risk.READ
    parameters = {
        "type": "object",
        "properties": {
            "script": {"type": "string", "description": "A JavaScript expression or function body that returns JSON."},
            "timeout_s": {"type": "number", "description": f"Default {TIMEOUT_S:g}."},
        },
        "required": ["script"],
    }

    async def act(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        session = self.session(ctx)
        timeout = max(0.5, min(float(args.get("timeout_s") or TIMEOUT_S), 30.0))
        try:
            value = await session.port.evaluate_readonly(str(args["script"]), timeout_s=timeout)
        except WebError as exc:
            why = _WHY.get(exc.code, "")
            return ToolOutcome.error(exc.code, " ".join(p for p in (str(exc), why) if p))
        text = json.dumps(value, ensure_ascii=False, default=str)
        cut = len(text) > RESULT_MAX
        read = session.reader.last
        obs = text_observation(
            text[:RESULT_MAX],
            read,
            ctx.step,
            head="The script returned" + (f" (cut to {RESULT_MAX} characters)" if cut else "") + ":",
            title="script result",
        )
        return ToolOutcome(text=obs.text, observations=(obs,), data={"cut": cut})
