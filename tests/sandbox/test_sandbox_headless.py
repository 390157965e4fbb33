"""A run on the simulated model level through the real command line: `mika --no-ui
--device none` with a scripted model writes a CSV with run_command in real bubblewrap,
reads it back with read_file and shares it; the stream shows the sandbox steps and the
shared file, the workspace keeps the file for the conversation's next run. And a read-only
run gets no run_command: the sandbox group, without an entry, is open from the start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.sandbox import SandboxCapability, Workspace
from mika.model.testing import Reply, ScriptedModel
from mika.record.events import ToolsOpened
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec

CSV_COMMAND = (
    "printf 'item,amount\\ntea,3\\ncake,4\\n' > receipts.csv && awk -F, 'NR>1{s+=$2} END{print s}' receipts.csv"
)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MIKA_", "ANDROID_"))}
    env.update(
        MIKA_STATE_DIR=str(tmp_path / "state"),
        MIKA_DATA_DIR=str(tmp_path / "data"),
        MIKA_DOWNLOADS_DIR=str(tmp_path / "Downloads" / "Mika"),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
    )
    return env


def test_headless_scripted_run_writes_a_csv_in_the_sandbox_and_reads_it_back(tmp_path, bwrap_ok) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "run_command", "arguments": {"command": CSV_COMMAND}}]},
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "receipts.csv"}}]},
                {"tool_calls": [{"name": "share_file", "arguments": {"path": "receipts.csv"}}]},
                "The receipts total 7.",
            ]
        )
    )
    cfg = tmp_path / "config.toml"
    cfg.write_text("[web]\nenabled = false\n")
    argv = ["--no-ui", "--device", "none", "--config", str(cfg), "--output-format", "stream-json"]
    r = subprocess.run(
        [sys.executable, "-m", "mika.cli", *argv, "--model", f"script:{script}", "total my receipts"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    events = [json.loads(x) for x in r.stdout.splitlines()]
    results = {e["name"]: e for e in events if e["type"] == "tool_result"}
    assert results["run_command"]["ok"] and results["run_command"]["capability"] == "sandbox"
    assert '<untrusted source="command"' in results["run_command"]["text"]
    assert "\n7\n</untrusted>" in results["run_command"]["text"]
    assert "tea,3\ncake,4" in results["read_file"]["text"]
    shared = [e for e in events if e["type"] == "file_shared"]
    assert len(shared) == 1 and Path(shared[0]["path"]).read_text() == "item,amount\ntea,3\ncake,4\n"
    assert events[-1]["type"] == "result" and events[-1]["answer"] == "The receipts total 7."
    opened = [e["group"] for e in events if e["type"] == "tools_opened"]
    assert opened == ["sandbox"]  # opened by run_command, not before
    conv = events[-1]["conversation_id"]
    assert (tmp_path / "state" / "workspaces" / conv / "receipts.csv").is_file()


async def test_read_only_run_has_no_run_command_and_the_group_is_open_from_the_start(tmp_path, bwrap_ok, port) -> None:
    ws = Workspace.for_conversation(tmp_path / "state", "conv1")
    ws.ensure()
    (ws.root / "notes.txt").write_text("from an earlier run\n")
    spec = RunSpec(
        goal="what do my notes say?",
        provenance=RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED),
        conversation_id="conv1",
        read_only=True,
        capabilities=("sandbox",),
    )
    sandbox = SandboxCapability(port, ws, share_dir=tmp_path / "dl")
    model = ScriptedModel([Reply(tool_calls=(("read_file", {"path": "notes.txt"}),)), "They say: from an earlier run."])
    caps = capabilities_for(spec, RunEnvironment(extra=[sandbox]))
    run = TaskRun(spec, model, caps, RunOptions(pacing=False))
    events: list = []
    run.subscribe(events.append)
    result = await run.run()
    assert result.answer == "They say: from an earlier run."
    first = [t.name for t in model.requests[0].tools]
    assert "run_command" not in first and "write_file" not in first and "share_file" not in first
    assert "read_file" in first and "search_files" in first
    assert [(e.group, e.preloaded) for e in events if isinstance(e, ToolsOpened)] == [("sandbox", True)]
