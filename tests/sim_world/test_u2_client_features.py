"""uiautomator2 3.7.1's documented features (its README), unchanged, against the simulated phone.

Each test drives the client as its README shows and then reads what the phone did from
the world itself (apps on top, fields, the shade, files), so an answer that merely has the
right shape but changes nothing fails. test_u2.py covers connect, dumps, selectors and
scrolling; this file the rest of the README's list.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import uiautomator2


@pytest.fixture
def u2(sim_phone):
    d = uiautomator2.connect(sim_phone.serial)
    yield d
    d.stop_uiautomator(wait=False)


def _top(sim_phone) -> str:
    top = sim_phone.device.world.top_activity(0)
    return top.package if top else ""


class TestApps:
    """app_start / app_current / app_stop / app_list / app_info / app_wait (install: test_adb_install.py)."""

    def test_start_by_monkey_and_by_activity_then_stop(self, sim_phone, u2) -> None:
        u2.app_start("com.mika.notes")
        assert _top(sim_phone) == "com.mika.notes"
        current = u2.app_current()
        assert current["package"] == "com.mika.notes" and current["activity"].startswith(".")
        assert u2.app_wait("com.mika.notes", timeout=5, front=True) > 0
        u2.app_stop("com.mika.notes")
        assert _top(sim_phone) == "com.android.launcher3"
        u2.app_start("com.android.settings", ".Settings")
        assert u2.app_current()["package"] == "com.android.settings"
        assert "com.android.settings" in u2.app_list_running()

    def test_app_list_and_info(self, sim_phone, u2) -> None:
        everything = u2.app_list()
        third_party = u2.app_list("-3")
        assert "com.android.settings" in everything and "com.mika.notes" in everything
        assert set(third_party) < set(everything) and "com.android.settings" not in third_party
        info = u2.app_info("com.android.settings")
        assert info["versionName"] and isinstance(info["versionCode"], int)
        with pytest.raises(uiautomator2.AppNotFoundError):
            u2.app_info("com.example.not.installed")


class TestScreen:
    """window_size, screenshot, dump_hierarchy, info, device_info, orientation, screen on/off."""

    def test_window_size_info_and_device_info(self, sim_phone, u2) -> None:
        assert u2.window_size() == (1080, 2400)
        info = u2.info
        assert info["screenOn"] is True and info["currentPackageName"] == "com.android.launcher3"
        assert info["productName"] == sim_phone.device.world.props["ro.product.name"]
        dev = u2.device_info
        assert dev["serial"] == sim_phone.device.world.props["ro.serialno"]
        assert dev["sdk"] == 34 and dev["version"] == 14 and dev["arch"] == "arm64-v8a"
        assert u2.serial == sim_phone.serial  # over TCP u2 names the phone by its adb serial
        assert u2.orientation == "natural"

    def test_screenshot_over_rpc_and_over_adb_agree(self, sim_phone, u2, tmp_path: Path) -> None:
        over_rpc = u2.screenshot()
        over_adb = u2.screenshot(display_id=0)  # `screencap -p` through adbutils
        assert over_rpc.size == over_adb.size == (1080, 2400)
        u2.screenshot(str(tmp_path / "shot.jpg"))
        assert (tmp_path / "shot.jpg").stat().st_size > 1000

    def test_dump_compressed_and_pretty(self, u2) -> None:
        pretty = u2.dump_hierarchy(pretty=True)
        root = ET.fromstring(pretty.encode())
        assert root.tag == "hierarchy" and root.find("node") is not None
        assert "\n    <node" in pretty
        u2.app_start("com.android.settings")
        full = ET.fromstring(u2.dump_hierarchy().encode())
        compressed = ET.fromstring(u2.dump_hierarchy(compressed=True).encode())
        assert len(list(compressed.iter("node"))) < len(list(full.iter("node")))
        assert len(compressed) == len(full)  # every window's root stays
        assert {n.get("text") for n in compressed.iter("node")} >= {"Network & internet", "Apps"}

    def test_orientation_rotates_the_screen(self, sim_phone, u2) -> None:
        display = sim_phone.device.world.displays[0]
        u2.orientation = "left"  # UiDevice.setOrientationLeft: frozen at ROTATION_90
        assert display.rotation == 1 and u2.orientation == "left"
        info = u2.info
        assert (info["displayRotation"], info["displayWidth"], info["displayHeight"]) == (1, 2400, 1080)
        assert u2.window_size() == (2400, 1080)  # adbutils: `wm size` swapped by dumpsys display's orientation
        assert sim_phone.adb.rotation() == 1
        assert sim_phone.shell("wm size") == "Physical size: 1080x2400\n"  # the panel itself doesn't turn
        assert u2.screenshot().size == (2400, 1080)
        assert '<hierarchy rotation="1">' in u2.dump_hierarchy()
        assert sim_phone.shell("settings get system user_rotation").strip() == "1"
        u2(text="Settings").click()  # touches are in the rotated space, as on a phone
        assert _top(sim_phone) == "com.android.settings"
        u2.freeze_rotation(False)  # auto-rotate: the upright phone turns back
        assert display.rotation == 0 and u2.orientation == "natural"
        sim_phone.shell("wm user-rotation lock 3")
        assert u2.orientation == "right" and sim_phone.shell("wm user-rotation") == "lock 3\n"
        sim_phone.shell("settings put system user_rotation 0")
        assert display.rotation == 0 and u2.window_size() == (1080, 2400)

    def test_screen_off_and_on(self, sim_phone, u2) -> None:
        u2.screen_off()
        assert sim_phone.device.world.screen_on is False
        assert u2.info["screenOn"] is False
        u2.screen_on()
        assert sim_phone.device.world.screen_on is True

    def test_open_notification_and_quick_settings_pull_the_shade(self, sim_phone, u2) -> None:
        u2.open_notification()
        assert sim_phone.device.world.shade_open
        assert u2(resourceId="com.android.systemui:id/notification_panel").exists
        assert u2(resourceId="com.android.systemui:id/tile", text="Internet").exists
        u2.press("back")
        assert not sim_phone.device.world.shade_open
        u2.open_quick_settings()
        assert sim_phone.device.world.shade_open


class TestInput:
    """click / long_click / double_click / swipe / drag / press / send_keys / clear_text."""

    def test_click_on_coordinates_opens_the_app_there(self, sim_phone, u2) -> None:
        x, y = u2(text="Settings").center()
        u2.click(x, y)
        assert _top(sim_phone) == "com.android.settings"
        u2.press("home")
        assert _top(sim_phone) == "com.android.launcher3"
        u2.click(x / 1080, y / 2400)  # fractions of the screen, as the README shows
        assert _top(sim_phone) == "com.android.settings"
        u2.press(4)  # KEYCODE_BACK by number
        assert _top(sim_phone) == "com.android.launcher3"

    def test_long_click_opens_the_notes_delete_dialog(self, sim_phone, u2) -> None:
        u2.app_start("com.mika.notes")
        x, y = u2(text="Groceries").center()
        u2.long_click(x, y, 0.8)
        assert u2(text="Delete note?").wait(timeout=3)
        u2(text="Cancel").click()
        assert u2(text="Delete note?").wait_gone(timeout=3)
        before = sim_phone.device.world.top_activity(0).screen
        u2.double_click(x, y)  # two taps: the first opens the note, as on a phone
        assert not u2(text="Delete note?").exists
        assert sim_phone.device.world.top_activity(0).screen != before

    def test_swipe_and_drag_scroll_a_list(self, sim_phone, u2) -> None:
        u2.app_start("com.android.contacts")
        assert u2(text="Alice Chen").exists
        w, h = u2.window_size()
        u2.swipe(w // 2, int(h * 0.8), w // 2, int(h * 0.2), 0.3)
        assert not u2(text="Alice Chen").exists
        u2.drag(w // 2, int(h * 0.2), w // 2, int(h * 0.9), 0.5)
        assert u2(text="Alice Chen").exists
        u2.swipe_ext("up", scale=0.8)
        assert not u2(text="Alice Chen").exists

    def test_send_keys_clear_text_and_clipboard(self, sim_phone, u2) -> None:
        u2.app_start("com.android.settings")
        field = u2(resourceId="com.android.settings:id/search_bar")
        field.click()
        u2.send_keys("bluetooth")
        assert field.get_text() == "bluetooth"
        u2.clear_text()
        top = sim_phone.device.world.top_activity(0)
        assert top is not None and top.fields[top.focus] == ""
        u2.send_keys("wifi", clear=True)
        assert field.get_text() == "wifi"
        u2.clipboard = "copied text"
        assert u2.clipboard == "copied text"
        assert sim_phone.device.world.data["clipboard"] == "copied text"
        u2.set_clipboard("labelled", label="mika")
        assert u2.clipboard == "labelled"


class TestSelectors:
    """d(text=…, resourceId=…) with exists / get_text / set_text / click / info / wait / count."""

    def test_selector_info_click_count_and_wait(self, sim_phone, u2) -> None:
        settings = u2(text="Settings")
        info = settings.info
        assert info["text"] == "Settings" and info["clickable"] is True
        assert info["bounds"]["right"] > info["bounds"]["left"]
        assert u2(textContains="ettings").exists
        assert u2(className="android.widget.TextView").count > 1
        settings.click()
        assert u2(text="Network & internet").wait(timeout=3)
        assert u2(text="Network & internet").exists(timeout=1)
        assert not u2(text="Nothing like this").wait(timeout=0.3)
        u2.press("back")
        assert u2(text="Network & internet").wait_gone(timeout=3)

    def test_set_text_get_text_and_clear_text_on_a_field(self, sim_phone, u2) -> None:
        u2.app_start("com.android.settings")
        field = u2(resourceId="com.android.settings:id/search_bar")
        field.set_text("display")
        assert field.get_text() == "display"
        top = sim_phone.device.world.top_activity(0)
        assert top is not None and "display" in top.fields.values()
        field.clear_text()
        assert field.get_text() != "display"

    def test_child_sibling_and_child_by_text(self, sim_phone, u2) -> None:
        u2.app_start("com.android.settings")
        network = u2(text="Network & internet")
        assert network.sibling(text="Wi-Fi, mobile, data usage").exists
        assert not network.sibling(text="Bluetooth, pairing").exists
        assert u2(resourceId="com.android.settings:id/settings_list").child(text="Apps").exists
        u2.app_start("com.android.contacts")
        contacts = u2(resourceId="com.android.contacts:id/contact_list")
        row = contacts.child_by_text("Yara Deng", className="android.widget.LinearLayout")  # scrolls to it
        assert row.info["className"] == "android.widget.LinearLayout" and row.exists
        second = contacts.child_by_instance(1, className="android.widget.LinearLayout")
        assert second.exists and second.info["resourceName"] == "com.android.contacts:id/contact_row"
        before = sim_phone.device.world.top_activity(0).screen
        row.click()
        assert sim_phone.device.world.top_activity(0).screen != before
        assert u2(text="Yara Deng").exists
        with pytest.raises(uiautomator2.UiObjectNotFoundError):
            contacts.child_by_text("Nobody Anywhere", className="android.widget.LinearLayout")

    def test_pinch_and_two_finger_gesture_zoom_and_turn_a_photo(self, sim_phone, u2) -> None:
        u2.app_start("com.mika.photos")
        photo = u2(description="Photo: harbour at dusk")
        photo.pinch_out(percent=80, steps=10)
        data = sim_phone.device.world.data
        zoomed = data["photo"]["zoom"]
        assert zoomed > 100
        photo.pinch_in(percent=80, steps=10)
        assert data["photo"]["zoom"] < zoomed
        # Two fingers turning a quarter round about the photo's centre.
        photo.gesture((0.4, 0.5), (0.6, 0.5), (0.5, 0.4), (0.5, 0.6), steps=20)
        assert data["photo"]["rotation"] in (90, 270)

    def test_drag_to_a_point_and_to_another_object(self, sim_phone, u2) -> None:
        u2.app_start("com.android.contacts")
        top = sim_phone.device.world.top_activity(0)
        u2(text="David Zhang").drag_to(0.5, 0.2, duration=0.5)
        assert top is not None and any(v > 0 for v in top.scroll.values())
        scrolled = dict(top.scroll)
        u2(resourceId="com.android.contacts:id/title")[2].drag_to(text="Search contacts", duration=0.5)
        assert top.scroll != scrolled

    def test_xpath_basics(self, sim_phone, u2) -> None:
        u2.app_start("com.mika.notes")
        assert u2.xpath('//*[@text="Groceries"]').exists
        assert u2.xpath('//*[@text="Groceries"]').get_text() == "Groceries"
        assert len(u2.xpath("//android.widget.TextView").all()) > 1
        u2.xpath('//*[@text="Groceries"]').click()
        assert u2.xpath('//*[@text="Groceries"]').wait(timeout=3)


class TestDeviceIo:
    """shell, push / pull, toast."""

    def test_shell_output_and_exit_code(self, u2) -> None:
        ok = u2.shell("echo hello")
        assert ok.output == "hello\n" and ok.exit_code == 0
        bad = u2.shell("ls /no/such/dir")
        assert bad.exit_code != 0 and "No such file or directory" in bad.output
        assert u2.shell(["getprop", "ro.build.version.sdk"]).output.strip() == "34"

    def test_push_and_pull(self, sim_phone, u2, tmp_path: Path) -> None:
        src = tmp_path / "note.txt"
        src.write_bytes(b"from the host\n")
        u2.push(str(src), "/sdcard/Download/note.txt", mode=0o600)
        st = sim_phone.device.files.stat("/sdcard/Download/note.txt")
        assert st is not None and st.mode & 0o777 == 0o600
        assert sim_phone.device.files.read("/sdcard/Download/note.txt") == b"from the host\n"
        back = tmp_path / "back.txt"
        u2.pull("/sdcard/Download/note.txt", str(back))
        assert back.read_bytes() == b"from the host\n"

    def test_toast_show_and_read_back(self, sim_phone, u2) -> None:
        u2.toast.show("Hello toast", 1.0)
        assert u2.toast.get_message(wait_timeout=2, cache_timeout=5) == "Hello toast"
        assert u2.last_toast == "Hello toast"
        u2.clear_toast()
        assert u2.last_toast is None


class TestInputMethod:
    """set_input_ime / send_keys / clear_text / send_action / hide_keyboard over the
    AdbKeyboard of uiautomator2's helper APK, which u2 installs itself."""

    IME = "com.github.uiautomator/.AdbKeyboard"

    def test_u2_installs_its_keyboard_and_types_through_it(self, sim_phone, u2) -> None:
        world = sim_phone.device.world
        assert not u2.is_input_ime_installed()
        u2.set_input_ime(True)  # installs app-uiautomator.apk, then ime enable / set
        assert "com.github.uiautomator" in world.apps
        assert u2.is_input_ime_installed() and u2.current_ime() == self.IME and world.ime_id == self.IME
        sim_phone.shell("am start -n com.mika.market/.search.SearchActivity")
        u2.send_keys("maps")  # an ADB_KEYBOARD_INPUT_TEXT broadcast now, not the clipboard
        assert world.data["clipboard"] == ""
        top = world.top_activity(0)
        assert top is not None and top.fields["q"] == "maps"
        u2.clear_text()
        assert top.fields["q"] == ""
        u2.send_keys("chess", clear=True)
        u2.send_action("search")  # the field's editor action: the search runs
        assert world.data["market"]["query"] == "chess"
        u2.hide_keyboard()
        assert world.ime_visible is False
        u2.set_input_ime(False)
        assert self.IME not in sim_phone.shell("ime list -s")

    def test_keyboard_broadcasts_find_nobody_unless_it_is_the_ime(self, sim_phone) -> None:
        out = sim_phone.shell("am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text aGk=")
        assert out.endswith("Broadcast completed: result=0\n")
        unknown = sim_phone.run_adb("shell", f"ime set {self.IME}", check=False)
        assert unknown.returncode != 0  # not installed: no such input method
        d = uiautomator2.connect(sim_phone.serial)
        try:
            d.set_input_ime(True)
        finally:
            d.stop_uiautomator(wait=False)
        assert sim_phone.shell("am broadcast -a ADB_KEYBOARD_HIDE").endswith("result=-1\n")
        sim_phone.run_adb("uninstall", "com.github.uiautomator")
        world = sim_phone.device.world
        assert world.ime_id == "com.android.inputmethod.latin/.LatinIME"
        assert self.IME not in sim_phone.shell("ime list -a -s")


