"""Issue 15, "Done when", end to end: real `TaskRun`s with a scripted model, the web
capability over real Chromium (`PlaywrightWebPort`) on the loopback test site, no phone.

The scripted model reads the real tool results the run gives it — element numbers come
from the latest listing, facts from the page text — as a real model does; nothing about
the browser or the site is faked. What the site saw (`site.seen`, `site_shop.ORDERS`) is
the proof of what was, or was not, bought.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.web import WebCapability
from mika.cap.web.options import WebOptions
from mika.cap.web.playwright import PlaywrightWebPort
from mika.memory.store import MemoryStore
from mika.model.messages import ToolResult
from mika.model.testing import FunctionModel, Reply
from mika.record.events import ConfirmationAsked, RunEvent
from mika.record.redactor import Redactor
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.result import OutcomeStatus
from mika.runtypes.spec import Attendance, RunOrigin, RunProvenance, RunSpec
from tests.phone.driver import current_listing, elements_in, number_for
from tests.web import site_shop
from tests.web.site_server import LocalSite

Step = Callable[[str, list[str]], "Reply | str | Awaitable[str]"]


class Scripted:
    """A model that answers each request with the next step, given the latest listing and
    every tool result so far (the texts the run really sent back)."""

    def __init__(self, steps: list[Step], *, memory_reply: str = "") -> None:
        self.steps = list(steps)
        self.results: list[str] = []
        # What it proposes when the run asks it to extract memories (a side call).
        self.memory_reply = memory_reply
        self.memory_asked = 0
        self.model = FunctionModel(self.reply)

    def reply(self, request: Any) -> Reply | str | Awaitable[str]:
        if getattr(request, "purpose", "") == "memory":
            self.memory_asked += 1
            return self.memory_reply
        for part in request.messages[-1].parts if request.messages else ():
            if isinstance(part, ToolResult):
                self.results.append(part.text)
        if not self.steps:
            return "Stopping here."
        return self.steps.pop(0)(current_listing(self.results), self.results)


@pytest.fixture
async def web(chromium_path: str, tmp_path: Path) -> AsyncIterator[WebCapability]:
    options = WebOptions(browser=chromium_path, downloads_dir=tmp_path / "downloads")
    cap = WebCapability(PlaywrightWebPort(options), options)
    try:
        yield cap
    finally:
        await cap.close()  # the run closes it too; a second close is a no-op


def make_run(
    tmp_path: Path,
    web: WebCapability,
    scripted: Scripted,
    goal: str,
    *,
    present: bool = False,
    memory: MemoryStore | None = None,
    redactor: Redactor | None = None,
) -> TaskRun:
    provenance = (
        RunProvenance(RunOrigin.UI, Attendance.PRESENT)
        if present
        else RunProvenance(RunOrigin.CLI, Attendance.UNATTENDED)
    )
    spec = RunSpec(goal=goal, provenance=provenance, conversation_id="c-web")
    # No phone: the environment has only the web capability (the `--device none` shape).
    caps = capabilities_for(spec, RunEnvironment(extra=[web], memory=memory))
    assert [c.id for c in caps] == ["general", "web"]
    opts = RunOptions(
        pacing=False,
        state_dir=tmp_path / "state",
        memory=memory,
        memory_extract=memory is not None,
        redactor=redactor,
    )
    return TaskRun(spec, scripted.model, caps, opts)


def recorded(run: TaskRun) -> list[dict[str, Any]]:
    assert run.result is not None and run.result.record_dir
    lines = (Path(run.result.record_dir) / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def results_of(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "tool_result" and e["name"] == name]


def call(tool: str, **args: Any) -> Step:
    return lambda _listing, _results: Reply.call(tool, **args)


def tap(label: str, role: str | None = None) -> Step:
    return lambda listing, _results: Reply.call("web_tap", element=number_for(listing, label, role=role))


def requests_to(site: LocalSite, mark: int, prefix: str) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in site.seen[mark:] if r.path.startswith(prefix)]


# --- 1. a question answered from the site: search, page 2, a product page ------------


def _kenyan_link(listing: str, _results: list[str]) -> Reply:
    """The result whose line under it says Kenya: the model picks it from what it reads."""
    rows = elements_in(listing)
    for i, (n, role, _label, _rest) in enumerate(rows):
        if role == "link" and i + 1 < len(rows) and "Kenya" in rows[i + 1][2]:
            return Reply.call("web_tap", element=n)
    raise AssertionError(f"no Kenyan coffee on this page:\n{listing}")


def _answer_from_page(listing: str, _results: list[str]) -> str:
    text = listing  # the product page as the run showed it (a repeat look says "nothing changed")
    altitude = re.search(r"Altitude: ([0-9,–-]+ m)", text)
    price = re.search(r"\$[0-9.]+", text)
    assert altitude and price, text
    return f"The Kenyan coffee, Kenya Nyeri AA, is grown at {altitude.group(1)} and costs {price.group(0)}."


async def test_a_question_is_answered_by_searching_paging_and_reading_a_product(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    mark = len(site.seen)
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/")),
            lambda listing, _r: Reply.call(
                "web_type_text",
                element=number_for(listing, "Search the shop", role="input"),
                text="coffee",
                submit=True,
            ),
            call("web_scroll", direction="down", pages=3),  # the pager is under the results
            tap("Next", role="link"),
            _kenyan_link,
            call("web_observe"),
            _answer_from_page,
        ]
    )
    run = make_run(
        tmp_path,
        web,
        scripted,
        "Which coffee on the second page of the shop's coffee search is from Kenya, and how high is it grown?",
    )
    result = await asyncio.wait_for(run.run(), 120)

    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert result.answer == "The Kenyan coffee, Kenya Nyeri AA, is grown at 1,750–1,900 m and costs $21.50."
    gets = [(r.path, r.query) for r in site.seen[mark:] if r.method == "GET"]
    assert ("/search/", {"q": "coffee"}) in gets
    assert ("/search/", {"q": "coffee", "page": "2"}) in gets  # it paged
    assert ("/product/6/", {}) in gets  # and read the product
    events = recorded(run)
    sources = [e for e in events if e["type"] == "sources"]
    assert sources, "the answer names no sources"
    places = [o.get("place") or {} for o in sources[-1]["observations"]]
    # The answer's sources name the product page (read there), and it comes first.
    assert places[0].get("id") == site.url("/product/6/")
    assert result.sources and result.sources[0]["place"]["id"] == site.url("/product/6/")


# --- 2. the Buy button: refused unattended; a card and one-shot consent when present --


@pytest.mark.parametrize(
    ("product", "button", "amount"),
    [(6, "Buy now", "$21.50"), (17, "立即购买 Buy now", "¥268.00")],
    ids=["dollar", "yuan-chinese-button"],
)
async def test_buy_now_is_refused_unattended_and_nothing_is_bought(
    tmp_path: Path, web: WebCapability, site: LocalSite, product: int, button: str, amount: str
) -> None:
    orders_before = set(site_shop.ORDERS)
    scripted = Scripted(
        [
            call("web_navigate", url=site.url(f"/product/{product}/")),
            tap(button, role="button"),
            tap(button, role="button"),  # asking again changes nothing
            lambda _l, _r: "I could not buy it.",
        ]
    )
    mark = len(site.seen)
    run = make_run(tmp_path, web, scripted, "Buy one of these.")
    await asyncio.wait_for(run.run(), 120)

    events = recorded(run)
    taps = results_of(events, "web_tap")
    assert [t["code"] for t in taps] == ["approval_unavailable", "approval_unavailable"]
    assert requests_to(site, mark, "/checkout") == []  # the site never saw a checkout
    assert requests_to(site, mark, "/pay") == []
    assert set(site_shop.ORDERS) == orders_before
    approvals = [e for e in events if e["type"] == "approval"]
    assert approvals and approvals[0]["decision"] == "approval_unavailable"
    assert approvals[0]["amount"] == amount and approvals[0]["button"] == button


def _confirm(amount_from_page: bool = True) -> Step:
    def ask(listing: str, _results: list[str]) -> Reply:
        amount = re.search(r"[$¥][0-9,.]+", listing)
        assert amount, listing
        return Reply.call(
            "request_confirmation", what="1 bag of Kenya Nyeri AA", amount=amount.group(0), app="127.0.0.1"
        )

    return ask


def _fill(label: str, text: str) -> Step:
    return lambda listing, _r: Reply.call("web_type_text", element=number_for(listing, label, role="input"), text=text)


async def test_buy_now_asks_with_a_card_consent_releases_one_action_and_pay_is_the_users(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    orders_before = set(site_shop.ORDERS)
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/product/6/")),
            tap("Buy now", role="button"),  # held: needs the person's consent
            _confirm(),
            tap("Buy now", role="button"),  # released, once → the checkout form
            _fill("Full name", "Mika Tester"),
            _fill("Street address", "1 Test Road"),
            tap("Place order", role="button"),  # a second money step: the consent was spent
            _confirm(),
            tap("Place order", role="button"),  # released → the pay page
            tap("Pay", role="button"),  # the final pay: handed to the user
            lambda _l, _r: "The order is placed; the payment is yours to make.",
        ]
    )
    mark = len(site.seen)
    run = make_run(tmp_path, web, scripted, "Buy one bag of Kenya Nyeri AA.", present=True)
    cards: list[ConfirmationAsked] = []

    def on_event(e: RunEvent) -> None:
        if isinstance(e, ConfirmationAsked):
            cards.append(e)
            asyncio.get_running_loop().call_soon(run.confirm, e.question_id, True)

    run.subscribe(on_event)
    await asyncio.wait_for(run.run(), 120)

    events = recorded(run)
    assert [t["code"] for t in results_of(events, "web_tap")] == [
        "confirmation_required",
        "done",
        "confirmation_required",
        "done",
        "pay_by_user",
    ]
    # Two cards, each showing what the page showed: the item's price, then the order total.
    assert len(cards) == 2
    assert all(c.screen_amount == "$21.50" for c in cards), [(c.screen_amount, c.screen_item) for c in cards]
    # The site saw exactly one Buy now (POST /checkout/) and one Place order — and no payment.
    assert requests_to(site, mark, "/checkout") == [("POST", "/checkout/"), ("POST", "/checkout/place")]
    assert requests_to(site, mark, "/pay") == [("GET", "/pay/")]
    new = set(site_shop.ORDERS) - orders_before
    assert len(new) == 1
    order = site_shop.ORDERS[new.pop()]
    assert order.lines == [(6, 1)] and not order.paid
    # Every approval names the amount the page asks for — not another figure on the page
    # (the footer's "Free shipping over $40 / ¥300").
    approvals = [e for e in events if e["type"] == "approval"]
    assert {e["amount"] for e in approvals} == {"$21.50"}
    taps_what = [e["what"] for e in approvals if e["tool"] == "web_tap"]
    assert all("$21.50" in w and "¥300" not in w and "$40" not in w for w in taps_what), taps_what
    decisions = [(e["decision"], e["button"]) for e in approvals]
    assert decisions == [
        ("confirmation_required", "Buy now"),
        ("allowed", "Buy now"),
        ("released", "Buy now"),
        ("confirmation_required", "Place order"),
        ("allowed", "Place order"),
        ("released", "Place order"),
        ("pay_by_user", "Pay $21.50"),
    ]


# --- 1b. the same from a lazy-loading list: "Load more", wait for the batch, read ------


def _indian_teas(_listing: str, results: list[str]) -> str:
    """From the whole-page element list the run gave: the lines that say India, with the
    name on the line above (each loaded result is a name link, then price · origin)."""
    rows = [json.loads(line) for line in results[-1].splitlines() if line.startswith('{"n"')]
    found = []
    for above, row in itertools.pairwise(rows):
        if above["role"] == "link" and "India" in row["label"]:
            found.append(f"{above['label']} ({row['label'].split(' · ')[0]})")
    assert found, results[-1]
    return "The Indian teas are " + " and ".join(found) + "."


async def test_a_question_is_answered_from_a_lazy_loading_list(
    tmp_path: Path, web: WebCapability, site: LocalSite
) -> None:
    mark = len(site.seen)
    total = len(site_shop.search("tea"))  # as the page counts them (a substring match: "plateau" too)
    scripted = Scripted(
        [
            call("web_navigate", url=site.url("/search/lazy/?q=tea")),
            call("web_scroll", direction="down", pages=3),
            tap("Load more", role="button"),
            call("web_wait_for", text=f"Showing 10 of {total} results"),
            call("web_list_elements"),
            _indian_teas,
        ]
    )
    run = make_run(tmp_path, web, scripted, "Which Indian teas does the shop sell, and at what price?")
    result = await asyncio.wait_for(run.run(), 120)

    assert result.status is OutcomeStatus.ANSWERED, result.answer
    assert result.answer == "The Indian teas are Darjeeling First Flush ($24.00) and Assam Breakfast ($11.50)."
    more = [r.query for r in site.seen[mark:] if r.path == "/api/more"]
    assert more == [{"q": "tea", "page": "2"}]  # the second batch, fetched by the page's script
    events = recorded(run)
    waits = results_of(events, "web_wait_for")
    assert [w["ok"] for w in waits] == [True], [(w["code"], w["text"][:600]) for w in waits]
    sources = [e for e in events if e["type"] == "sources"]
    assert sources and (sources[-1]["observations"][0].get("place") or {}).get("id") == site.url("/search/lazy/?q=tea")
