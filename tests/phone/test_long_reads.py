"""Honest long reads (issue 33): phone_collect, phone_find and phone_extract on every list
shape the simulated phone has, through real adb, each list 60 rows or more (scenario
long_lists; the group chat is scenario group_chat): every row collected exactly once, and
"end" said only when the list really ended.

Shapes: contacts (plain, and grouped with sticky letter headers), settings (Languages),
chat (300 messages), message list (Messages), shop results, a list that loads more at its
end (Moments), a horizontal carousel (the Shop's picks). Runs on the run's own display
(uiautomator2, swipes over the control channel, which land a moment after they are sent:
the race that once ended a read after 2 screens) and on the main display, at pace fast
and standard.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of


def data() -> dict:
    path = resources.files("mika.sim.world") / "scenarios" / "data" / "long_lists.json"
    return json.loads(path.read_text(encoding="utf-8"))


def cap_for(phone, mode: str = "virtual", backend: str = "u2", pace: str = "fast") -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend=backend), display_mode=mode, pace=pace)


async def run_steps(tmp_path, cap, *steps) -> tuple[list[dict], ListingDriver]:
    driver = ListingDriver([*steps, "done"])
    run = make_run(tmp_path, cap, driver)
    await run.run()
    return record(run), driver


async def collected(tmp_path, cap, *steps, **collect) -> dict:
    events, _driver = await run_steps(tmp_path, cap, *steps, step("phone_collect", max_screens=100, **collect))
    outs = results_of(events, "phone_collect")
    assert outs, [e for e in events if e["type"] == "tool_result"]
    return outs[0]


def texts(out: dict) -> list[str]:
    return [r["text"] for r in out["rows"]]


def ended(out: dict) -> None:
    assert out["read"]["stop"] in ("end", "app_end") and out["read"]["complete"] is True, out["text"][:300]
    assert "reached the end of the list" in out["text"]
    assert "may be missing" not in out["text"]


CONTACT_NAMES = [c["name"] for c in data()["contacts"]]


@pytest.mark.parametrize(
    ("mode", "backend", "pace"),
    [("virtual", "u2", "fast"), ("virtual", "u2", "standard"), ("main", "u2", "fast"), ("main", "dump", "standard")],
)
async def test_contacts_every_row_once_on_every_display_and_pace(tmp_path, sim_phone_factory, mode, backend, pace):
    phone = sim_phone_factory(scenario="long_lists")
    out = await collected(
        tmp_path, cap_for(phone, mode, backend, pace), step("phone_launch_app", app="Contacts"), direction="down"
    )
    assert len(CONTACT_NAMES) >= 60
    assert texts(out) == CONTACT_NAMES
    ended(out)


async def test_sticky_letter_headers_are_read_once_and_the_pinned_copy_never(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    phone.device.world.data["contacts_grouped"] = True
    phone.device.world.changed()
    out = await collected(tmp_path, cap_for(phone), step("phone_launch_app", app="Contacts"), direction="down")
    rows = out["rows"]
    headers = [r for r in rows if not r["text"]]  # a section header is the rows' "day": their group
    letters = sorted({n[0] for n in CONTACT_NAMES})
    assert [r["day"] for r in headers] == letters  # each letter once, where its group starts
    assert [r["text"] for r in rows if r["text"]] == CONTACT_NAMES  # no pinned copy, no row twice
    assert all(r["day"] == r["text"][0] for r in rows if r["text"])
    ended(out)


async def test_settings_languages_every_row_once(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    out = await collected(
        tmp_path,
        cap_for(phone),
        step("phone_launch_app", app="Settings"),
        step("phone_find", target="System", match="exact"),
        step("phone_tap", pick="System"),
        step("phone_tap", pick="Languages"),
        direction="down",
    )
    want = [v["v"] for v in data()["locales"]]
    assert len(want) >= 60 and texts(out) == want
    ended(out)


async def test_message_list_every_conversation_once(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    out = await collected(tmp_path, cap_for(phone), step("phone_launch_app", app="Messages"), direction="down")
    threads = data()["threads"]
    assert len(threads) >= 60 and len(out["rows"]) == len(threads)
    names = [next(t for _, t in r["fields"]) for r in out["rows"]]
    assert names == [t["name"] for t in threads]
    ended(out)


async def test_shop_results_every_product_once(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    out = await collected(
        tmp_path,
        cap_for(phone),
        step("phone_launch_app", app="Shop"),
        step("phone_type_text", pick="Search products", text="tea", submit=True),
        direction="down",
    )
    want = [i["name"] for i in data()["shop"]["items"] if "tea" in i["name"].lower()]
    assert len(want) >= 60
    assert [next(t for _, t in r["fields"]) for r in out["rows"]] == want
    ended(out)


async def test_a_list_that_loads_more_is_read_to_its_real_end(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    out = await collected(tmp_path, cap_for(phone), step("phone_launch_app", app="Moments"), direction="down")
    posts = data()["feed_posts"]
    assert len(posts) >= 60
    got = [tuple(t for _, t in r["fields"])[:2] for r in out["rows"]]
    assert got == [(p["who"], p["what"]) for p in posts]  # no spinner row, no "no more" footer
    assert out["read"]["stop"] == "app_end", out["text"][:300]
    ended(out)


async def test_a_horizontal_carousel_every_pick_once(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    out = await collected(tmp_path, cap_for(phone), step("phone_launch_app", app="Shop"), direction="right")
    want = [p["name"] for p in data()["shop"]["picks"]]
    assert len(want) >= 60 and texts(out) == want
    ended(out)


async def test_the_group_chat_every_message_once_on_the_main_display(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="group_chat")
    out = await collected(
        tmp_path,
        cap_for(phone, "main", "u2", "standard"),
        step("phone_launch_app", app="微聊"),
        step("phone_tap", pick="周末户外群"),
        direction="up",
    )
    assert len(out["rows"]) == 300
    ended(out)


async def test_a_budget_stop_says_how_far_it_got_and_never_claims_the_end(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    events, _ = await run_steps(
        tmp_path,
        cap_for(phone),
        step("phone_launch_app", app="Contacts"),
        step("phone_collect", direction="down", max_screens=3),
    )
    (out,) = results_of(events, "phone_collect")
    assert out["read"]["stop"] == "max_screens" and out["read"]["complete"] is False
    assert "reached the end" not in out["text"] and "before the end" in out["text"]
    last = out["rows"][-1]["text"]
    assert f">{out['rows'][-1]['index']}. {last}<" in out["text"].replace("</untrusted>", "<")  # how far: the last row
    assert texts(out) == CONTACT_NAMES[: len(out["rows"])]


async def test_find_reaches_the_last_row_of_every_long_list(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    events, _ = await run_steps(
        tmp_path,
        cap_for(phone),
        step("phone_launch_app", app="Contacts"),
        step("phone_find", target=CONTACT_NAMES[-1], max_scrolls=30),
        step("phone_find", target="No such person", max_scrolls=30, direction="up"),
    )
    found, missing = results_of(events, "phone_find")
    assert found["ok"] and "Found" in found["text"]
    assert not missing["ok"] and "the end of the list was reached" in missing["text"]


async def test_find_in_a_list_that_loads_more_waits_for_the_next_page(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    last = data()["feed_posts"][-1]["what"]
    events, _ = await run_steps(
        tmp_path,
        cap_for(phone),
        step("phone_launch_app", app="Moments"),
        step("phone_find", target=last, max_scrolls=30),
    )
    (found,) = results_of(events, "phone_find")
    assert found["ok"], found["text"]


async def test_extract_says_the_list_goes_on_past_the_screen(tmp_path, sim_phone_factory):
    phone = sim_phone_factory(scenario="long_lists")
    events, _ = await run_steps(
        tmp_path, cap_for(phone), step("phone_launch_app", app="Contacts"), step("phone_extract", kind="rows")
    )
    (out,) = results_of(events, "phone_extract")
    assert out["rows"] and [r["text"] for r in out["rows"]] == CONTACT_NAMES[: len(out["rows"])]
    assert "goes on past the screen" in out["text"] and "phone_collect" in out["text"]
