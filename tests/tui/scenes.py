"""Ways to bring the app into each state a snapshot shows (used as `run_before`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mika.model.testing import Reply, ScriptedModel
from tests.tui.conftest import FIXED_NOW, settle, until

CHECKOUT = "Checkout · 1 coffee beans · Total ¥23.50 · Place order"


async def type_task(pilot, text: str) -> None:
    pilot.app.screen.query_one("#prompt").focus()
    await pilot.press(*text)
    await pilot.press("enter")


def view(pilot):
    views = list(pilot.app.main_screen.views.values())
    return views[-1] if views else None


async def run_to_end(pilot, text: str) -> None:
    await settle(pilot)
    await type_task(pilot, text)
    await until(lambda: view(pilot) is not None and not view(pilot).running)
    await until(lambda: pilot.app.center.state().running == ())
    # The turn is drawn to its end: the folded "N steps · time · view run" line is there.
    await until(lambda: len(pilot.app.main_screen.query(".summary")) > 0)
    await settle(pilot)


async def run_to_card(pilot, text: str, kind: str) -> None:
    await settle(pilot)
    await type_task(pilot, text)
    await until(lambda: view(pilot) is not None and view(pilot).card is not None and view(pilot).card.kind == kind)
    await until(lambda: len(pilot.app.screen.query(".card")) > 0)
    await settle(pilot)


async def run_to_hold(pilot, text: str, model) -> None:
    await settle(pilot)
    await type_task(pilot, text)
    await until(lambda: model.streaming)
    await until(lambda: "".join(model.pieces) in (view(pilot).streamed if view(pilot) else "") or not model.pieces)
    await asyncio.sleep(0.1)
    await settle(pilot)


def approval_model() -> ScriptedModel:
    return ScriptedModel(
        [
            Reply.call("toy_open", page=CHECKOUT),
            Reply.call("toy_tap", label="Place order"),
            Reply.call("request_confirmation", what="1 coffee beans", amount="¥23.50", app="com.toy.shop"),
            Reply.call("toy_tap", label="Place order"),
            Reply.call("toy_tap", label="Place order"),
            "Ordered 1 coffee beans for ¥23.50.",
        ]
    )


def write_usage(state: Path) -> None:
    """A usage ledger with a week of calls to two providers, through the real ledger."""
    from mika.model.messages import Usage
    from mika.usage.ledger import UsageLedger

    ledger = UsageLedger(state / "usage-v1.json", clock=lambda: FIXED_NOW)
    for day in range(7):
        at = FIXED_NOW - day * 86400 - 3600
        ledger.record(
            "deepseek",
            "deepseek-chat",
            "main",
            Usage(input_tokens=12000 + day * 3000, output_tokens=900, cached_input_tokens=4000),
            at=at,
        )
        if day % 2 == 0:
            ledger.record("qwen", "qwen-vl-max", "vision", Usage(input_tokens=6000, output_tokens=300), at=at)
    ledger.record("deepseek", "deepseek-chat", "light", Usage(input_tokens=800, output_tokens=60), at=FIXED_NOW - 600)
    ledger.close()


def write_run_record(state: Path, frame: bytes) -> str:
    """A run record as the recorder lays it out (run.json, events.jsonl, frames/)."""
    run_id = "r-0a1b2c"
    run_dir = state / "runs" / f"20261130-110000-{run_id}"
    (run_dir / "frames").mkdir(parents=True)
    (run_dir / "frames" / "frame-0001-s1.png").write_bytes(frame)
    summary = {
        "id": run_id,
        "goal": "turn on dark mode",
        "state": "ended",
        "outcome": "answered",
        "started_at": FIXED_NOW - 3600,
        "metrics": {"steps": 3, "total_ms": 72000},
    }
    (run_dir / "run.json").write_text(json.dumps(summary))
    t = FIXED_NOW - 3600
    events = [
        {
            "type": "run_started",
            "run_id": run_id,
            "goal": "turn on dark mode",
            "origin": "ui",
            "attendance": "present",
            "at": t,
        },
        {
            "type": "tool_call",
            "run_id": run_id,
            "call_id": "c1",
            "name": "open_app",
            "arguments": {"app": "Settings"},
            "at": t + 1,
        },
        {
            "type": "tool_result",
            "run_id": run_id,
            "call_id": "c1",
            "name": "open_app",
            "ok": True,
            "effect": "place_changed",
            "duration_ms": 1400,
            "frame": "frame-0001-s1.png",
            "at": t + 3,
        },
        {
            "type": "tool_call",
            "run_id": run_id,
            "call_id": "c2",
            "name": "tap",
            "arguments": {"label": "Display"},
            "at": t + 4,
        },
        {
            "type": "tool_result",
            "run_id": run_id,
            "call_id": "c2",
            "name": "tap",
            "ok": False,
            "code": "stale_element",
            "text": "Element 7 is from an older screen; read the screen again.",
            "duration_ms": 300,
            "at": t + 5,
        },
        {
            "type": "tool_call",
            "run_id": run_id,
            "call_id": "c3",
            "name": "tap",
            "arguments": {"label": "Dark theme"},
            "at": t + 6,
        },
        {
            "type": "tool_result",
            "run_id": run_id,
            "call_id": "c3",
            "name": "tap",
            "ok": True,
            "effect": "done",
            "duration_ms": 500,
            "wait_ms": 1200,
            "at": t + 8,
        },
        {
            "type": "outcome",
            "run_id": run_id,
            "status": "answered",
            "answer": "Dark mode is on.",
            "steps": 3,
            "at": t + 72,
        },
    ]
    (run_dir / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return run_id
