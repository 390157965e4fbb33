"""`mika mcp` over stdio, driven by the SDK's own client: initialize, the tool list, a
whole task with progress per step, its record as a resource, the screen resource, and a
cancel mid-run that stops the run cleanly."""

from __future__ import annotations

import json
import time

import anyio

from tests.mcp_server.mcp_client import run_record, script, stdio_mika

DARK_MODE = [
    {"text": "Opening Settings.", "tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Settings"}}]},
    {"tool_calls": [{"name": "phone_tap", "arguments": {"element": 11}}]},
    {"tool_calls": [{"name": "phone_tap", "arguments": {"element": 7}}]},
    "Dark theme is on now (Settings › Display › Dark theme).",
]


async def test_run_task_over_stdio_reports_each_step_and_its_record(tmp_path, adb_server):
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async with stdio_mika(tmp_path, "--device", "sim", "--model", script(tmp_path, DARK_MODE)) as client:
        assert client.server_info is not None and client.server_info.name == "mika"
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"run_task", "phone_observe", "phone_tap", "phone_type_text", "phone_screenshot"} <= names
        assert "do_steps" not in names  # batches stay the model's

        result = await client.call_tool("run_task", {"goal": "turn on dark mode"}, progress_callback=on_progress)
        data = result.structured_content
        assert not result.is_error, result.content
        assert data["outcome"] == "answered" and data["answer"].startswith("Dark theme is on")
        assert data["not_paid"] is False and data["steps"] == 4
        assert data["run_id"] in result.content[0].text
        # One progress notification per tool step, in order, naming the tool.
        messages = [m for _, m in progress]
        assert [v for v, _ in progress] == [1, 2, 3]
        assert "phone_launch_app" in messages[0] and "phone_tap" in messages[1]

        record = await client.read_resource(f"mika://runs/{data['run_id']}")
        body = json.loads(record.contents[0].text)
        assert body["run"]["outcome"] == "answered" and body["run"]["origin"] == "mcp"
        assert [e["name"] for e in body["events"] if e["type"] == "tool_call"] == [
            "phone_launch_app",
            "phone_tap",
            "phone_tap",
        ]

        # The client's own phone calls work on the main screen; the screen resource lists it.
        opened = await client.call_tool("phone_launch_app", {"app": "Settings"})
        assert not opened.is_error, opened.content
        screen = await client.read_resource("mika://screen")
        assert "Display" in screen.contents[0].text and "Screen v" in screen.contents[0].text

        missing = await client.call_tool("run_task", {"goal": "x", "conversation_id": "nope"})
        assert missing.is_error and "no conversation 'nope'" in missing.content[0].text.lower()
        odd = await client.call_tool("run_task", {"goal": "x", "conversation_id": "../../etc"})
        assert odd.is_error and odd.structured_content["code"] == "unknown_conversation"
        nogoal = await client.call_tool("run_task", {"goal": "  "})
        assert nogoal.is_error and "needs 'goal'" in nogoal.content[0].text


async def test_a_cancelled_call_stops_the_run_and_closes_its_record(tmp_path, adb_server):
    slow = [
        {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "Settings"}}]},
        {"delay": 30, "text": "thinking for a long time", "tool_calls": [{"name": "phone_back", "arguments": {}}]},
        "never reached",
    ]
    first_step = anyio.Event()

    async def on_progress(value, total, message):
        first_step.set()

    async with stdio_mika(tmp_path, "--device", "sim", "--model", script(tmp_path, slow)) as client:
        started = time.monotonic()
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                await client.call_tool("run_task", {"goal": "open settings slowly"}, progress_callback=on_progress)

            tg.start_soon(call)
            with anyio.fail_after(30):
                await first_step.wait()
            tg.cancel_scope.cancel()  # the SDK sends notifications/cancelled for the call
        # The server stopped the run: its record is closed as stopped, long before the
        # scripted 30 s delay would have ended.
        runs = tmp_path / "state" / "runs"
        with anyio.fail_after(20):
            while True:
                folders = list(runs.iterdir()) if runs.is_dir() else []
                summaries = [json.loads((f / "run.json").read_text()) for f in folders]
                done = [s for s in summaries if s.get("state") == "ended" and s.get("goal") == "open settings slowly"]
                if done:
                    break
                await anyio.sleep(0.2)
        assert done[0]["outcome"] == "stopped"
        assert time.monotonic() - started < 25
        # The server is still serving after the cancel.
        assert (await client.list_tools()).tools
        assert run_record(tmp_path, done[0]["id"])["outcome"] == "stopped"
