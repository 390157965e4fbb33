"""`[general] pace` inside real runs: the dwell goes into `wait_ms` and never into what the
model reads; a user message during it skips the action; careful apps stop at 24 screens;
`fast` never waits; the assembly reads the setting (and the suite's override)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.assembly.assembly import run_pace
from mika.config.errors import ConfigError
from mika.config.settings import parse_settings
from mika.knowledge.app_pace import AppPace
from mika.model.testing import Reply, ScriptedModel
from mika.record.events import QuestionAsked
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.core.toy import ToyCapability, ToyTap, ToyWorld


class CappedTap(ToyTap):
    # Like phone_tap: a tool that changes screens inside the app says so for the cap.
    page_capped = True


class CappedToy(ToyCapability):
    def tools(self):
        return [CappedTap(self.world)]


def _spec(attendance: Attendance = Attendance.UNATTENDED) -> RunSpec:
    return RunSpec(goal="browse", provenance=RunProvenance(RunOrigin.CLI, attendance))


def _run(
    model, cap, tmp_path: Path, pace: str, app_pace=None, attendance: Attendance = Attendance.UNATTENDED
) -> tuple[TaskRun, list[Any], list[float], list[float]]:
    """A run on a clock the test owns: the run's sleep advances it, so waits are exact."""
    now = [1000.0]
    sleeps: list[float] = []
    spec = _spec(attendance)
    run = TaskRun(
        spec,
        model,
        capabilities_for(spec, RunEnvironment(extra=[cap])),
        RunOptions(pacing=False, state_dir=tmp_path, clock=lambda: now[0], pace=pace, app_pace=app_pace),
    )
    events: list[Any] = []
    run.subscribe(events.append)

    async def owned_sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    def seam(_event) -> None:
        loop = getattr(run, "loop", None)
        if loop is not None:
            loop.ctx.sleep = owned_sleep

    run.subscribe(seam)
    return run, events, sleeps, now


def _taps(events) -> list[Any]:
    return [e for e in events if e.type == "tool_result" and e.name == "toy_tap"]


async def test_standard_dwell_is_in_wait_ms_and_not_in_the_models_text(tmp_path):
    world = ToyWorld(screen="Shop · Next · More")
    model = ScriptedModel([Reply.call("toy_tap", label="Next"), Reply.call("toy_tap", label="More"), "done"])
    run, events, sleeps, _ = _run(model, ToyCapability(world), tmp_path, "standard")
    await asyncio.wait_for(run.run(), 10)
    taps = _taps(events)
    assert [t.code for t in taps] == ["done", "done"] and world.taps == ["Next", "More"]
    assert taps[0].wait_ms == 0  # the first action of a run goes at once
    # the first tap landed on a new screen ("done"): 0.9–2 s, maybe +0.6–1.5, never over 3.5
    assert len(sleeps) == 1 and 0.9 <= sleeps[0] <= 3.5
    assert taps[1].wait_ms == round(sleeps[0] * 1000)
    seen = "\n".join(repr(m) for r in model.requests for m in r.messages)
    assert "Tapped More" in seen
    assert not re.search(r"dwell|waited|pause|\bpace\b|\d+\s*ms\b", seen, re.I)
    assert str(taps[1].wait_ms) not in seen


async def test_time_the_model_spent_counts_toward_the_dwell(tmp_path):
    world = ToyWorld(screen="Shop · Next · More")
    model = ScriptedModel([Reply.call("toy_tap", label="Next"), Reply.call("toy_tap", label="More"), "done"])
    run, events, sleeps, now = _run(model, ToyCapability(world), tmp_path, "standard")
    original = model.stream

    def thinking(request):
        now[0] += 5.0  # the model thinks longer than any standard dwell
        return original(request)

    model.stream = thinking  # type: ignore[method-assign]
    await asyncio.wait_for(run.run(), 10)
    assert sleeps == [] and [t.wait_ms for t in _taps(events)] == [0, 0]


async def test_a_user_message_during_the_dwell_skips_the_action(tmp_path):
    world = ToyWorld(screen="Shop · Next")
    model = ScriptedModel([Reply.call("toy_tap", label="Next"), Reply.call("toy_tap", label="Next"), "stopped"])
    run, events, _, now = _run(model, ToyCapability(world), tmp_path, "human")
    dwelling = asyncio.Event()

    async def steered_sleep(seconds: float) -> None:
        dwelling.set()
        await asyncio.Event().wait()  # until the steer ends the race

    def seam(_event) -> None:
        loop = getattr(run, "loop", None)
        if loop is not None:
            loop.ctx.sleep = steered_sleep

    run.subscribe(seam)
    task = asyncio.create_task(run.run())
    await asyncio.wait_for(dwelling.wait(), 5)
    now[0] += 0.4
    run.steer("stop, wrong item")
    await asyncio.wait_for(task, 5)
    taps = _taps(events)
    assert [t.code for t in taps] == ["done", "skipped_for_new_message"]
    assert taps[1].wait_ms == 400 and world.taps == ["Next"]


