"""A run's history as the agent builds it, for request-building tests and the adapter benchmark.

Every step is the model's reply (reasoning from this address, a short note, one tool call
with its argument text as streamed) and the tool's result (a screen listing of about a
kilobyte, Chinese and English, as the phone tools return) with the runtime line. Every
fifth step has a screenshot, every seventh result a picture of its own and an error, and
the opening turn the user's own picture, so each kind of part each adapter converts is in
it. `as_sent` makes a request the way the agent's context does (older screenshots as a
line of text, rebuilt for every request).
"""

from __future__ import annotations

import json

from adapters_kit import WEATHER

from mika.agent.history import only_last_image
from mika.model.messages import Image, Message, ModelRequest, Part, Text, Thinking, ToolCall, ToolResult, ToolSpec

TAP = ToolSpec(
    "tap",
    "Tap an element of the current screen by its number",
    {
        "type": "object",
        "properties": {"element": {"type": "integer"}, "observation": {"type": "string"}},
        "required": ["element"],
        "additionalProperties": False,
    },
)
TOOLS = (TAP, WEATHER)

# A small real PNG header plus padding: the bytes only need to be stable, not a picture.
_PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 24


def _listing(step: int) -> str:
    rows = [f"screen v{step} · 设置 Settings (com.android.settings) · portrait"]
    for n in range(1, 17):
        rows.append(
            f"[{n}] 按钮 “Wi‑Fi 网络 {step}-{n}” clickable bounds=({n * 10},{n * 60},{n * 10 + 700},{n * 60 + 48})"
        )
    return "\n".join(rows)


def history(messages: int, origin: str) -> tuple[Message, ...]:
    """`messages` neutral messages (at least 1): the task, then steps of reply + result.
    `origin` is the endpoint's, so its reasoning is sent back."""
    out: list[Message] = [
        Message("user", (Text("打开设置，把 Wi‑Fi 关掉，然后告诉我天气。"), Image(_PNG, ref="obs-0")))
    ]
    step = 0
    while len(out) < messages:
        step += 1
        call_id = f"call_{step:04d}"
        arguments = {"element": step % 16 + 1, "observation": f"v{step}"}
        thought = f"第 {step} 步：the switch is element {step % 16 + 1}."
        out.append(
            Message(
                "assistant",
                (
                    # One reasoning part per wire's field; each adapter sends back its own.
                    Thinking(thought, origin=origin, field="reasoning_content"),
                    Thinking(thought, origin=origin, field="thinking", signature=f"sig-{step}"),
                    Thinking(thought, origin=origin, field="encrypted", data=f"enc-{step}"),
                    Text(f"Tapping element {step % 16 + 1}."),
                    ToolCall(
                        call_id,
                        "tap",
                        arguments,
                        raw_arguments=json.dumps(arguments),
                        provider_data={"thoughtSignature": f"ts-{step}", "origin": origin},
                    ),
                ),
            )
        )
        if len(out) >= messages:
            break
        # As the loop adds it: the results, this step's screenshot (every fifth step), the
        # runtime line. A result's own picture (every seventh) is the other way images come.
        own = Image(_PNG + bytes([step % 256]), ref=f"tool-{step}") if step % 7 == 0 else None
        parts: list[Part] = [ToolResult(call_id, "tap", _listing(step), image=own, is_error=step % 7 == 0)]
        if step % 5 == 0:
            parts.append(Image(_PNG + bytes([step % 256]), ref=f"obs-{step}"))
        parts.append(Text(f"[step {step} · on Settings · local time 2026-12-02 02:{step % 60:02d} Wed]"))
        out.append(Message("user", tuple(parts)))
    return tuple(out)


SYSTEM = "You operate an Android phone. 你在操作一部安卓手机。"


def as_sent(messages: tuple[Message, ...] | list[Message], **kw: object) -> ModelRequest:
    """The request the agent's context builds from these history messages."""
    settings: dict[str, object] = {"tools": TOOLS, "cache_marks": (0,), **kw}
    return ModelRequest(SYSTEM, tuple(only_last_image(list(messages))), **settings)  # type: ignore[arg-type]


def long_request(messages: int, origin: str, **kw: object) -> ModelRequest:
    settings: dict[str, object] = {"tools": TOOLS, "cache_marks": (0,), **kw}
    return ModelRequest(SYSTEM, history(messages, origin), **settings)  # type: ignore[arg-type]
