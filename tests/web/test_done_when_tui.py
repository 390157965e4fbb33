"""Issue 15, "Done when", in the TUI itself (Textual Pilot): a person is there, the run's
Buy now on the loopback shop asks with the approval card, showing what the page shows;
the person allows it and exactly one Buy now reaches the site. The web steps are rows of
the app's timeline and the page is in the preview while they run.

The app is the real MikaApp (tests/tui/conftest.make_app) whose runs get the real web
capability over real Chromium (as tests/tui/test_web_preview_chromium.py builds it); the
model is the scripted reader of tests/web/test_done_when.py.
"""

from __future__ import annotations

from pathlib import Path

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.model.retry import RetryPolicy
from mika.run.task_run import RunOptions, TaskRun
from mika_tui.widgets.cards import ApprovalCard
from mika_tui.widgets.preview import PhonePreview
from mika_tui.widgets.timeline import Timeline
from tests.tui import scenes
from tests.tui.conftest import make_app, until
from tests.web.site_server import LocalSite
from tests.web.test_done_when import Scripted, call, requests_to, tap

SIZE = (160, 50)


async def test_buy_now_asks_with_the_card_in_the_tui_and_steps_show_in_timeline_and_preview(
    tmp_path: Path, chromium_path: str, site: LocalSite
) -> None:
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/product/6/")),
            tap("Buy now", role="button"),  # held for the person
            call("request_confirmation", what="1 bag of Kenya Nyeri AA", amount="$21.50", app="127.0.0.1"),
            tap("Buy now", role="button"),  # released once → the checkout form
            lambda _l, _r: "The checkout for Kenya Nyeri AA is open.",
        ]
    )
    app = make_app(tmp_path, scripted.model)
    opened: list[WebCapability] = []

    def factory(spec):
        options = WebOptions(browser=chromium_path)
        web = WebCapability(PlaywrightWebPort(options), options)
        opened.append(web)
        caps = capabilities_for(spec, RunEnvironment(autonomous=False, extra=[web]))
        retry = RetryPolicy(base_delay=0.01, max_delay=0.05, total_wait_cap=1.0)
        state = tmp_path / "state" / "mika"
        return TaskRun(spec, scripted.model, caps, RunOptions(pacing=False, state_dir=state, retry=retry))

    app.deps.run_factory = factory
    mark = len(site.seen)
    try:
        async with app.run_test(size=SIZE) as pilot:
            preview = app.main_screen.query_one(PhonePreview)
            await scenes.run_to_card(pilot, "buy one bag of Kenya Nyeri AA", "approval")
            card = app.screen.query_one(ApprovalCard)
            shown = "\n".join(str(s.render()) for s in card.query("Static"))
            # The card shows the page's item and amount, and the site the button is on.
            assert "Kenya Nyeri AA" in shown and "$21.50" in shown and "127.0.0.1" in shown, shown
            assert requests_to(site, mark, "/checkout") == []  # nothing bought while it asks
            # The page is in the preview while the run waits on the person.
            await until(lambda: preview.showing_page, 20)
            await pilot.press("a")
            await until(lambda: scenes.view(pilot).status == "answered", 30)
            rows = [s.name for s in app.main_screen.query_one(Timeline).steps]
            assert rows == ["web_navigate", "web_tap", "request_confirmation", "web_tap"], rows
            codes = [s.code for s in scenes.view(pilot).steps]
            assert codes == ["done", "confirmation_required", "allowed", "done"], codes
    finally:
        for web in opened:
            await web.close()
    assert requests_to(site, mark, "/checkout") == [("POST", "/checkout/")]  # exactly one Buy now
