"""phone_extract on the simulated phone through real adb: a sign-in form with a typed
password (never returned), the visible text in reading order, and list rows."""

from __future__ import annotations

import json
from pathlib import Path

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of
from tests.sim_world.driver import OverAdb, tap

PASSWORD = "S3cretPass"


def cap_for(phone, backend: str = "dump") -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend=backend))


def signed_in_form(sim_phone) -> None:
    d = OverAdb(sim_phone)
    sim_phone.shell("am start -n com.mika.account/.SignInActivity")
    tap(d, rid="username")
    sim_phone.shell("input text alice@example.com")
    tap(d, rid="password")
    sim_phone.shell(f"input text {PASSWORD}")


async def _extract(tmp_path, cap, *kinds):
    driver = ListingDriver([*(step("phone_extract", kind=k) for k in kinds), "done"])
    run = make_run(tmp_path, cap, driver)
    await run.run()
    return run, results_of(record(run), "phone_extract")


async def test_a_typed_password_never_comes_back_in_any_kind(tmp_path, sim_phone):
    signed_in_form(sim_phone)
    for backend in ("dump", "u2"):
        run, outs = await _extract(tmp_path / backend, cap_for(sim_phone, backend), "form", "text", "rows")
        form, text, rows = outs
        fields = form["rows"]
        # u2 reports the hint, a plain dump only the resource id
        assert form["ok"] and fields[0]["label"] in ("username", "Email or phone"), fields
        assert fields[0]["kind"] == "field" and fields[0]["value"] == "alice@example.com"
        assert fields[1]["label"] in ("password", "Password") and fields[1]["kind"] == "password"
        assert fields[1]["value"].startswith("(password")
        assert "Sign in" in text["text"]
        assert not rows["ok"] and "no list" in rows["text"]
        # nowhere in the whole run record, in the model's view or the data
        whole = (Path(run.result.record_dir) / "events.jsonl").read_text()
        assert PASSWORD not in whole and PASSWORD not in json.dumps([o["rows"] for o in outs])
        # the dots a dump may show are not handed out either
        assert "•" not in form["text"]


async def test_text_in_reading_order_and_rows_of_a_list(tmp_path, sim_phone):
    sim_phone.shell("am start -n com.android.contacts/.activities.PeopleActivity")
    _run, (text, rows) = await _extract(tmp_path, cap_for(sim_phone), "text", "rows")
    lines = text["text"]
    assert lines.index("Contacts") < lines.index("Alice Chen") < lines.index("Bob Li")
    assert '<untrusted source="screen"' in lines
    names = [r["text"] for r in rows["rows"]]
    assert names[:3] == ["Alice Chen", "Bob Li", "Carol Wang"]


async def test_a_bad_kind_names_the_field(tmp_path, sim_phone):
    _run, (bad,) = await _extract(tmp_path, cap_for(sim_phone), "everything")
    assert not bad["ok"] and "kind" in bad["text"]
