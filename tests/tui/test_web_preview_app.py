"""The real app (`mika_tui.launch.build_deps`: the assembly with the phone and the web, a
scripted model, the simulated phone over the test's adb server, real Chromium on the
loopback site): the preview follows the run from the phone to the page and back.

- a web step: the preview shows the run's page (the screencast the assembly keeps for
  the run, `Assembly.page_frames`), the title line its host and title; a takeover asked
  there is a takeover of the page;
- a phone step after it: the phone's picture again, the page's screencast stopped;
- the run's end: the assembly forgets the run's page.
"""

from __future__ import annotations

import json

from mika.config.settings import load_settings
from mika_tui.app import MikaApp
from mika_tui.launch import build_deps
from mika_tui.widgets.cards import TakeoverCard
from mika_tui.widgets.preview import PhonePreview
from tests.tui import scenes
from tests.tui.conftest import until
from tests.tui.test_web_preview_chromium import VIEWPORT, page_url  # noqa: F401  (fixture)
from tests.web.conftest import chromium_path, site  # noqa: F401  (fixtures)

SIZE = (160, 50)


def script(url: str) -> list:
    return [
        {"tool_calls": [{"name": "web_navigate", "arguments": {"url": url}}]},
        {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "login", "message": "Sign in, please."}}]},
        {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": "com.android.settings"}}]},
        {"tool_calls": [{"name": "hand_to_user", "arguments": {"reason": "other", "message": "Look, please."}}]},
        "Done.",
    ]


async def test_the_preview_goes_from_the_phone_to_the_page_and_back(
    tmp_path,
    sim_phone,
    monkeypatch,
    chromium_path,  # noqa: F811
    page_url,  # noqa: F811
):
    monkeypatch.setenv("MIKA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the browser profile stays in the test
    config = tmp_path / "config.toml"
    config.write_text(f'[general]\nautonomous = true\n\n[web]\nbrowser = "{chromium_path}"\n')
    replies = tmp_path / "script.json"
    replies.write_text(json.dumps(script(page_url)))
    deps, cleanup = build_deps(
        load_settings(str(config)), device=sim_phone.serial, model=f"script:{replies}", graphics=None
    )
    asm = deps.assembly
    assert asm is not None and asm.browser
    app = MikaApp(deps, theme="mika-test")
    app.animation_level = "none"
    try:
        async with app.run_test(size=SIZE) as pilot:
            main = app.main_screen
            preview = main.query_one(PhonePreview)
            await scenes.run_to_card(pilot, "sign in to the shop", "takeover")
            run_id = scenes.view(pilot).run_id
            # The web step: the page, from the screencast the assembly keeps for the run.
            await until(lambda: preview.showing_page and preview.picture_size == VIEWPORT, 20)
            page = asm.pages.get(run_id) if asm.pages is not None else None
            assert page is not None and page.kept >= 1 and main.pages.get(run_id) is None
            assert preview.border_title.startswith("page · 127.0.0.1 · Sign in — TUI test")
            assert app.screen.query_one(TakeoverCard).page
            await pilot.press("d")
            # The phone step: the phone's picture again; nobody watches the page now.
            await until(lambda: scenes.view(pilot).card is not None and scenes.view(pilot).card.reason == "other", 30)
            await until(lambda: not preview.showing_page, 10)
            assert preview.border_title == "phone" and not page.running
            qid = scenes.view(pilot).card.question_id
            await until(lambda: any(c.card.question_id == qid for c in app.screen.query(TakeoverCard)), 10)
            card = next(c for c in app.screen.query(TakeoverCard) if c.card.question_id == qid)
            assert not card.page  # a takeover asked on the phone is the phone's
            await pilot.pause()  # the new card takes keys once mounted and laid out
            await pilot.press("d")
            await until(lambda: scenes.view(pilot).status == "answered", 30)
            await until(lambda: asm.pages.get(run_id) is None, 10)  # the run's end reaches the screen after the view
    finally:
        cleanup()