async def test_fast_never_waits(tmp_path):
    world = ToyWorld(screen="Shop · Next")
    model = ScriptedModel([Reply.call("toy_tap", label="Next")] * 5 + ["done"])
    run, events, sleeps, _ = _run(model, ToyCapability(world), tmp_path, "fast", app_pace=lambda p: "careful")
    await asyncio.wait_for(run.run(), 10)
    assert sleeps == [] and [t.wait_ms for t in _taps(events)] == [0] * 5


async def test_a_careful_app_stops_screen_changes_after_24_new_screens(tmp_path):
    world = ToyWorld(screen="Feed · Next")
    model = ScriptedModel([Reply.call("toy_tap", label="Next")] * 26 + ["answered with what I read"])
    careful = lambda p: "careful" if p == "com.toy.shop" else ""  # noqa: E731
    run, events, sleeps, _ = _run(model, CappedToy(world), tmp_path, "standard", app_pace=careful)
    await asyncio.wait_for(run.run(), 10)
    taps = _taps(events)
    assert [t.code for t in taps] == ["done"] * 24 + ["page_limit"] * 2
    assert len(world.taps) == 24
    assert "ask_user" in taps[-1].text and "answer" in taps[-1].text.lower()
    # careful dwell: a new screen 2.5–5 s (+ reading time, + maybe 2–5 s), never over 15 s
    assert all(2.5 <= s <= 15.0 for s in sleeps)


async def test_a_user_answer_resets_the_screen_count(tmp_path):
    world = ToyWorld(screen="Feed · Next")
    model = ScriptedModel(
        [Reply.call("toy_tap", label="Next")] * 25
        + [Reply.call("ask_user", question="Keep reading?"), Reply.call("toy_tap", label="Next"), "ok"]
    )
    careful = lambda p: "careful"  # noqa: E731
    run, events, _, _ = _run(
        model, CappedToy(world), tmp_path, "standard", app_pace=careful, attendance=Attendance.PRESENT
    )
    run.subscribe(lambda e: isinstance(e, QuestionAsked) and run.answer(e.question_id, "yes, go on"))
    await asyncio.wait_for(run.run(), 10)
    assert [t.code for t in _taps(events)] == ["done"] * 24 + ["page_limit", "done"]
    assert len(world.taps) == 25


def test_the_assembly_takes_the_setting_unless_the_harness_overrides(monkeypatch):
    settings = parse_settings({"general": {"pace": "human"}})
    assert run_pace(settings) == "fast"  # tests/conftest.py: the suite acts at once
    monkeypatch.delenv("MIKA_RUN_PACE")
    assert run_pace(settings) == "human"
    monkeypatch.setenv("MIKA_RUN_PACE", "slowly")
    with pytest.raises(ConfigError, match="MIKA_RUN_PACE: expected one of fast, standard, human"):
        run_pace(settings)


def _app(root: Path, package: str, text: str) -> None:
    (root / "apps" / package).mkdir(parents=True, exist_ok=True)
    (root / "apps" / package / "APP.md").write_text(text, encoding="utf-8")


def test_app_pace_reads_front_matter_and_the_users_copy_wins(tmp_path):
    user, shipped = tmp_path / "user", tmp_path / "shipped"

    def front(package: str, extra: str, body: str = "- a note\n", nl: str = "\n") -> str:
        lines = ["---", f"id: {package}", "name: App", f"packages: [{package}]", *extra.split("|"), "---"]
        return nl.join(line for line in lines if line) + nl + body

    _app(shipped, "com.slow.app", front("com.slow.app", "pace: careful"))
    _app(shipped, "com.both.app", front("com.both.app", "pace: careful"))
    _app(user, "com.both.app", front("com.both.app", ""))
    _app(shipped, "com.body.app", front("com.body.app", "", body="pace: careful\n"))  # in the body: not front matter
    _app(shipped, "com.crlf.app", front("com.crlf.app", "pace: 'careful'  # banks", nl="\r\n"))
    (shipped / "apps" / "com.bad.app").mkdir(parents=True)
    (shipped / "apps" / "com.bad.app" / "APP.md").write_bytes(b"---\nid: com.bad.app\npace: careful\xff\xfe\n---\n")
    pace = AppPace([user, shipped])
    assert pace("com.slow.app") == "careful"
    assert pace("com.both.app") == ""
    assert pace("com.body.app") == ""
    assert pace("com.crlf.app") == "careful"
    assert pace("com.bad.app") == ""  # odd bytes: not careful, and no crash
    assert pace("com.none.app") == ""
    _app(tmp_path, "x", "---\npace: careful\n---\n")
    for odd in ("../x", "..", "", "/etc", "com.slow.app/../../x", "com.slow.app\x00"):
        assert pace(odd) == ""
