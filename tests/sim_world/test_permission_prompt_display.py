"""A runtime permission prompt is an activity in the asking app's task, so Android shows
it on the display the app is on: an app on a virtual display (the one Mika's runs work
on) gets its prompt there, not on the main screen. System dialogs of the phone's own
(a fault, a surprise) stay on the main screen."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import uiautomator2

VIDEO = "com.mika.video"
PROMPT = "While using the app"


def _by_display(phone) -> dict[str, list[ET.Element]]:
    d = uiautomator2.connect(phone.serial)
    try:
        root = ET.fromstring(d.dump_hierarchy().encode())
    finally:
        d.stop_uiautomator(wait=False)
    out: dict[str, list[ET.Element]] = {}
    for node in root.iter("node"):
        out.setdefault(node.get("display-id", ""), []).append(node)
    return out


def _texts(nodes: list[ET.Element]) -> set[str]:
    return {n.get("text", "") for n in nodes}


def test_a_permission_prompt_shows_on_the_display_of_the_app_that_asked(sim_phone) -> None:
    sim_phone.shell("simctl set video.update_dismissed true")
    vd = int(sim_phone.shell("simctl display add 1080x2400 420 mika").strip())
    out = sim_phone.shell(f"am start --display {vd} -n {VIDEO}/.HomeActivity")
    assert "Error" not in out, out
    nearby = next(n for n in _by_display(sim_phone)[str(vd)] if n.get("text") == "Nearby videos")
    left, top, right, bottom = map(int, re.findall(r"\d+", nearby.get("bounds", "")))
    sim_phone.shell(f"input -d {vd} tap {(left + right) // 2} {(top + bottom) // 2}")
    shown = _by_display(sim_phone)
    assert PROMPT in _texts(shown[str(vd)]), _texts(shown[str(vd)])
    assert PROMPT not in _texts(shown["0"])
    # BACK on the main screen does not dismiss a prompt on the other display; there it does.
    sim_phone.shell("input keyevent BACK")
    assert PROMPT in _texts(_by_display(sim_phone)[str(vd)])
    sim_phone.shell(f"input -d {vd} keyevent BACK")
    assert PROMPT not in _texts(_by_display(sim_phone)[str(vd)])


def test_the_phones_own_dialogs_stay_on_the_main_screen(sim_phone) -> None:
    vd = int(sim_phone.shell("simctl display add 1080x2400 420 mika").strip())
    sim_phone.shell(f"am start --display {vd} -n com.android.settings/.Settings")
    sim_phone.shell("simctl fault dialog=anr")
    shown = _by_display(sim_phone)
    dialogs0 = [n for n in shown["0"] if n.get("package") == "android"]
    assert dialogs0 and not [n for n in shown[str(vd)] if n.get("package") == "android"]
