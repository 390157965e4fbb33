"""A Mika process killed with SIGKILL mid-step, then started again.

The process is a small headless host built the way the CLI hosts a run: recovery at
start, a TaskCenter whose factory builds the real TaskRun (agent loop, general tools,
recorder), a model, the outbox on stdout. The first start is killed while its run sits
inside a `wait` step; the next starts find the run interrupted, tell the user exactly
once, and leave every state file valid JSON.
(`mika --no-ui` does not go through the task center yet; see the report.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from mika.run.conversations import ConversationStore
from mika.run.outbox import DeliveryState, Outbox
from mika.run.run_store import RunStore

ROOT = Path(__file__).resolve().parents[2]

HOST = textwrap.dedent("""
    import asyncio, json, sys
    from mika.assembly import RunEnvironment, capabilities_for
    from mika.atomic_write import append_line
    from mika.model.testing import FunctionModel, Reply
    from mika.run.outbox import CallbackChannel, Outbox
    from mika.run.recovery import recover_at_start, settle
    from mika.run.task_center import TaskCenter
    from mika.run.task_run import RunOptions, TaskRun
    from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance

    from pathlib import Path
    root, told, goal = Path(sys.argv[1]), sys.argv[2], sys.argv[3]

    def deliver(d):
        append_line(told, json.dumps({"id": d.id, "text": d.display_text}))

    def reply(request):
        said = " ".join(m.text for m in request.messages)
        if "a quick task" not in said and not any(m.tool_results for m in request.messages):
            return Reply.call("wait", seconds=60)  # the step the process dies in
        return "All done."

    async def main():
        recover_at_start(root, deliver)
        await settle(root, deliver, lang="en")
        if goal == "-":
            return
        model = FunctionModel(reply)
        make = lambda spec: TaskRun(spec, model, capabilities_for(spec, RunEnvironment()),
                                    RunOptions(state_dir=root, pacing=False))
        center = TaskCenter(make, state_dir=root, outbox=Outbox(root, [CallbackChannel(deliver)]))
        sub = center.submit("conv1", goal, provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED))
        result = await center.wait_run(sub.run_id)
        print(json.dumps({"run_id": sub.run_id, "status": result.status.value}), flush=True)

    asyncio.run(main())
""")


def _host(root: Path, told: Path, goal: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MIKA_LANGUAGE="en")
    return subprocess.Popen(
        [sys.executable, "-c", HOST, str(root), str(told), goal],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _in_wait_step(root: Path) -> bool:
    for events in (root / "runs").glob("*/events.jsonl"):
        for line in events.read_text().splitlines():
            if '"tool_call"' in line and '"wait"' in line:
                return True
    return False


def test_sigkill_mid_step_then_restart_tells_once(tmp_path):
    told = tmp_path / "told.jsonl"
    root = tmp_path / "state"
    first = _host(root, told, "a slow task")
    deadline = time.time() + 60
    while not _in_wait_step(root):
        assert first.poll() is None, first.communicate()[1]
        assert time.time() < deadline, "the run never reached its wait step"
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    (killed,) = RunStore(root).all()
    assert killed.phase == "running"  # what the dead process left

    second = _host(root, told, "a quick task")
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    finished = json.loads(out.splitlines()[-1])
    assert finished["status"] == "answered"
    for _ in range(3):  # more restarts, recovery only
        again = _host(root, told, "-")
        _, err = again.communicate(timeout=60)
        assert again.returncode == 0, err

    lines = [json.loads(x) for x in told.read_text().splitlines()]
    notices = [x for x in lines if x["id"].startswith("interrupted:")]
    assert [x["id"] for x in notices] == [f"interrupted:{killed.run_id}"]  # told once
    assert "a slow task" in notices[0]["text"]
    assert [x["id"] for x in lines if x["id"].startswith("answer:")] == [f"answer:{finished['run_id']}"]

    runs = {r.run_id: r for r in RunStore(root).all()}
    assert runs[killed.run_id].phase == "interrupted"
    assert runs[finished["run_id"]].phase == "ended"
    turns = ConversationStore(root).get("conv1").turns
    assert [(t.run_id, t.outcome) for t in turns] == [(killed.run_id, "failed"), (finished["run_id"], "answered")]
    assert turns[0].answer == "The task was interrupted; you can start it again."
    assert Outbox(root).state(f"interrupted:{killed.run_id}") is DeliveryState.DELIVERED
    checked = 0
    for path in root.rglob("*.json"):
        json.loads(path.read_text())
        checked += 1
    assert checked >= 4  # run-state, outbox, the conversation, run records
