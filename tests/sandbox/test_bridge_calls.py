"""The sandbox's bridge to the phone, end to end: real bubblewrap, the `mika` client inside,
the simulated phone through the real adb server, every call through the run's action entry
(origin sandbox) and recorded."""

from __future__ import annotations

import json

import pytest

from mika.cap.sandbox.bridge import SandboxBridge
from tests.sandbox.bridge_setup import bridge_run, element_number, phone_capability


@pytest.fixture
def phone(sim_phone):
    return phone_capability(sim_phone)


async def test_dump_and_tap_from_a_command_are_done_and_recorded_as_sandbox_calls(cap, phone, sim_phone) -> None:
    run = bridge_run(cap, phone)
    out = await run.command("mika phone launch '{\"app\": \"Clock\"}' && mika phone dump '{}'")
    assert out.ok, out.text
    assert "Opened Clock" in out.text
    timer = element_number(out.text, "Timer")
    out = await run.command(f"mika phone tap '{{\"element\": {timer}}}'")
    assert out.ok, out.text
    names = [e.name for e in run.calls("sandbox")]
    assert names == ["phone_launch_app", "phone_list_elements", "phone_tap"], names
    # run_command itself is the model's call; the three are the command's, each with a result.
    assert [e.name for e in run.calls("model")] == ["run_command", "run_command"]
    taps = run.results("phone_tap")
    assert taps and taps[0].ok and taps[0].call_id.startswith("sandbox-")
    assert "com.google.android.deskclock" in sim_phone.shell("dumpsys window")


async def test_the_record_on_disk_has_the_calls_with_origin_sandbox(cap, phone, tmp_path) -> None:
    """Through a whole TaskRun with a scripted model: events.jsonl holds the bridge's call."""
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.model.retry import RetryPolicy
    from mika.model.testing import Reply, ScriptedModel
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
    from tests.phone.test_runs import record

    cap.add_extras(SandboxBridge().extras)
    spec = RunSpec(goal="list the apps", provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
    caps = capabilities_for(spec, RunEnvironment(extra=[phone, cap]))
    model = ScriptedModel([Reply.call("run_command", command="mika phone apps '{}' | head -50"), "Listed."])
    opts = RunOptions(pacing=False, state_dir=tmp_path, retry=RetryPolicy(base_delay=0.01, total_wait_cap=1.0))
    run = TaskRun(spec, model, caps, opts)
    await run.run()
    events = record(run)
    calls = [e for e in events if e["type"] == "tool_call" and e["origin"] == "sandbox"]
    assert [c["name"] for c in calls] == ["phone_list_apps"], calls
    done = [e for e in events if e["type"] == "tool_result" and e["call_id"] == calls[0]["call_id"]]
    assert done and done[0]["ok"]


async def test_help_lists_the_callable_ops_and_not_the_others(cap, phone) -> None:
    run = bridge_run(cap, phone)
    out = await run.command("mika phone --help")
    assert out.ok, out.text
    for op in ("dump", "tap", "type", "clear", "key", "launch", "swipe", "scroll", "back"):
        assert f"  {op} " in out.text, op
    for tool in ("phone_screenshot", "phone_describe", "phone_share_text", "do_steps", "phone_dialog"):
        assert tool not in out.text
    assert "50 calls" in out.text


async def test_unknown_op_and_a_tool_not_callable_are_refused_with_usage(cap, phone) -> None:
    run = bridge_run(cap, phone)
    out = await run.command("mika phone fly '{}'; echo rc=$?; mika phone screenshot '{}'; echo rc=$?")
    assert "no op 'fly'" in out.text and "ops: " in out.text
    assert "phone_screenshot can't be called from the sandbox" in out.text
    assert out.text.count("rc=2") == 2 and out.text.count("usage: mika phone") == 2
    assert run.calls("sandbox") == []  # nothing reached the action entry


async def test_bad_arguments_are_refused_before_any_call(cap, phone) -> None:
    run = bridge_run(cap, phone)
    out = await run.command("mika phone tap '[1, 2]'; echo rc=$?; mika phone tap 'not json'; echo rc=$?")
    assert "must be a JSON object" in out.text and "not JSON" in out.text
    assert out.text.count("rc=2") == 2
    # A raw request whose args are not an object: the server says so itself.
    raw = (
        "import json,os,socket; s=socket.socket(socket.AF_UNIX); s.connect(os.environ['MIKA_BRIDGE']); "
        "s.sendall((json.dumps({'token': os.environ['MIKA_BRIDGE_TOKEN'], 'op': 'tap', 'args': [3]})+'\\n').encode());"
        " print(s.recv(9999).decode())"
    )
    out = await run.command(f'python3 -c "{raw}"')
    reply = json.loads(_last_json(out.text))
    assert reply["ok"] is False and reply["code"] == "bad_args"
    assert run.calls("sandbox") == []


async def test_a_tool_failure_comes_back_on_stderr_with_exit_2(cap, phone) -> None:
    run = bridge_run(cap, phone)
    await run.command('mika phone launch \'{"app": "Clock"}\'')
    out = await run.command("mika phone tap '{\"element\": 999}'; echo rc=$?")
    assert "rc=2" in out.text and "--- stderr ---" in out.text
    assert run.results("phone_tap") and not run.results("phone_tap")[0].ok


async def test_call_count_is_capped_per_command(cap, phone) -> None:
    run = bridge_run(cap, phone, bridge=SandboxBridge(calls_max=3))
    out = await run.command("for i in 1 2 3 4 5; do mika phone apps '{}' >/dev/null; echo rc=$?; done")
    assert out.text.count("rc=0") == 3 and out.text.count("rc=2") == 2, out.text
    assert "made its 3 calls" in out.text
    assert len(run.calls("sandbox")) == 3
    # The next command has its own count.
    out = await run.command("mika phone apps '{}' >/dev/null; echo rc=$?")
    assert "rc=0" in out.text


async def test_the_client_says_so_when_the_run_has_no_phone(cap) -> None:
    run = bridge_run(cap, None)
    out = await run.command("mika phone dump '{}'; echo rc=$?; ls /run/mika 2>&1; env | grep -c MIKA_BRIDGE")
    assert "this run has no phone to call" in out.text
    assert "rc=2" in out.text and "usage: mika phone" in out.text
    assert "No such file" in out.text  # no socket folder at all
    assert run.calls("sandbox") == []


def _last_json(text: str) -> str:
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            return line
    raise AssertionError(text)
