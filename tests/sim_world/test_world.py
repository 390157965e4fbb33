"""World behaviour: loading that settles, scrolling, secure and pixels-only screens,
rate limits, dialogs, data-level faults, rendering that agrees with the tree."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from mika.sim.faults import FaultSpec
from mika.sim.phone import make_device
from tests.sim_world.driver import Local, dump, find, state, tap, texts, type_into


def _png(d: Local) -> Image.Image:
    return Image.open(io.BytesIO(d.shell_bytes("screencap -p"))).convert("RGB")


def test_loading_state_settles(tmp_path) -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.shop/.MainActivity")
    type_into(d, "tea", hint="Search products")
    d.shell("input keyevent ENTER")
    assert "Searching…" in texts(d)
    assert find(d, cls="android.widget.ProgressBar") is not None
    d.shell("simctl set time +2")
    assert "Green Tea 250g" in texts(d) and "Searching…" not in texts(d)


def test_long_list_scrolls_and_reports_scrollable() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.android.contacts/.activities.PeopleActivity")
    lst = find(d, rid="contact_list")
    assert lst is not None and lst.get("scrollable") == "true"
    first = texts(d)
    assert "Alice Chen" in first and "Yara Deng" not in first
    d.shell("input swipe 540 2000 540 500 300")
    after = texts(d)
    assert "Alice Chen" not in after and after != first
    for _ in range(5):
        d.shell("input swipe 540 2000 540 500 300")
    assert "Yara Deng" in texts(d)


def test_password_field_exposes_no_text_but_paints_dots() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.account/.SignInActivity")
    type_into(d, "hunter2", hint="Password")
    node = find(d, rid="password")
    assert node is not None and node.get("password") == "true" and node.get("text") == ""


def test_secure_screen_is_black_in_screenshots_but_tree_has_text() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.wallet/.BalanceActivity")
    assert "¥8,342.17" in texts(d)
    image = _png(d)
    assert image.getpixel((540, 1200)) == (0, 0, 0)
    assert image.crop((0, 100, 1080, 2400)).getbbox() is None  # all black below the status bar
    assert "fl=SECURE" in d.shell("dumpsys window windows")


def test_pixels_only_page_has_a_near_empty_tree() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.reader/.WebActivity")
    web = find(d, cls="android.webkit.WebView")
    assert web is not None and web.get("text") == "" and web.get("content-desc") == ""
    assert not [t for t in texts(d) if "K7" in t]
    image = _png(d)
    assert image.crop((100, 400, 980, 1400)).getextrema() != ((250, 250), (248, 248), (240, 240))  # text was drawn


def test_ocr_on_the_picture_finds_the_labels_the_tree_has() -> None:
    from rapidocr_onnxruntime import RapidOCR

    d = Local(make_device("w"))
    d.shell("am start -a android.settings.DISPLAY_SETTINGS")
    png = d.shell_bytes("screencap -p")
    result, _ = RapidOCR()(png)
    seen = " ".join(r[1] for r in result or [])
    for label in ("Dark theme", "Font size", "Screen timeout"):
        assert label in texts(d)
        assert label.replace(" ", "") in seen.replace(" ", ""), seen


def test_rendering_is_deterministic_and_dark_mode_changes_pixels() -> None:
    a = Local(make_device("w"))
    b = Local(make_device("w"))
    for d in (a, b):
        d.shell("simctl set clock.frozen true")
        d.shell("simctl set time 2026-12-01T08:00")
        d.shell("am start -n com.android.settings/.Settings")
    assert a.shell_bytes("screencap -p") == b.shell_bytes("screencap -p")
    light = _png(a).getpixel((540, 2300))
    a.shell("settings put secure ui_night_mode 2")
    dark = _png(a).getpixel((540, 2300))
    assert sum(light) > 600 and sum(dark) < 150


def test_rate_limited_app_refuses_after_too_many_actions() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.feed/.FeedActivity")
    for _ in range(5):
        tap(d, desc="Like 小明")
    assert state(d, "feed.likes") == 5
    tap(d, desc="Like 小明")
    assert "操作过于频繁" in texts(d)
    assert any("limit reached" in t for t in texts(d))
    assert state(d, "feed.likes") == 5 and state(d, "feed.limited") is True


def test_dialog_fault_pops_over_and_back_dismisses() -> None:
    d = Local(make_device("w", faults=FaultSpec.parse("dialog=update")))
    assert "System update available" in texts(d)
    assert state(d, "dialog") == "update"
    tap(d, text="Later")
    assert state(d, "dialog") is None
    d.shell("simctl fault dialog=permission")
    assert "Allow Messages to send you notifications?" in texts(d)
    d.shell("input keyevent BACK")
    assert state(d, "dialog") is None


def test_surprise_dialog_after_taps_in_a_scenario() -> None:
    d = Local(make_device("w", scenario="surprise"))
    tap(d, text="Shop")
    tap(d, text="Green Tea 250g")
    assert "Enjoying Mika Shop?" in texts(d)


def test_dump_faults_one_shot_each() -> None:
    d = Local(make_device("w", faults=FaultSpec.parse("null_root=1,idle_timeout=1,bad_xml=1,bad_png=1")))
    assert d.shell("uiautomator dump /dev/tty").strip() == "ERROR: null root node returned by UiTestAutomationBridge."
    assert d.shell("uiautomator dump /dev/tty").strip() == "ERROR: could not get idle state."
    broken = d.shell("uiautomator dump /dev/tty")
    with pytest.raises(ET.ParseError):
        ET.fromstring(broken.split("UI hierchary")[0])
    assert dump(d).tag == "hierarchy"  # faults are used up: normal again
    bad = d.shell_bytes("screencap -p")
    assert not bad.startswith(b"\x89PNG")
    assert d.shell_bytes("screencap -p").startswith(b"\x89PNG\r\n\x1a\n")


def test_slow_and_drop_faults_reach_the_wire_hooks() -> None:
    from mika.sim.device import ConnectionDrop

    phone = make_device("w", faults=FaultSpec.parse("slow_ms=250,drop_after=2"))
    assert phone.command_delay() == 0.25
    phone.before_command()
    phone.before_command()
    with pytest.raises(ConnectionDrop):
        phone.before_command()
    phone.before_command()  # the cable was pulled once; after a reconnect it works


def test_lock_screen_needs_a_swipe_up() -> None:
    d = Local(make_device("w", scenario="locked"))
    assert "Swipe up to unlock" in texts(d)
    tap(d, text="Swipe up to unlock")
    assert state(d, "locked") is True
    d.shell("input swipe 540 2000 540 700 200")
    assert state(d, "locked") is False and "Settings" in texts(d)


def test_u2_dump_lists_dialog_keyboard_and_status_windows() -> None:
    from mika.sim.apps.frame import build_frame
    from mika.sim.world.hierarchy import dump_u2

    phone = make_device("w")
    d = Local(phone)
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    tap(d, desc="New note")
    tap(d, text="Title")
    root = ET.fromstring(dump_u2([(0, build_frame(phone.world, 0))]).encode())
    packages = [w.get("package") for w in root]
    assert (
        packages[0] == "com.android.inputmethod.latin"
        and "com.android.systemui" in packages
        and "com.mika.notes" in packages
    )


def test_pin_lock_needs_the_right_pin() -> None:
    d = Local(make_device("w", scenario="pin_locked"))
    assert "Swipe up, then enter PIN" in texts(d)
    d.shell("input swipe 540 2000 540 700 200")
    assert "Enter your PIN" in texts(d) and state(d, "locked") is True
    d.shell("input text 1111 && input keyevent ENTER")
    assert state(d, "locked") is True
    for digit in "258":
        tap(d, text=digit)
    d.shell("input keyevent KEYCODE_0")
    field = find(d, rid="pinEntry")
    assert field is not None and field.get("password") == "true" and field.get("text") == ""
    tap(d, desc="Enter")
    assert state(d, "locked") is False


def test_notification_shade_tiles_and_notifications() -> None:
    d = Local(make_device("w"))
    d.shell("input swipe 540 20 540 1400 300")
    assert state(d, "settings.bluetooth") is False
    assert "NotificationShade" in d.shell("dumpsys window | grep mCurrentFocus")
    assert "Your verification code is 482913" in texts(d)
    tap(d, text="Bluetooth")
    assert state(d, "settings.bluetooth") is True
    tap(d, text="Carol Wang")
    assert state(d, "foreground")["0"] == "com.google.android.apps.messaging/.ui.conversation.ConversationActivity"
    assert "Your verification code is 482913" in texts(d)  # the thread itself
    assert [n["id"] for n in state(d, "notifications")] == [2]
    d.shell("input swipe 540 20 540 1400 300")
    d.shell("input keyevent BACK")
    assert "NotificationShade" not in d.shell("dumpsys window | grep mCurrentFocus")


def test_on_screen_keyboard_keys_type_into_the_field() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    tap(d, desc="New note")
    tap(d, text="Title")
    from mika.sim.apps.frame import build_frame

    keyboard = next(w for w in build_frame(d.phone.world, 0) if w.kind == "ime")
    keys = {n.desc: n.center for n in keyboard.root.walk() if n.desc}
    for key in ("h", "i", "Space", "o", "k", "Delete"):
        d.shell("input tap {} {}".format(*keys[key]))
    node = find(d, rid="note_title")
    assert node is not None and node.get("text") == "hi o"


@pytest.mark.slow
def test_ocr_reads_each_apps_first_screen_like_the_tree() -> None:
    """What the tree says, the pixels show: OCR finds most of each first screen's labels."""
    from rapidocr_onnxruntime import RapidOCR

    ocr = RapidOCR()
    phone = make_device("w")
    d = Local(phone)
    for app in phone.world.apps.values():
        if app.package in ("com.mika.wallet", "com.mika.reader"):  # secure / pixels-only
            continue
        d.shell(f"monkey -p {app.package} 1")
        labels = [t for t in texts(d) if len(t) >= 3]
        result, _ = ocr(d.shell_bytes("screencap -p"))

        def norm(text: str) -> str:  # OCR reads symbols (¥, ×, ·) loosely; compare words
            return re.sub(r"[^\w]", "", text)

        seen = norm("".join(r[1] for r in result or []))
        found = [t for t in labels if norm(t) in seen]
        assert len(found) >= 0.7 * len(labels), (app.package, set(labels) - set(found))


