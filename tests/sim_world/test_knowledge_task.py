"""The Market (com.mika.market): a task where knowing the app pays.

Its product search sits behind an icon with no text and no description (the middle of
three unnamed top-bar buttons, resource id `com.mika.market:id/a7c`), and its order
history behind the avatar → My account → Orders, or the deep link
`mikamarket://history`. Everything here goes through a real adb server to the simulated
phone; the runs go through the real TaskRun with a scripted model that reads the
listings it is given (tests/phone/driver.py), nothing about the phone is faked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.knowledge.catalog import KnowledgeCatalog
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from mika.runtypes.result import OutcomeStatus
from mika.sim.apps.registry import load_apps
from mika.sim.tasks import get_task
from mika.uistate import build_screen, parse_hierarchy
from tests.phone.driver import current_listing, elements_in, number_for
from tests.phone.test_runs import make_run, world_state
from tests.sim_world.driver import OverAdb, find, scroll_to, state, tap, texts

SEARCH_ICON = "com.mika.market:id/a7c"
PRICE = "¥137.50"  # what the Market charges for the Aurora Desk Lamp (scenario market)


@pytest.fixture
def market(sim_phone):
    sim_phone.shell("simctl reset market")
    return sim_phone


def _listing(d: OverAdb) -> str:
    plain = d.shell("uiautomator dump /dev/tty").split("UI hierchary dumped to")[0]
    return build_screen(parse_hierarchy(plain), size=(1080, 2400), display_id=0).listing()


# -- the icon the model cannot read ------------------------------------------------------


def test_search_icon_has_no_text_no_description_and_lists_as_an_unnamed_button(market) -> None:
    d = OverAdb(market)
    d.shell("monkey -p com.mika.market 1")
    node = find(d, rid=SEARCH_ICON)
    assert node is not None
    assert node.get("text") == "" and node.get("content-desc") == ""
    assert node.get("clickable") == "true" and node.get("bounds") == "[792,112][936,256]"
    listing = _listing(d)
    unnamed = [(n, label) for n, role, label, _ in elements_in(listing) if role == "button" and label.startswith("@")]
    # three unnamed buttons side by side; the search is the middle one and nothing names it
    assert [label for _, label in unnamed] == ["@720,184", "@864,184", "@1008,184"], listing
    assert "search" not in listing.lower()
    assert "#a7c" not in listing  # an obfuscated id names nothing in the listing either


def test_the_other_unnamed_icons_do_not_search(market) -> None:
    d = OverAdb(market)
    d.shell("monkey -p com.mika.market 1")
    d.shell("input tap 720 184")  # the first: a scanner, with no camera here
    assert find(d, text="Search Market") is None
    d.shell("input tap 1008 184")  # the third: the Market's own inbox
    assert "Messages" in texts(d) and find(d, text="Search Market") is None


# -- both routes reach the product -------------------------------------------------------


def _price_on_item_page(d: OverAdb) -> str:
    node = find(d, rid="com.mika.market:id/item_price")
    assert node is not None, texts(d)
    return node.get("text", "")


def test_icon_route_and_browse_route_reach_the_same_product_and_price(market) -> None:
    d = OverAdb(market)
    d.shell("monkey -p com.mika.market 1")
    tap(d, rid=SEARCH_ICON)
    d.shell("input text Aurora%sDesk%sLamp && input keyevent ENTER")
    market.device.world.clock.jump(1)  # past the results' loading state
    shown = texts(d)
    assert "Aurora Desk Lamp" in shown and "Aurora Desk Lamp Mini" in shown  # a look-alike, cheaper
    tap(d, text="Aurora Desk Lamp")
    by_icon = _price_on_item_page(d)
    assert state(d, "market")["last_viewed"] == "lighting42"

    d.shell("simctl reset market")
    d.shell("monkey -p com.mika.market 1")
    tap(d, text="Home & Living")
    tap(d, text="Lighting")
    assert "Aurora Desk Lamp" not in texts(d)  # far down a 48-row shelf: scrolling is the visible route
    scroll_to(d, "Aurora Desk Lamp")
    tap(d, text="Aurora Desk Lamp")
    by_browsing = _price_on_item_page(d)
    assert by_icon == by_browsing == PRICE
    assert state(d, "market")["last_viewed"] == "lighting42"


def test_order_history_by_deep_link_and_by_the_avatar_route(market) -> None:
    d = OverAdb(market)
    d.shell("am start -a android.intent.action.VIEW -d mikamarket://history")
    by_link = texts(d)
    assert "Linen Throw Pillow" in by_link
    d.shell("simctl reset market")
    d.shell("monkey -p com.mika.market 1")
    assert "Orders" not in texts(d)
    tap(d, desc="Profile photo")
    tap(d, text="My account")
    tap(d, text="Orders")
    assert texts(d) == by_link
    assert state(d, "market")["history_seen"] is True


# -- the shipped knowledge says what the sim does ----------------------------------------

# Engineer kgl writes these (real apps the sim imitates); every other sim app is ours.
_NOT_OURS = {
    "com.android.settings",
    "com.google.android.deskclock",
    "com.google.android.calendar",
    "com.android.contacts",
    "com.google.android.apps.messaging",
    "android",
}


def test_every_sim_only_app_has_shipped_knowledge() -> None:
    catalog = KnowledgeCatalog.load()
    assert not [p for p in catalog.problems if "com.mika" in str(p) or "launcher3" in str(p)]
    missing = [pkg for pkg in load_apps() if pkg not in _NOT_OURS and catalog.for_package(pkg) is None]
    assert missing == []
    for pkg in load_apps():
        entry = catalog.for_package(pkg)
        if pkg.startswith("com.mika.") and entry is not None:
            assert entry.verified, f"{pkg}: every statement about a sim app can be checked in its JSON"


def test_market_knowledge_names_the_icon_and_the_link_the_sim_really_has(market) -> None:
    entry = KnowledgeCatalog.load().for_package("com.mika.market")
    assert entry is not None and entry.kind == "app"
    rid = re.search(r"`(com\.mika\.market:id/\w+)`", entry.body)
    spot = re.search(r"at about (\d+),(\d+) on a 1080x2400 screen", entry.body)
    link = re.search(r"`(mikamarket://\w+)`", entry.body)
    assert rid and spot and link, entry.body
    d = OverAdb(market)
    d.shell("monkey -p com.mika.market 1")
    assert f"@{spot.group(1)},{spot.group(2)}" in _listing(d)  # the unnamed button the body points at
    tap(d, rid=rid.group(1))
    assert find(d, text="Search Market") is not None  # …and it is the search
    d.shell(f"am start -a android.intent.action.VIEW -d {link.group(1)}")
    assert "Linen Throw Pillow" in texts(d) and "Orders" in texts(d)


def test_market_knowledge_is_not_pulled_in_by_ordinary_words() -> None:
    # Matched against a task's text at the start of a run: a sim app's file must not ride
    # along with real tasks that say "market", "shop", "notes" or "video".
    catalog = KnowledgeCatalog.load()
    for goal in ("Check the stock market news", "Open Notes", "Watch a video", "Shop for shoes", "Open my wallet"):
        assert not [e.id for e in catalog.match_text(goal) if e.id.startswith("com.mika.")], goal
    assert [e.id for e in catalog.match_text("集市 App 里 Aurora Desk Lamp 卖多少钱？")] == ["com.mika.market"]


# -- the tasks' checks: right answers pass, wrong ones fail -------------------------------


def test_price_task_check_passes_on_the_price_and_fails_on_wrong_answers(market) -> None:
    world = state(OverAdb(market))
    for task_id in ("market_price_aurora_lamp", "market_price_aurora_lamp_zh"):
        task = get_task(task_id)
        assert task.expect == "answer" and task.scenario == "market"
        assert task.succeeded(world, "The Aurora Desk Lamp is ¥137.50.")
        assert task.succeeded(world, "137.5 元")
        for wrong in ("¥89.00", "It costs 137 yuan.", "¥173.50", "", "I could not find it."):
            assert not task.succeeded(world, wrong), wrong
        assert not task.succeeded(world), "no answer is no success"


def test_order_task_needs_the_history_screen_and_the_right_status(market) -> None:
    task = get_task("market_order_status_pillow")
    d = OverAdb(market)
    before = state(d)
    # the inbox says the pillow is "on its way": an answer guessed from it is not the status
    assert not task.succeeded(before, "Out for delivery")  # never opened the order history
    d.shell("am start -a android.intent.action.VIEW -d mikamarket://history")
    after = state(d)
    assert task.succeeded(after, "It is out for delivery.")
    for wrong in ("Shipped", "Delivered", "It is on its way.", ""):
        assert not task.succeeded(after, wrong), wrong


# -- a whole run through the real run path -----------------------------------------------

Step = Callable[[str], "Reply | str"]


def _scripted(steps: list[Step]) -> tuple[FunctionModel, list[str]]:
    """A model that answers each request with the next step, given the latest listing."""
    seen: list[str] = []

    def reply(request) -> Reply | str:
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                seen.append(part.text)
        listing = current_listing(seen)
        return steps.pop(0)(listing)

    return FunctionModel(reply), seen


def _unnamed_buttons(listing: str) -> list[int]:
    return [n for n, role, label, _ in elements_in(listing) if role == "button" and label.startswith("@")]


def _price_line(listing: str, name: str) -> str:
    for _n, _role, label, _ in elements_in(listing):
        if label.startswith(name + " · "):
            return label.split(" · ", 1)[1]
    raise AssertionError(f"{name!r} is not in the listing:\n{listing[-2000:]}")


def _cap(sim_phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))


async def test_informed_run_taps_the_unnamed_icon_and_answers_the_price(tmp_path, market) -> None:
    task = get_task("market_price_aurora_lamp")
    model, seen = _scripted(
        [
            lambda _: Reply.call("phone_launch_app", app="Market"),
            lambda listing: Reply.call("phone_tap", element=_unnamed_buttons(listing)[1]),
            lambda _: Reply.call("phone_type_text", text="Aurora Desk Lamp", submit=True),
            lambda _: Reply.call("phone_wait", expect_gone="Searching…"),  # the results load for a moment
            lambda listing: f"The Market charges {_price_line(listing, 'Aurora Desk Lamp')} for the Aurora Desk Lamp.",
        ]
    )
    run = make_run(tmp_path, _cap(market), _Driver(model), goal=task.goal)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert task.succeeded(world_state(market), result.answer), result.answer
    assert PRICE in result.answer
    assert "search.SearchActivity" in seen[1]  # the tap on the unnamed icon opened the search
    assert len(model.requests) == 5


async def test_uninformed_run_browses_and_scrolls_to_the_same_price(tmp_path, market) -> None:
    task = get_task("market_price_aurora_lamp")
    steps: list[Step] = [
        lambda _: Reply.call("phone_launch_app", app="Market"),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "Home & Living")),
        lambda listing: Reply.call("phone_tap", element=number_for(listing, "Lighting")),
    ]

    def scroll_or_answer(listing: str) -> Reply | str:
        if any(label.startswith("Aurora Desk Lamp · ") for _, _, label, _ in elements_in(listing)):
            return f"It costs {_price_line(listing, 'Aurora Desk Lamp')}."
        steps.append(scroll_or_answer)
        return Reply.call("phone_scroll", direction="down")

    steps.append(scroll_or_answer)
    model, _seen = _scripted(steps)
    run = make_run(tmp_path, _cap(market), _Driver(model), goal=task.goal)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert task.succeeded(world_state(market), result.answer), result.answer
    # the long way: at least two scrolls of the shelf on top of the three steps in
    assert len(model.requests) >= 6


class _Driver:
    """make_run takes a driver with a `.model`; ours is a plain scripted FunctionModel."""

    def __init__(self, model: FunctionModel) -> None:
        self.model = model


async def test_informed_order_run_opens_the_deep_link_without_a_payment_question(tmp_path, market) -> None:
    # `mikamarket://history` names no checkout / pay / order word: the action entry lets an
    # unattended run open it (a link that read as paying would stop for the user).
    task = get_task("market_order_status_pillow")

    def status(listing: str) -> str:
        # An order's name, status, date and price are one line (texts with nothing to act on
        # between them share a line in the listing).
        row = next(label for _, _, label, _ in elements_in(listing) if label.startswith("Linen Throw Pillow · "))
        return f"It is {row.split(' · ')[1].lower()}."

    model, seen = _scripted(
        [lambda _: Reply.call("phone_open_link", url="mikamarket://history", app="com.mika.market"), status]
    )
    run = make_run(tmp_path, _cap(market), _Driver(model), goal=task.goal)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert seen and seen[0].startswith("Opened mikamarket://history"), seen
    assert task.succeeded(world_state(market), result.answer), result.answer
