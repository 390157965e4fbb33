"""Issue 15, "Done when": web steps appear in the run record, in the TUI's timeline and
in the preview.

One real run (TaskRun, the web capability over real Chromium on the loopback site, no
phone, a scripted model): open the login page, type the user name, tick "Keep me signed
in". Then:

* the record (`events.jsonl`) has a tool_call / tool_result pair per web step, the calls
  naming capability "web";
* the TUI's own folding of those recorded events (`RunView`, what the Runs screen reads)
  and its `Timeline` widget, mounted in a Textual app, show one row per web step with
  its tool, target and effect;
* the preview's live page (`mika.assembly.live_page.LivePages`, what the TUI's preview
  watches, asked at each web step as the TUI does) got JPEG frames of the page while the
  steps ran.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult

from mika.assembly.live_page import LivePages, PageFrame
from mika.cap.web import WebCapability
from mika.model.testing import Reply
from mika.record.events import ToolCalled
from mika_tui.run_view import RunView
from mika_tui.widgets.timeline import Timeline
from tests.phone.driver import number_for
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, make_run, recorded, tap, web

__all__ = ["web"]  # the fixture, shared with test_done_when

WEB_STEPS = ["web_navigate", "web_type_text", "web_tap"]


class _TimelineApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Timeline(id="steps")


async def test_web_steps_are_in_the_record_the_timeline_and_the_preview(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    pages = LivePages()
    shown: list[PageFrame] = []
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/login/")),
            lambda listing, _r: Reply.call(
                "web_type_text", element=number_for(listing, "User name 用户名", role="input"), text="mika-test"
            ),
            tap("Keep me signed in"),
            lambda _l, _r: answer_once_a_frame_came(),
        ]
    )

    async def answer_once_a_frame_came() -> str:
        # The model's last turn waits for the preview's first picture (the live page's
        # condition, no sleep): the run closes the browser when it ends.
        page = pages.get(run.spec.id)
        assert page is not None, "the preview never asked for the page"
        frame = await asyncio.to_thread(page.wait_newer, 0, 30)
        assert frame is not None, page.error or "no frame within 30 s"
        shown.append(frame)
        return "The login page asks for a user name and a password."

    run = make_run(tmp_path, web, scripted, "Open the shop's login page and fill in my user name.")
    # As the TUI's preview does: ask for the run's live page at each web step (the port
    # starts its screencast once its browser runs).
    run.subscribe(
        lambda e: isinstance(e, ToolCalled) and e.capability == "web" and pages.frames(run.spec.id, run.capabilities)
    )
    try:
        await asyncio.wait_for(run.run(), 120)
    finally:
        pages.close()

    # The record.
    events = recorded(run)
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [c["name"] for c in calls] == WEB_STEPS
    assert {c["capability"] for c in calls} == {"web"}
    finished = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    assert [finished[c["call_id"]]["ok"] for c in calls] == [True, True, True]
    assert finished[calls[0]["call_id"]]["effect"] == "place_changed"

    # The timeline: the TUI's folding of the recorded events, rendered by its widget.
    view = RunView(run_id=run.spec.id)
    for e in events:
        view.apply(e)
    assert [s.name for s in view.steps] == WEB_STEPS
    assert view.steps[0].target == site.url("/login/")
    assert view.status == "answered"
    app = _TimelineApp()
    async with app.run_test(size=(120, 20)) as pilot:
        timeline = app.query_one(Timeline)
        timeline.set_steps(view.steps)
        await pilot.pause()
        rows = [timeline.render_line(y).text.rstrip() for y in range(len(view.steps))]
    # The rows say in words what each web step did (the timeline's step words).
    assert [r.split()[2] for r in rows] == ["Open", "Type", "Tap"], rows
    assert all("✓" in r for r in rows), rows
    assert "127.0.0.1" in rows[0] and "page changed" in rows[0], rows
    assert "mika-test" in rows[1], rows

    # The preview: a JPEG picture of the page reached the live page while the run went.
    assert len(shown) == 1
    frame = shown[0]
    assert frame.jpeg[:3] == b"\xff\xd8\xff" and frame.tab and frame.size[0] > 0 and frame.size[1] > 0
