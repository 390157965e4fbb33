"""Notifications that arrive on the simulated phone's clock: the SMS code is due exactly
5 s after "Send code" (the clock is frozen and moved by `simctl set time`, so nothing
here depends on how fast the machine is), lands in the shade, in `dumpsys notification`
and in the Messages thread, and each send makes a new code."""

from __future__ import annotations

import json
import re

from mika.cap.phone.adb.parse.notifications import parse_notifications
from mika.sim.phone import make_device
from tests.sim_world.driver import Local, state, tap, texts, type_into


def _send_code(d: Local) -> None:
    d.shell("simctl set clock.frozen true")
    d.shell("am start -n com.mika.account/.SignInActivity")
    tap(d, text="Sign in with phone number")
    type_into(d, "5550199", hint="Phone number")
    tap(d, text="Send code")


def _records(d: Local):
    return parse_notifications(d.shell("dumpsys notification --noredact"))


def test_the_sms_arrives_five_seconds_after_send_code() -> None:
    d = Local(make_device("n"))
    _send_code(d)
    code = state(d, "login.sms_code")
    assert re.fullmatch(r"[1-9]\d{5}", code), code
    assert "We sent a code to 5550199" in texts(d)
    d.shell("simctl set time +4.9s")
    assert len(_records(d)) == 2, "not due yet"
    d.shell("simctl set time +0.1s")
    records = _records(d)
    assert len(records) == 3
    sms = records[-1]
    assert sms.package == "com.google.android.apps.messaging" and sms.title == "Mika"
    assert sms.text == f"【Mika】Your verification code is {code}. It expires in 5 minutes."
    assert sms.posted_ms > records[-2].posted_ms
    thread = next(t for t in state(d, "threads") if t["id"] == "t_mika")
    assert thread["messages"][-1] == {"dir": "in", "text": sms.text}
    d.shell("input swipe 540 10 540 1500 300")  # the shade
    assert any(code in t for t in texts(d))


def test_each_send_makes_a_new_code_and_a_new_record() -> None:
    d = Local(make_device("n"))
    _send_code(d)
    first = state(d, "login.sms_code")
    d.shell("simctl set time +6s")
    tap(d, text="Send code")
    second = state(d, "login.sms_code")
    d.shell("simctl set time +6s")
    sms = [r for r in _records(d) if r.title == "Mika"]
    assert len(sms) == 2 and len({r.key for r in sms}) == 2
    assert first in sms[0].text and second in sms[1].text


def test_simctl_notify_posts_now_or_later_and_rejects_bad_json() -> None:
    d = Local(make_device("n"))
    d.shell("simctl set clock.frozen true")
    spec = {"package": "com.mika.chat", "title": "小明", "text": "到了吗", "after_ms": 2000}
    d.shell("simctl notify '" + json.dumps(spec, ensure_ascii=False) + "'")
    assert not any(r.text == "到了吗" for r in _records(d))
    d.shell("simctl set time +2s")
    assert _records(d)[-1].text == "到了吗"
    out = d.shell("simctl notify '{\"title\": 1}'")
    assert "notify needs a JSON object" in out


def test_a_download_notification_is_updated_in_place_when_done() -> None:
    d = Local(make_device("n"))
    d.shell("simctl set clock.frozen true")
    d.shell("am start -a android.intent.action.VIEW -d http://example.com/page")
    d.shell("simctl set time +1s")  # the page loads
    tap(d, text="Download page")
    first = [r for r in _records(d) if r.package == "com.mika.browser"]
    assert [r.text for r in first] == ["Downloading… 40%"]
    assert "Downloading page.html…" in texts(d)
    d.shell("simctl set time +3s")
    done = [r for r in _records(d) if r.package == "com.mika.browser"]
    # The same notification (key) posted again later: an update, not a second one.
    assert [r.text for r in done] == ["Download complete"] and done[0].key == first[0].key
    assert done[0].posted_ms > first[0].posted_ms
    assert "page.html downloaded" in texts(d)
