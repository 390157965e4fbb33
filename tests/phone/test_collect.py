"""phone_collect on the simulated phone through real adb: the 300-message group chat
(scenario group_chat) read screen by screen, merged by overlap, compared with the data."""

from __future__ import annotations

import json
from importlib import resources

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.runtypes.result import OutcomeStatus
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of


def group_messages() -> list[dict]:
    path = resources.files("mika.sim.world") / "scenarios" / "data" / "group_chat.json"
    chats = json.loads(path.read_text(encoding="utf-8"))["chats"]
    return next(c for c in chats if c["id"] == "g1")["messages"]


def dump_cap(phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"))


def open_group(sim_phone_factory, backend: str = "dump"):
    phone = sim_phone_factory(scenario="group_chat")
    cap = PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend=backend))
    return phone, cap


async def test_collect_returns_all_300_messages_in_order_without_duplicates(tmp_path, sim_phone_factory):
    _phone, cap = open_group(sim_phone_factory)
    driver = ListingDriver(
        [
            step("phone_launch_app", app="微聊"),
            step("phone_tap", pick="周末户外群"),
            step("phone_collect", direction="up", max_screens=100),
            "done",
        ]
    )
    run = make_run(tmp_path, cap, driver)
    result = await run.run()
    assert result.status is OutcomeStatus.ANSWERED, result.answer
    out = results_of(record(run), "phone_collect")[0]
    rows = out["rows"]
    want = group_messages()
    assert "reached the end" in out["text"] and "may be missing" not in out["text"]
    assert len(rows) == len(want) == 300
    for got, msg in zip(rows, want, strict=True):
        assert got["text"] == msg["text"], (got, msg)
        assert got["time"] == msg["time"]
        assert got["day"] == msg["day"]
        assert got["sender"] == ("" if msg["from"] == "我" else msg["from"])
        assert got["outgoing"] is (msg["from"] == "我")
    # same text, same minute, two senders: both kept
    assert [(r["sender"], r["text"]) for r in rows[150:152]] == [("王芳", "收到"), ("李雷", "收到")]
    text = driver.results[2]
    assert text.startswith("Collected 300 rows") and "reached the end of the list" in text
    assert '<untrusted source="screen"' in text  # the rows are the app's text: fenced
