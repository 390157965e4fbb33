"""Recognising the system's "which copy?" chooser from a dump (the sim's real u2 dump of
its ResolverActivity), and the lookalikes that must not count as one."""

from __future__ import annotations

from mika.cap.phone.chooser import find_chooser, is_system_package
from mika.sim.apps.frame import build_frame
from mika.sim.apps.live_world import LiveWorld
from mika.sim.world.hierarchy import dump_u2
from mika.uistate.screen import build_screen
from mika.uistate.tree import parse_hierarchy


def chooser_dump(scenario: str = "dual") -> str:
    world = LiveWorld("t", scenario, None)
    world.launch("com.mika.chat", 0)
    return dump_u2([(0, build_frame(world, 0))])


def screen_of(xml: str):
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


def test_the_system_chooser_is_found_with_the_other_copy_marked():
    chooser = find_chooser(screen_of(chooser_dump()), "微聊", "com.mika.chat")
    assert chooser is not None and chooser.package == "android"
    assert chooser.clear
    assert chooser.main is not None and chooser.main.label == "微聊"
    assert chooser.other is not None and chooser.other.label == "微聊 (dual)"
    assert chooser.pick("other") == chooser.other and chooser.pick("main") == chooser.main


def test_chinese_marker():
    chooser = find_chooser(screen_of(chooser_dump("dual_zh")), "微聊", "com.mika.chat")
    assert chooser is not None and chooser.other is not None and chooser.other.label == "双开微聊"


def test_an_apps_own_dialog_naming_the_app_is_no_chooser():
    # the very same window, drawn by an ordinary app: anyone can draw "微聊 / 微聊 (dual)"
    # nor the home screen, the shade or Settings, which can list an app twice too
    for pkg in (
        "com.mika.notes",
        "com.android.chrome",
        "com.android.vending",
        "com.evil.android",
        "com.android.launcher3",
        "com.android.systemui",
        "com.android.settings",
    ):
        xml = chooser_dump().replace('package="android"', f'package="{pkg}"')
        assert find_chooser(screen_of(xml), "微聊", "com.mika.chat") is None, pkg


def test_vendor_chooser_packages_count():
    xml = chooser_dump().replace('package="android"', 'package="com.miui.securitycore"')
    assert find_chooser(screen_of(xml), "微聊", "com.mika.chat") is not None
    assert is_system_package("com.android.intentresolver") and not is_system_package("com.android.chrome")


def test_two_same_labels_without_a_marker_are_not_told_apart():
    chooser = find_chooser(screen_of(chooser_dump("dual_same")), "微聊", "com.mika.chat")
    assert chooser is not None and not chooser.clear
    assert chooser.pick("main") is None and chooser.pick("other") is None


def test_options_not_naming_the_app_are_no_chooser():
    assert find_chooser(screen_of(chooser_dump()), "Notes", "com.mika.notes") is None


def test_the_app_itself_in_front_is_no_chooser():
    world = LiveWorld("t", "default", None)
    world.launch("com.mika.chat", 0)
    screen = screen_of(dump_u2([(0, build_frame(world, 0))]))
    assert find_chooser(screen, "微聊", "com.mika.chat") is None
