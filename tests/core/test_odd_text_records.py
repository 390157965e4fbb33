"""Text no UTF-8 stream can carry (a lone surrogate from a model's "\\ud800" escape) is
still recorded and printed: a run never loses an event, or its output, to an odd byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mika.atomic_write import append_json_line, read_json, write_json, write_text

LONE = "\ud800"


def test_a_jsonl_line_with_a_lone_surrogate_is_written_and_reads_back_exactly(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    append_json_line(path, {"type": "tool_call", "arguments": {"command": f"input{LONE} tap 1 1"}})
    append_json_line(path, {"type": "after", "text": "中文"})
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"type": "tool_call", "arguments": {"command": f"input{LONE} tap 1 1"}},
        {"type": "after", "text": "中文"},
    ]
    assert "中文" in lines[1], "ordinary text stays readable UTF-8"


def test_a_state_file_with_a_lone_surrogate_is_written_atomically(tmp_path: Path) -> None:
    write_json(tmp_path / "run.json", {"goal": f"a{LONE}b"})
    assert read_json(tmp_path / "run.json") == {"goal": f"a{LONE}b"}
    write_text(tmp_path / "note.txt", f"x{LONE}y")
    assert (tmp_path / "note.txt").read_text(encoding="utf-8") == "x\ufffdy"


@pytest.mark.parametrize("fmt", ["text", "stream-json", "json"])
def test_a_headless_run_with_a_lone_surrogate_in_a_tool_call_keeps_every_event(tmp_path: Path, fmt: str) -> None:
    # The script file carries the escape as JSON does; the model's tool call then holds it.
    script = tmp_path / "script.json"
    script.write_text(
        '[{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0, "why": "x\\ud800y"}}]}, "Done \\ud800 here."]',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_DEVICE="none", MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mika.cli",
            "--no-ui",
            "--output-format",
            fmt,
            "--model",
            f"script:{script}",
            "wait a moment",
        ],
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr and b"Internal error" not in done.stderr
    out = done.stdout.decode("utf-8")  # valid UTF-8, whatever the answer held
    if fmt == "text":
        assert out == "Done \ufffd here.\n"
    else:
        last = json.loads(out.splitlines()[-1])
        assert last["answer"] == f"Done {LONE} here."
    (events,) = (tmp_path / "state" / "runs").glob("*/events.jsonl")
    recorded = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    calls = [e for e in recorded if e["type"] == "tool_call"]
    assert calls and calls[0]["arguments"]["why"] == f"x{LONE}y"
    assert any(e["type"] == "outcome" for e in recorded)