def _u2_find(phone, text: str):  # type: ignore[no-untyped-def]
    from mika.sim.apps.frame import build_frame

    for window in reversed(build_frame(phone.world, 0)):
        for node in window.root.walk():
            if node.text == text:
                return node
    return None


def test_long_press_copy_then_paste_through_the_text_toolbar() -> None:
    phone = make_device("w")
    d = Local(phone)
    d.shell("am start -n com.google.android.apps.messaging/.ui.ConversationListActivity")
    tap(d, text="Carol Wang")
    x, y = _u2_find(phone, "Your verification code is 482913").center
    d.shell(f"input swipe {x} {y} {x} {y} 700")
    copy = _u2_find(phone, "Copy")
    assert copy is not None
    assert "Copy" not in texts(d)  # like a real phone: the toolbar is its own window, not in `uiautomator dump`
    d.shell("input tap {} {}".format(*copy.center))
    assert state(d, "clipboard") == "Your verification code is 482913"
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    tap(d, desc="New note")
    body = find(d, rid="note_body")
    bx, by = (int(v) for v in body.get("bounds")[1:].split("]")[0].split(","))
    d.shell(f"input swipe {bx + 40} {by + 40} {bx + 40} {by + 40} 700")
    paste = _u2_find(phone, "Paste")
    d.shell("input tap {} {}".format(*paste.center))
    assert find(d, rid="note_body").get("text") == "Your verification code is 482913"
    d.shell(f"input swipe {bx + 40} {by + 40} {bx + 40} {by + 40} 700")
    d.shell("input tap {} {}".format(*_u2_find(phone, "Cut").center))
    assert find(d, rid="note_body").get("text") == "Note"  # empty again: the hint shows


def test_rate_limit_lifts_after_a_minute() -> None:
    d = Local(make_device("w"))
    d.shell("am start -n com.mika.feed/.FeedActivity")
    for _ in range(6):
        tap(d, desc="Like Bob Li")
    assert state(d, "feed.limited") is True
    d.shell("input keyevent BACK")  # dismiss the notice
    d.shell("simctl set time +61")
    tap(d, desc="Like Bob Li")
    assert state(d, "feed.likes") == 6 and state(d, "feed.limited") is False
