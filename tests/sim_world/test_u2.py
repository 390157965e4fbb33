"""uiautomator2 3.7.x, unchanged, against the simulated phone through a real adb server."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import uiautomator2

from tests.sim_world.driver import OverAdb, state, tap


@pytest.fixture
def u2(sim_phone):
    d = uiautomator2.connect(sim_phone.serial)
    yield d
    d.stop_uiautomator(wait=False)


def test_connect_pushes_jar_and_serves_ping(sim_phone, u2) -> None:
    # connect checked u2.jar with toybox md5sum, pushed it with sync and started app_process
    assert sim_phone.device.files.stat("/data/local/tmp/u2.jar") is not None
    assert "uiautomator" in sim_phone.shell("ps -A")
    info = u2.info
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400 and info["sdkInt"] == 34


def test_dump_hierarchy_has_u2_attributes_and_several_windows(sim_phone, u2) -> None:
    xml = u2.dump_hierarchy()
    root = ET.fromstring(xml.encode())
    windows = list(root)
    assert len(windows) >= 2
    assert {w.get("package") for w in windows} >= {"com.android.systemui", "com.android.launcher3"}
    for node in root.iter("node"):
        assert {"display-id", "drawing-order", "hint", "visible-to-user"} <= node.attrib.keys()
    assert xml.splitlines()[1] == '<hierarchy rotation="0">'
    assert xml.splitlines()[2].startswith('  <node index="0"')


def test_send_keys_chinese_into_focused_field(sim_phone, u2) -> None:
    d = OverAdb(sim_phone)
    sim_phone.shell("am start -n com.google.android.apps.messaging/.ui.ConversationListActivity")
    tap(d, text="Alice Chen")
    tap(d, rid="compose_message_text")
    u2.send_keys("你好")
    xml = u2.dump_hierarchy()
    field = next(
        n for n in ET.fromstring(xml.encode()).iter("node") if n.get("resource-id", "").endswith("compose_message_text")
    )
    assert field.get("text") == "你好" and field.get("focused") == "true"
    assert u2.clipboard == "你好"
    u2(description="Send SMS").click()
    assert state(d, "threads.0.messages")[-1] == {"dir": "out", "text": "你好"}


def test_selectors_click_set_text_and_screenshot(sim_phone, u2) -> None:
    u2(text="Settings").click()
    assert u2(text="Network & internet").exists
    u2(resourceId="com.android.settings:id/search_bar").set_text("wifi")
    assert u2(resourceId="com.android.settings:id/search_bar").get_text() == "wifi"
    u2.press("back")
    image = u2.screenshot()
    assert image.size == (1080, 2400)
    with pytest.raises(uiautomator2.UiObjectNotFoundError):
        _ = u2(text="No such thing").info


def test_app_start_xpath_wait_and_long_click(sim_phone, u2) -> None:
    u2.app_start("com.mika.notes")
    assert u2.app_current()["package"] == "com.mika.notes"
    assert u2.xpath('//*[@text="Groceries"]').exists
    u2.xpath('//*[@text="Groceries"]').long_click()
    assert u2(text="Delete note?").wait(timeout=3)
    u2(text="Cancel").click()
    assert u2(text="Delete note?").wait_gone(timeout=3)
    u2.swipe_ext("up", scale=0.5)
    u2.press("home")
    assert u2.app_current()["package"] == "com.android.launcher3"


def test_uiscrollable_scroll_to_and_to_end(sim_phone, u2) -> None:
    u2.app_start("com.android.contacts")
    lst = u2(scrollable=True)
    assert lst.scroll.to(text="Yara Deng")
    assert u2(text="Yara Deng").exists
    lst.scroll.toBeginning()
    assert u2(text="Alice Chen").exists
    assert lst.scroll.forward()
    lst.fling.toEnd()
    assert u2(text="Yara Deng").exists and not lst.scroll.forward()