class TestMore:
    """The rest of the README's list: open_url, keyevent, unlock, wlan_ip, touch, swipe_points,
    watchers, more xpath, an app's own toast, implicitly_wait and sessions."""

    def test_open_url_opens_the_browser_at_it(self, sim_phone, u2) -> None:
        u2.open_url("https://example.com/page")
        top = sim_phone.device.world.top_activity(0)
        assert top is not None and top.package == "com.mika.browser"
        assert top.params["url"] == "https://example.com/page"

    def test_keyevent_and_long_press(self, sim_phone, u2) -> None:
        u2.app_start("com.android.settings")
        u2.keyevent("home")
        assert _top(sim_phone) == "com.android.launcher3"
        u2.long_press("home")  # `input keyevent --longpress HOME`: still home
        assert _top(sim_phone) == "com.android.launcher3"

    def test_unlock_wakes_and_swipes_a_locked_phone(self, sim_phone_factory) -> None:
        phone = sim_phone_factory(scenario="locked")
        d = uiautomator2.connect(phone.serial)
        try:
            d.screen_off()
            d.unlock()
            assert phone.device.world.screen_on and not phone.device.world.locked
        finally:
            d.stop_uiautomator(wait=False)

    def test_wlan_ip_touch_and_swipe_points(self, sim_phone, u2) -> None:
        assert u2.wlan_ip == "192.168.1.23"
        x, y = u2(text="Settings").center()
        u2.touch.down(x, y).move(x, y).up(x, y)
        assert _top(sim_phone) == "com.android.settings"
        u2.app_start("com.android.contacts")
        u2.swipe_points([(540, 2000), (540, 1500), (540, 800)], 0.3)
        top = sim_phone.device.world.top_activity(0)
        assert top is not None and top.scroll["contact_list"] > 0
        before = top.scroll["contact_list"]
        u2(resourceId="com.android.contacts:id/contact_list").swipe("up", steps=20)
        assert top.scroll["contact_list"] > before

    def test_watcher_clicks_away_a_dialog(self, sim_phone, u2) -> None:
        u2.watcher.when("Cancel").click()
        u2.app_start("com.mika.notes")
        u2(text="Groceries").long_click()
        assert u2(text="Delete note?").exists
        u2.watcher.run()
        assert not u2(text="Delete note?").exists
        u2.watcher.remove()

    def test_xpath_set_text_click_exists_and_elements(self, sim_phone, u2) -> None:
        u2.app_start("com.android.settings")
        field = u2.xpath('//*[@resource-id="com.android.settings:id/search_bar"]')
        field.set_text("abc")
        assert field.get_text() == "abc"
        assert u2.xpath("Network & internet").exists  # a bare text is a text match
        titles = [e.text for e in u2.xpath('//*[@resource-id="com.android.settings:id/title"]').all()]
        assert titles[:2] == ["Network & internet", "Connected devices"]
        assert u2.xpath('//*[@text="Network & internet"]').click_exists(timeout=2)
        top = sim_phone.device.world.top_activity(0)
        assert top is not None and top.screen == "Network"
        assert not u2.xpath('//*[@text="No such row"]').click_exists(timeout=0.5)

    def test_an_apps_own_toast_is_read_back(self, sim_phone, u2) -> None:
        u2.app_start("com.mika.account")
        u2(text="Sign in").click()
        assert u2.toast.get_message(3, 5) == "Enter your email and password"

    def test_implicitly_wait_and_session(self, sim_phone, u2) -> None:
        u2.implicitly_wait(1)
        with pytest.raises(uiautomator2.UiObjectNotFoundError):
            u2(text="nope").click()
        with u2.session("com.mika.notes") as s:
            assert s.running() and s(text="Groceries").exists
            assert _top(sim_phone) == "com.mika.notes"
