"""`mika runs show` (text view) says the run's metrics the record holds — first feedback,
the thinking / reading / acting / waiting split with a small bar, tokens, steps — and
cuts tool results at line boundaries (issue 17, "Reading a run").

Records are written by the real RunRecorder with chosen event times, so the numbers are
known; one test runs `mika --no-ui` for real and reads its record back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from mika.commands.runs import result_lines, runs_group
from mika.record import events as ev
from mika.record.metrics_text import split_bar
from mika.record.recorder import RunRecorder

T0 = 1_796_040_000.0
LISTING = "\n".join(f'[{i}] button "Item number {i} with a long enough name"' for i in range(1, 41))


def record(state: Path, *, close: bool = True, result_text: str = LISTING) -> str:
    rec = RunRecorder(state, "run1", started=T0)
    rec.begin({"id": "run1", "goal": "find the cheapest item"})
    rec(ev.RunStarted(run_id="run1", goal="find the cheapest item", origin="cli", attendance="attended", at=T0))
    # The model thinks 2.0 s, then a read (1.5 s) and an action (0.8 s, 0.5 s of it waiting).
    rec(
        ev.ModelReplied(
            run_id="run1",
            text="",
            tool_calls=({"name": "phone_list_elements"},),
            usage={"input": 1200, "output": 80, "cached": 400},
            requested_at=T0,
            replied_at=T0 + 2.0,
            at=T0 + 2.0,
        )
    )
    rec(ev.ToolCalled(run_id="run1", call_id="c1", name="phone_list_elements", risk="read", step=1, at=T0 + 2.0))
    rec(
        ev.ToolFinished(
            run_id="run1", call_id="c1", name="phone_list_elements", ok=True, text=result_text, duration_ms=1500,
            step=1, at=T0 + 3.5,
        )
    )  # fmt: skip
    rec(ev.ToolCalled(run_id="run1", call_id="c2", name="phone_tap", risk="act", arguments={"element": 3}, step=2))
    rec(
        ev.ToolFinished(
            run_id="run1", call_id="c2", name="phone_tap", ok=True, text="Tapped.", duration_ms=800, wait_ms=500,
            step=2, at=T0 + 4.3,
        )
    )  # fmt: skip
    if close:
        rec(ev.RunOutcome(run_id="run1", status="answered", answer="Item 3.", steps=2, at=T0 + 5.0))
        rec.close({"outcome": "answered"})
    return "run1"


def show(state: Path, *args: str) -> str:
    result = CliRunner().invoke(runs_group, ["show", *args], obj={"state_dir": str(state)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_text_view_says_the_metrics_the_record_holds(tmp_path):
    run_id = record(tmp_path)
    out = show(tmp_path, run_id)
    assert "time 5.0s · first feedback 2.0s · 2 steps · 1 model call" in out
    assert "tokens 1,200 in · 80 out · 400 cached" in out
    assert "split  thinking 2.0s · reading 1.5s · acting 0.8s · waiting 0.5s" in out
    # The bar: 24 cells, each part its share of 4.8 s (10 / 7.5 / 4 / 2.5 cells).
    bar_line = next(line for line in out.splitlines() if "█" in line)
    bar = bar_line.split()[0]
    assert bar == "█" * 10 + "▓" * 7 + "▒" * 4 + "░" * 3 or bar == "█" * 10 + "▓" * 8 + "▒" * 4 + "░" * 2
    assert len(bar) == 24


def test_an_unfinished_run_folds_its_metrics_from_its_events(tmp_path):
    """A killed run never wrote its summary: the metrics come from events.jsonl."""
    run_id = record(tmp_path, close=False)
    out = show(tmp_path, run_id)
    assert "first feedback 2.0s" in out and "thinking 2.0s · reading 1.5s" in out


def test_tool_results_are_cut_at_line_boundaries(tmp_path):
    run_id = record(tmp_path)
    out = show(tmp_path, run_id).splitlines()
    start = next(i for i, line in enumerate(out) if line.strip().startswith("→ ok [1]"))
    shown = [out[start].split("→ ok ", 1)[1]] + [line.strip() for line in out[start + 1 :]]
    listing = LISTING.splitlines()
    kept = [line for line in shown if line.startswith("[")]
    # Every kept row is a whole row of the listing, in order, and the rest is counted.
    assert kept == listing[: len(kept)] and 1 < len(kept) < len(listing)
    assert f"… {len(listing) - len(kept)} more lines (--json shows all)" in shown
    # The old view cut at 100 characters, mid-row: no row is cut now.
    assert not any(line.startswith("[") and not line.endswith('name"') for line in shown)


def test_one_overlong_line_is_cut_at_a_word_and_says_so():
    lines = result_lines("word " * 200, chars=50)
    assert lines[0].endswith(" …") and len(lines[0]) <= 52 and not lines[0][:-2].endswith("wor")


def test_hostile_result_text_stays_text_when_cut():
    lines = result_lines("ok\x1b]0;pwned\x07\nsecond\r\nthird\x1b[2J", lines=2)
    assert lines == ["ok", "second", "… 1 more line (--json shows all)"]


def test_a_bar_gives_every_part_that_took_time_a_cell():
    bar = split_bar({"thinking_ms": 100_000, "reading_ms": 10, "acting_ms": 0, "waiting_ms": 10}, width=10)
    assert len(bar) == 10 and "▓" in bar and "░" in bar and "▒" not in bar
    assert split_bar({}) == ""


def test_a_real_headless_run_shows_its_metrics(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]}, "Done."]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update(MIKA_DEVICE="none", MIKA_STATE_DIR=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))

    def mika(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "mika.cli", *args], capture_output=True, text=True, timeout=60, env=env
        )

    assert mika("--no-ui", "--model", f"script:{script}", "do it").returncode == 0
    run_id = json.loads(mika("runs", "list", "--json").stdout)[0]["id"]
    out = mika("runs", "show", run_id).stdout
    assert "first feedback" in out and "model call" in out and "split  thinking" in out
    assert "tokens" in out and "outcome: answered" in out


def test_the_text_view_says_each_step_in_words(tmp_path, monkeypatch):
    """Step lines read as the TUI's timeline does (mika.record.step_words), not tool + JSON."""
    monkeypatch.setenv("MIKA_LANGUAGE", "en")
    run_id = record(tmp_path)
    out = show(tmp_path, run_id)
    assert "  step 1: Read the screen · done  (phone_list_elements)" in out
    assert "  step 2: Tap #3 · done  (phone_tap)" in out
    assert '{"element": 3}' not in out  # the old view printed the raw arguments


def test_the_text_view_speaks_chinese_and_names_a_step_without_result(tmp_path, monkeypatch):
    monkeypatch.setenv("MIKA_LANGUAGE", "zh")
    rec = RunRecorder(tmp_path, "run2", started=T0)
    rec.begin({"id": "run2", "goal": "scroll"})
    rec(ev.ToolCalled(run_id="run2", call_id="c1", name="phone_scroll", arguments={"direction": "down"}, step=1))
    rec(ev.ToolFinished(run_id="run2", call_id="c1", name="phone_scroll", ok=True, effect="done", step=1))
    # Killed mid-step: the call is recorded, its result never was.
    rec(ev.ToolCalled(run_id="run2", call_id="c2", name="phone_type_text", arguments={"text": "hi"}, step=2))
    out = show(tmp_path, "run2")
    assert "  step 1: 向下滚动 · 列表已移动  (phone_scroll)" in out
    assert "  step 2: 输入 'hi' · 没有记录结果  (phone_type_text)" in out
