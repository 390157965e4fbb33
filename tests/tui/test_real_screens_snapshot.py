"""Snapshots with the simulated phone's real screens (issue 17, "Snapshots that would catch
real regressions"): the main screen during a run, the approval card and the runs screen,
at 80×24 and 160×48, in English and Chinese.

The pictures are not a kept file: each test starts the simulated phone in its shop-cart
scenario behind the private real adb server, opens the shop's cart and checkout with
`am start`, and takes `screencap -p` through adb — the same bytes the app's preview gets
from a real phone. The phone's clock is set and frozen first (`simctl set …`), so the
status bar's time never moves a snapshot. A change in how the sim draws its screens does
change these snapshots; that is the point — they show what a user sees.

The run itself is the toy world's scripted run (tests/core/toy.py): the screens are the
phone's, the steps are scripted, so every step's words and times are fixed.
"""

from __future__ import annotations

import pytest

from mika.model.testing import Reply, ScriptedModel
from tests.tui import scenes
from tests.tui.conftest import make_app, settle
from tests.tui.holding import HoldingModel

SMALL = (80, 24)
LARGE = (160, 48)
SIZES = pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x48"])
LANGS = pytest.mark.parametrize("lang", ["en", "zh"])


def capture(sim_phone, start: str) -> bytes:
    sim_phone.shell(f"am start {start}")
    png = sim_phone.adb.shell("screencap -p", encoding=None)
    assert png.startswith(b"\x89PNG\r\n\x1a\n"), png[:40]
    return png


@pytest.fixture
def shop_screens(sim_phone_factory) -> dict[str, bytes]:
    """The shop's cart and checkout as the phone draws them, through real adb."""
    phone = sim_phone_factory(scenario="shop_cart")
    phone.shell("simctl set time 2026-11-30T12:00:00")
    phone.shell("simctl set clock.frozen true")
    screens = {
        "cart": capture(phone, "-n com.mika.shop/.CartActivity"),
        "checkout": capture(phone, "-a android.intent.action.VIEW -d mikashop://checkout"),
    }
    state = phone.shell("simctl state")
    assert "CheckoutActivity" in state, state[:400]  # the last picture is the checkout screen
    assert screens["cart"] != screens["checkout"]
    return screens


class Chain:
    """Three scripted steps, then a stream held halfway: the run is frozen mid-way."""

    provider, name, context_window, supports_images = "test", "chain", 128_000, True

    def __init__(self) -> None:
        self.steps = ScriptedModel(
            [Reply.call("toy_open", page="Cart"), Reply.call("toy_tap", label="Checkout"), Reply.call("toy_read")]
        )
        self.hold = HoldingModel(pieces=("Looking at the order…",))

    def stream(self, request):
        return self.steps.stream(request) if self.steps.remaining else self.hold.stream(request)


CHECKOUT = "Confirm order · Green Tea 250g × 1 · Amount due: ¥23.50 · Pay ¥23.50"


def approval_model() -> ScriptedModel:
    """The checkout on the phone's screen, then the payment the run must ask about."""
    return ScriptedModel(
        [
            Reply.call("toy_open", page=CHECKOUT),
            Reply.call("toy_tap", label="Pay ¥23.50"),
            Reply.call("request_confirmation", what="Green Tea 250g × 1", amount="¥23.50", app="com.toy.shop"),
            Reply.call("toy_tap", label="Pay ¥23.50"),
            "Paid ¥23.50 for Green Tea 250g.",
        ]
    )


class TestRunOnRealScreens:
    @SIZES
    @LANGS
    def test_main_screen_during_a_run(self, snap_compare, tmp_path, shop_screens, size, lang):
        from tests.core.toy import ToyWorld

        model = Chain()
        app = make_app(
            tmp_path,
            model,
            language=lang,
            frames=[shop_screens["checkout"]],
            world=ToyWorld(screen=CHECKOUT),
        )

        async def before(pilot):
            await scenes.run_to_hold(pilot, "check out my cart" if lang == "en" else "结算购物车", model.hold)
            pilot.app.deps.clock.advance(72)  # the header shows 1m12s
            pilot.app.main_screen.refresh_status()
            await settle(pilot)

        assert snap_compare(app, terminal_size=size, run_before=before)

    @SIZES
    @LANGS
    def test_approval_card(self, snap_compare, tmp_path, shop_screens, size, lang):
        app = make_app(tmp_path, approval_model(), language=lang, frames=[shop_screens["checkout"]])

        async def before(pilot):
            await scenes.run_to_card(
                pilot, "buy the green tea in my cart" if lang == "en" else "买下购物车里的绿茶", "approval"
            )

        assert snap_compare(app, terminal_size=size, run_before=before)


