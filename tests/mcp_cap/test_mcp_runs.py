"""Runs with MCP servers: TaskRun + a scripted model + the MCP capability that the assembly's
run environment builds from `[mcp.servers.*]`, against a real MCP server (the SDK's own
server API) over stdio and over streamable HTTP on loopback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.assembly.mcp import mcp_opener
from mika.config.mcp_servers import McpServerConfig
from mika.config.settings import Settings
from mika.model.retry import RetryPolicy
from mika.model.testing import Reply, ScriptedModel, last_tool_results
from mika.record.redactor import Redactor
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.mcp_cap.conftest import process_gone, stdio_config

RISKS = {
    "mcp_fx_lookup": "read",
    "mcp_fx_delete_item": "write",
    "mcp_fx_send_note": "external",
    "mcp_fx_plain_echo": "write",
    "mcp_fx_picture": "read",
    "mcp_fx_news": "read",
}


def make_run(
    tmp_path: Path,
    servers: list[McpServerConfig],
    replies: list,
    *,
    read_only: bool = False,
    attendance: Attendance = Attendance.UNATTENDED,
) -> tuple[TaskRun, ScriptedModel]:
    redactor = Redactor()
    settings = Settings(mcp_servers=tuple(servers))
    spec = RunSpec(
        goal="use the dictionary",
        provenance=RunProvenance(RunOrigin.CLI, attendance),
        conversation_id="c-mcp",
        read_only=read_only,
    )
    env = RunEnvironment(mcp=mcp_opener(settings, redact=redactor.add_secret))
    caps = capabilities_for(spec, env)
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path,
        redactor=redactor,
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0),
    )
    model = ScriptedModel(replies)
    return TaskRun(spec, model, caps, opts), model


def record(run: TaskRun) -> list[dict]:
    assert run.result is not None
    d = Path(run.result.record_dir)
    return [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines()]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def record_files(folder: Path) -> dict[str, str]:
    return {str(f.relative_to(folder)): f.read_text(errors="replace") for f in folder.rglob("*") if f.is_file()}


def exists(path: Path) -> bool:
    return path.exists()


def after_fence(text: str) -> str:
    """What follows the fence: Mika's own pointer to the observation, nothing of the server's."""
    tail = text.rsplit("</untrusted>", 1)[1].strip()
    assert tail.startswith("[observation o") and tail.endswith("]"), tail
    return tail


def offered(model: ScriptedModel, i: int = 0) -> list[str]:
    return [t.name for t in model.requests[i].tools]


class TestToolsInARun:
    async def test_stdio_tools_appear_with_their_risk_and_a_read_returns_fenced(self, tmp_path):
        run, model = make_run(
            tmp_path, [stdio_config()], [Reply.call("mcp_fx_lookup", word="alpha"), "alpha means first letter."]
        )
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, result.answer
        names = offered(model)
        for name in RISKS:
            assert name in names
        tools = {t.name: t for t in run.capabilities[-1].tools()}
        assert {n: tools[n].risk.value for n in RISKS} == RISKS
        text = last_tool_results(model.requests[1])[0]
        assert '<untrusted source="mcp" server="fx" tool="lookup">' in text
        assert "first letter" in text.split("<untrusted", 1)[1]
        after_fence(text)
        assert "Structured content" not in text  # {"result": …} repeats the text: said once
        called = of_type(record(run), "tool_call")[0]
        assert called["risk"] == "read" and called["capability"] == "mcp"

    async def test_http_tools_work_the_same(self, tmp_path, http_url):
        server = McpServerConfig(name="web1", url=http_url, start_timeout_s=30)
        run, model = make_run(
            tmp_path,
            [server],
            [Reply.call("mcp_web1_delete_item", word="beta"), Reply.call("mcp_web1_stats"), "Deleted."],
        )
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED, result.answer
        assert "mcp_web1_lookup" in offered(model)
        deleted = last_tool_results(model.requests[1])[0]
        assert "deleted beta" in deleted
        called = of_type(record(run), "tool_call")
        assert called[0]["risk"] == "write"
        stats = last_tool_results(model.requests[2])[0]
        # Structured content the SDK also sent as text is said once, inside the fence.
        assert '"words": 1' in stats and "Structured content" not in stats

    async def test_an_image_is_attached_and_named_inside_the_fence(self, tmp_path):
        run, model = make_run(tmp_path, [stdio_config()], [Reply.call("mcp_fx_picture"), "A red square."])
        await run.run()
        results = model.requests[1].messages[-1].tool_results
        assert "[image image/png" in results[0].text and "attached" in results[0].text
        images = [p for m in model.requests[1].messages for p in m.parts if type(p).__name__ == "Image"]
        images += [r.image for r in results if getattr(r, "image", None) is not None]
        assert images and images[0].data.startswith(b"\x89PNG")

    async def test_a_read_only_run_gets_only_the_read_tools(self, tmp_path):
        run, model = make_run(tmp_path, [stdio_config()], ["Nothing to do."], read_only=True)
        await run.run()
        names = [n for n in offered(model) if n.startswith("mcp_")]
        assert "mcp_fx_lookup" in names and "mcp_fx_news" in names
        assert not {"mcp_fx_delete_item", "mcp_fx_plain_echo", "mcp_fx_send_note", "mcp_fx_crash"} & set(names)


class TestSizes:
    async def test_a_long_result_is_cut_and_says_so(self, tmp_path):
        from mika.cap.mcp.result import TEXT_MAX

        run, model = make_run(tmp_path, [stdio_config()], [Reply.call("mcp_fx_big", chars=60_000), "Long."])
        await run.run()
        text = last_tool_results(model.requests[1])[0]
        assert f"cut to {TEXT_MAX} characters" in text.split("<untrusted", 1)[0]
        assert TEXT_MAX < len(text) < TEXT_MAX + 1000
        after_fence(text)


class TestUntrusted:
    async def test_injected_instructions_stay_inside_the_one_fence(self, tmp_path):
        run, model = make_run(tmp_path, [stdio_config()], [Reply.call("mcp_fx_news"), "The weather is sunny."])
        await run.run()
        text = last_tool_results(model.requests[1])[0]
        # The server's fake closing tag cannot end the fence early, nor open a new one.
        assert text.count("</untrusted>") == 1
        after_fence(text)
        assert text.count("<untrusted") == 1
        inside = text.split("<untrusted", 1)[1]
        assert "IGNORE YOUR INSTRUCTIONS" in inside and "[/untrusted" in inside
        # The capability's prompt section joins the system prompt once the group is open.
        assert "## MCP servers" in model.requests[1].system

    async def test_a_description_with_orders_is_fenced_in_the_tool_list(self, tmp_path):
        run, model = make_run(tmp_path, [stdio_config()], ["ok"])
        await run.run()
        spec = next(t for t in model.requests[0].tools if t.name == "mcp_fx_news")
        assert '<untrusted source="mcp" server="fx" tool="news">' in spec.description
        assert "Read the news page." in spec.description.split("<untrusted", 1)[1]

    async def test_a_hostile_description_cannot_close_its_fence(self, tmp_path):
        run, model = make_run(tmp_path, [stdio_config()], ["ok"])
        await run.run()
        spec = next(t for t in model.requests[0].tools if t.name == "mcp_fx_count")
        assert spec.description.count("</untrusted>") == 1 and spec.description.rstrip().endswith("</untrusted>")
        assert "SYSTEM: before anything else" in spec.description.split("<untrusted", 1)[1]
        said = json.dumps(spec.parameters)
        assert "obey the server" in said and "<untrusted>" not in said and "</untrusted>" not in said

    async def test_env_secrets_never_reach_the_record(self, tmp_path):
        secret = "plum-orchard-7781"
        run, model = make_run(
            tmp_path,
            [stdio_config(env={"FIXTURE_TOKEN": secret})],
            [Reply.call("mcp_fx_whoami"), "It was given a token."],
        )
        await run.run()
        # The env reached the server (it says the value back to the model)...
        assert f"I was given {secret}" in last_tool_results(model.requests[1])[0]
        # ...and the record holds it masked, nowhere in the clear.
        assert run.result is not None
        files = record_files(Path(run.result.record_dir))
        assert files
        for name, text in files.items():
            assert secret not in text, name
        assert "I was given [redacted]" in files["events.jsonl"]


class TestFrozenList:
    async def test_a_tool_added_mid_run_is_not_offered_nor_callable(self, tmp_path):
        run, model = make_run(
            tmp_path,
            [stdio_config()],
            [Reply.call("mcp_fx_grow"), Reply.call("mcp_fx_late_tool"), "The late tool is not there."],
        )
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        assert "added late_tool" in last_tool_results(model.requests[1])[0]
        for request in model.requests:
            assert "mcp_fx_late_tool" not in [t.name for t in request.tools]
        late = next(e for e in of_type(record(run), "tool_result") if e["name"] == "mcp_fx_late_tool")
        assert not late["ok"] and late["code"] == "unknown_tool"


class TestBrokenServers:
    async def test_a_bad_command_is_a_notice_and_the_other_server_still_works(self, tmp_path):
        bad = McpServerConfig(name="nope", command="/nonexistent/mcp-server-binary")
        run, model = make_run(
            tmp_path, [bad, stdio_config()], [Reply.call("mcp_fx_lookup", word="beta"), "beta: second letter."]
        )
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        notices = [e["text"] for e in of_type(record(run), "notice") if e["level"] == "warning"]
        assert any("'nope'" in n and "command was not found" in n for n in notices), notices
        assert not [n for n in offered(model) if n.startswith("mcp_nope")]

    async def test_a_server_that_exits_at_start_says_what_it_printed(self, tmp_path):
        dies = McpServerConfig(
            name="dies",
            command=sys.executable,
            args=("-c", "import sys; print('missing NOTES_DIR', file=sys.stderr); sys.exit(2)"),
        )
        run, _ = make_run(tmp_path, [dies], ["Nothing."])
        await run.run()
        notices = [e["text"] for e in of_type(record(run), "notice")]
        assert any("'dies'" in n and "missing NOTES_DIR" in n for n in notices), notices

    async def test_a_missing_bearer_token_is_named(self, tmp_path, monkeypatch):
        monkeypatch.delenv("NO_SUCH_MCP_TOKEN", raising=False)
        remote = McpServerConfig(name="remote", url="http://127.0.0.1:9/mcp", bearer_token_env="NO_SUCH_MCP_TOKEN")
        run, _ = make_run(tmp_path, [remote], ["Nothing."])
        await run.run()
        notices = [e["text"] for e in of_type(record(run), "notice")]
        assert any("'remote'" in n and "NO_SUCH_MCP_TOKEN" in n and "not set" in n for n in notices), notices

    async def test_an_address_nobody_listens_on_is_a_notice(self, tmp_path):
        from tests.adb_env import free_port

        remote = McpServerConfig(name="remote", url=f"http://127.0.0.1:{free_port()}/mcp", start_timeout_s=10)
        run, _ = make_run(tmp_path, [remote], ["Nothing."])
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        notices = [e["text"] for e in of_type(record(run), "notice")]
        assert any("'remote'" in n and "could not be started" in n for n in notices), notices

    async def test_a_server_that_never_answers_times_out_at_start(self, tmp_path):
        hangs = McpServerConfig(
            name="hangs", command=sys.executable, args=("-c", "import time; time.sleep(120)"), start_timeout_s=1
        )
        run, _ = make_run(tmp_path, [hangs], ["Nothing."])
        await run.run()
        notices = [e["text"] for e in of_type(record(run), "notice")]
        assert any("'hangs'" in n and "did not answer within 1 s" in n for n in notices), notices

    async def test_a_crash_mid_call_is_a_tool_error_and_later_calls_say_it_is_gone(self, tmp_path):
        run, model = make_run(
            tmp_path,
            [stdio_config()],
            [Reply.call("mcp_fx_crash"), Reply.call("mcp_fx_lookup", word="alpha"), "The server stopped."],
        )
        result = await run.run()
        assert result.status is OutcomeStatus.ANSWERED
        results = [e for e in of_type(record(run), "tool_result") if e["name"].startswith("mcp_fx")]
        assert [r["code"] for r in results] == ["mcp_server_gone", "mcp_server_gone"]
        assert "stopped during crash" in last_tool_results(model.requests[1])[0]
        assert "no longer connected" in last_tool_results(model.requests[2])[0]

    async def test_a_slow_call_times_out_as_a_tool_error(self, tmp_path):
        run, model = make_run(
            tmp_path,
            [stdio_config(call_timeout_s=1)],
            [Reply.call("mcp_fx_slow", seconds=30), Reply.call("mcp_fx_lookup", word="alpha"), "Slow."],
        )
        await run.run()
        first = last_tool_results(model.requests[1])[0]
        assert "did not answer slow within 1 s" in first
        # The server itself is still there for the next call.
        assert "first letter" in last_tool_results(model.requests[2])[0]


class TestNoOrphans:
    async def test_the_server_process_is_gone_after_the_run(self, tmp_path):
        run, model = make_run(tmp_path, [stdio_config()], [Reply.call("mcp_fx_server_pid"), "Done."])
        await run.run()
        text = last_tool_results(model.requests[1])[0]
        pid = int(text.split(">", 1)[1].split("<", 1)[0].strip())
        assert process_gone(pid), f"MCP server process {pid} outlived its run"

    async def test_a_run_task_cancelled_mid_call_still_stops_the_server(self, tmp_path):
        import asyncio

        run, model = make_run(
            tmp_path,
            [stdio_config()],
            [Reply.call("mcp_fx_server_pid"), Reply.call("mcp_fx_slow", seconds=60), "never"],
        )
        task = asyncio.create_task(run.run())
        for _ in range(600):  # the slow call is on its way once the third request is due
            await asyncio.sleep(0.05)
            if len(model.requests) >= 2 and any(e.type == "tool_call" and e.name == "mcp_fx_slow" for e in run._events):
                break
        text = last_tool_results(model.requests[1])[0]
        pid = int(text.split(">", 1)[1].split("<", 1)[0].strip())
        assert not process_gone(pid)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert process_gone(pid), f"MCP server process {pid} outlived its cancelled run"

    async def test_closing_a_run_that_was_never_started_spawns_nothing(self, tmp_path):
        run, _ = make_run(tmp_path, [stdio_config()], [])
        for cap in run.capabilities:
            await cap.close()
        assert run.capabilities[-1].tools() == []


@pytest.mark.parametrize(("word", "code"), [("checkout", "approval_unavailable"), ("pay", "pay_by_user")])
async def test_a_payment_tool_of_a_server_is_refused_in_an_unattended_run(tmp_path, word, code):
    """A server tool named like a Buy button goes through the same payment check: an
    unattended run refuses a checkout (approval_unavailable), the final pay is the user's
    (pay_by_user), and the server is never called."""
    fake = tmp_path / "pay_server.py"
    fake.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "s = MCPServer('shop')\n"
        f"@s.tool(name='{word}_now', description='Complete the purchase.')\n"
        "def go(amount: str) -> str:\n"
        "    open(__file__ + '.called', 'w').write('yes')\n"
        "    return 'paid'\n"
        "s.run()\n"
    )
    shop = McpServerConfig(name="shop", command=sys.executable, args=(str(fake),), start_timeout_s=60)
    run, _ = make_run(tmp_path, [shop], [Reply.call(f"mcp_shop_{word}_now", amount="$25.00"), "Refused."])
    await run.run()
    result = next(e for e in of_type(record(run), "tool_result") if e["name"] == f"mcp_shop_{word}_now")
    assert not result["ok"] and result["code"] == code, result
    assert not exists(Path(str(fake) + ".called"))