def write_shop_run(state, screens: dict[str, bytes]) -> str:
    """A finished run's record as the recorder lays it out, its frames the phone's own."""
    import json

    from tests.tui.conftest import FIXED_NOW

    run_id = "r-5h0p42"
    run_dir = state / "runs" / f"20261130-110000-{run_id}"
    (run_dir / "frames").mkdir(parents=True)
    (run_dir / "frames" / "frame-0001-s1.png").write_bytes(screens["cart"])
    (run_dir / "frames" / "frame-0002-s2.png").write_bytes(screens["checkout"])
    goal = "buy the green tea in my cart"
    summary = {
        "id": run_id,
        "goal": goal,
        "state": "ended",
        "outcome": "answered",
        "started_at": FIXED_NOW - 3600,
        "metrics": {"steps": 4, "total_ms": 48000},
    }
    (run_dir / "run.json").write_text(json.dumps(summary))
    t = FIXED_NOW - 3600
    steps = [
        ("c1", "open_app", {"app": "Shop"}, {"ok": True, "effect": "place_changed", "frame": "frame-0001-s1.png"}),
        ("c2", "tap", {"label": "Checkout"}, {"ok": True, "effect": "place_changed", "frame": "frame-0002-s2.png"}),
        (
            "c3",
            "request_confirmation",
            {"what": "Green Tea 250g × 1", "amount": "¥23.50", "app": "com.mika.shop"},
            {"ok": True, "effect": "done", "text": "The user approved the payment once."},
        ),
        ("c4", "tap", {"label": "Pay ¥23.50"}, {"ok": True, "effect": "done", "wait_ms": 1200}),
    ]
    events: list[dict] = [
        {"type": "run_started", "run_id": run_id, "goal": goal, "origin": "ui", "attendance": "present", "at": t}
    ]
    for i, (call_id, name, arguments, result) in enumerate(steps):
        at = t + 2 + i * 10
        events.append(
            {"type": "tool_call", "run_id": run_id, "call_id": call_id, "name": name, "arguments": arguments, "at": at}
        )
        events.append(
            {
                "type": "tool_result",
                "run_id": run_id,
                "call_id": call_id,
                "name": name,
                "duration_ms": 800,
                "at": at + 1,
            }
            | result
        )
    events.append(
        {
            "type": "outcome",
            "run_id": run_id,
            "status": "answered",
            "answer": "Paid ¥23.50 for Green Tea 250g.",
            "steps": 4,
            "at": t + 48,
        }
    )
    (run_dir / "events.jsonl").write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in events) + "\n")
    return run_id


class TestRunsOnRealScreens:
    @SIZES
    @LANGS
    def test_runs_screen(self, snap_compare, tmp_path, shop_screens, size, lang):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language=lang, frames=[shop_screens["cart"]])
        write_shop_run(app.deps.state_dir, shop_screens)

        async def before(pilot):
            await settle(pilot)
            await scenes.type_task(pilot, "/runs")  # the runs screen by keys
            await settle(pilot)
            await settle(pilot)

        assert snap_compare(app, terminal_size=size, run_before=before)

    @SIZES
    @LANGS
    def test_a_run_with_its_real_frame(self, snap_compare, tmp_path, shop_screens, size, lang):
        app = make_app(tmp_path, ScriptedModel(["hi"]), language=lang, frames=[shop_screens["cart"]])
        write_shop_run(app.deps.state_dir, shop_screens)

        async def before(pilot):
            await settle(pilot)
            await scenes.type_task(pilot, "/runs")  # the runs screen by keys, then the run with Enter
            await settle(pilot)
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            # Step 2, the tap on Checkout: the frame beside it is the checkout the phone drew.
            # The cursor starts lit on the last of the 4 steps.
            await pilot.press("up", "up")
            await settle(pilot)

        assert snap_compare(app, terminal_size=size, run_before=before)
