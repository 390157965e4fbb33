"""The dialog reader and obstacle recogniser (mika/cap/phone/obstacles.py) as pure logic:
over real captured dialogs, and over dumps shaped like the routes an app could take around
it (a fake Skip in the ad, "Later" only in the message, a permission prompt from an app,
Chinese and full-width variants, a payment behind "OK")."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

import pytest

from mika.action.risk import RiskClass, classify_target
from mika.cap.phone.obstacles import (
    ALLOW_WHILE_USING,
    ButtonChoiceError,
    match_button,
    norm,
    press_label,
    read_dialog,
    recognise,
)
from mika.uistate.screen import build_screen
from mika.uistate.tree import parse_hierarchy
from tests.real_fixtures import real


def _node(cls: str, bounds: str, pkg: str, text: str = "", rid: str = "", clickable: bool = False,
          enabled: bool = True, children: str = "", desc: str = "") -> str:  # fmt: skip
    return (
        f'<node index="0" text={quoteattr(text)} resource-id={quoteattr(rid)} class={quoteattr(cls)} '
        f'package={quoteattr(pkg)} content-desc={quoteattr(desc)} checkable="false" checked="false" '
        f'clickable="{str(clickable).lower()}" enabled="{str(enabled).lower()}" focusable="false" '
        f'focused="false" scrollable="false" long-clickable="false" password="false" selected="false" '
        f'bounds="{bounds}">{children}</node>'
    )


def dialog_screen(pkg: str, title: str, buttons: list[str], message: str = "", ids: list[str] | None = None):
    """A one-window dialog dump (as `uiautomator dump` gives while a dialog has the focus)."""
    kids = _node("android.widget.TextView", "[150,900][930,990]", pkg, title, "android:id/alertTitle")
    if message:
        kids += _node("android.widget.TextView", "[150,1000][930,1200]", pkg, message, "android:id/message")
    for i, label in enumerate(buttons):
        rid = (ids or [])[i] if ids else f"android:id/button{i + 1}"
        kids += _node("android.widget.Button", f"[150,{1220 + 130 * i}][930,{1330 + 130 * i}]", pkg, label, rid, True)
    xml = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    xml += _node("android.widget.FrameLayout", "[90,850][990,1800]", pkg, children=kids) + "</hierarchy>"
    return build_screen(parse_hierarchy(xml), size=(1080, 2400))


def splash_screen(pkg: str, skips: list[tuple[str, bool, bool]], extra: str = ""):
    """A full-screen app window with skip-like nodes: (text, clickable, enabled)."""
    kids = ""
    for i, (label, clickable, enabled) in enumerate(skips):
        kids += _node("android.widget.TextView", f"[800,{100 + 200 * i}][1040,{200 + 200 * i}]", pkg, label,
                      f"{pkg}:id/skip{i}", clickable, enabled)  # fmt: skip
    kids += _node("android.widget.ImageView", "[0,400][1080,2000]", pkg, desc="广告", clickable=True) + extra
    xml = '<hierarchy rotation="0">' + _node("android.widget.FrameLayout", "[0,0][1080,2400]", pkg, children=kids)
    return build_screen(parse_hierarchy(xml + "</hierarchy>"), size=(1080, 2400))


class TestRealDialogs:
    def test_the_anr_dialog_is_read_but_no_obstacle(self):
        screen = build_screen(
            parse_hierarchy(real("ui_dumps/android__anr_dialog_system_ui_not_responding.xml").read_bytes())
        )
        dialog = read_dialog(screen)
        assert dialog is not None and dialog.package == "android"
        assert dialog.title == "System UI isn't responding"
        assert dialog.button_labels == ["Close app", "Wait"]
        found = recognise(screen)
        assert found.safe is None and not found.recognised

    def test_the_screen_capture_consent_is_read_and_left_alone(self):
        xml = real("ui_dumps/systemui__mediaprojection_permission_dialog.xml").read_bytes()
        screen = build_screen(parse_hierarchy(xml))
        dialog = read_dialog(screen)
        assert dialog is not None and dialog.package == "com.android.systemui"
        assert dialog.title.startswith("要开始使用AutoJs6录制或投射内容吗")
        assert "付款明细" in dialog.message
        assert sorted(dialog.button_labels) == sorted(["取消", "立即开始"])
        assert match_button(dialog, "取消").node.resource_id == "android:id/button3"
        # Not a runtime-permission prompt from the permission controller: never answered by this tool.
        assert recognise(screen).safe is None

    def test_a_plain_app_screen_has_no_dialog(self):
        screen = build_screen(parse_hierarchy(real("ui_dumps/gmail__inbox_compose.xml").read_bytes()))
        assert read_dialog(screen) is None
        assert not recognise(screen).recognised


class TestPressByText:
    def test_text_matches_ignoring_case_width_and_spaces(self):
        dialog = read_dialog(dialog_screen("com.x", "Update", ["Later", "Update now"], "New version available"))
        assert match_button(dialog, "ＬＡＴＥＲ").label == "Later"
        assert match_button(dialog, " update  now ").label == "Update now"
        assert norm("跳 过") == norm("跳过")

    def test_a_prefix_is_not_a_match(self):
        dialog = read_dialog(dialog_screen("com.x", "Update", ["Later", "Update now"], "New version available"))
        with pytest.raises(ButtonChoiceError) as err:
            match_button(dialog, "Update")
        assert err.value.code == "no_such_button" and '"Later", "Update now"' in str(err.value)

    def test_two_buttons_with_one_text_are_ambiguous(self):
        dialog = read_dialog(dialog_screen("com.x", "Remove?", ["OK", "ok", "Keep"]))
        with pytest.raises(ButtonChoiceError) as err:
            match_button(dialog, "OK")
        assert err.value.code == "ambiguous_button"

    def test_ok_on_a_payment_question_is_checked_as_the_payment(self):
        # No amount anywhere: the question alone makes "OK" a payment step.
        dialog = read_dialog(dialog_screen("com.x", "Confirm payment", ["Cancel", "OK"]))
        label = press_label(dialog, match_button(dialog, "OK"))
        assert classify_target(label, "tap").risk in (RiskClass.PAY, RiskClass.PAYMENT)
        assert classify_target(press_label(dialog, match_button(dialog, "Cancel")), "tap").risk is RiskClass.NONE

    def test_ok_on_a_delete_question_is_irreversible(self):
        dialog = read_dialog(dialog_screen("com.x", "Delete this chat?", ["Cancel", "OK"]))
        assert classify_target(press_label(dialog, match_button(dialog, "OK")), "tap").risk is not RiskClass.NONE


class TestObstacles:
    def test_update_prompt_is_dismissed_by_later(self):
        found = recognise(dialog_screen("com.x", "New version available", ["Update now", "Later"]))
        assert found.kind == "update" and found.safe.label == "Later"

    def test_chinese_update_prompt(self):
        found = recognise(dialog_screen("com.x", "发现新版本", ["立即更新", "以后再说"], "修复了一些问题"))
        assert found.kind == "update" and found.safe.label == "以后再说"

    def test_later_only_in_the_message_is_no_button(self):
        screen = dialog_screen("com.x", "New version available", ["Update now"], "You can also update later.")
        found = recognise(screen)
        assert found.kind == "update" and found.safe is None and "no" in found.why

    def test_rating_request_takes_not_now_not_rate_or_never(self):
        found = recognise(dialog_screen("com.x", "Enjoying Video?", ["Rate now", "Not now", "Never ask"], "Rate us"))
        assert found.kind == "rating" and found.safe.label == "Not now"

    def test_chinese_rating_request(self):
        found = recognise(dialog_screen("com.x", "喜欢这个应用吗？", ["去好评", "暂不"], "给我们一个好评吧"))
        assert found.kind == "rating" and found.safe.label == "暂不"

    def test_permission_prompt_denied_or_allowed_while_using(self):
        pkg = "com.google.android.permissioncontroller"
        labels = ["While using the app", "Only this time", "Don't allow"]
        screen = dialog_screen(pkg, "Allow Maps to access this device's location?", labels)
        assert recognise(screen).safe.label == "Don't allow"
        assert recognise(screen, ALLOW_WHILE_USING).safe.label == "While using the app"

    def test_chinese_permission_prompt_by_its_real_ids(self):
        pkg = "com.android.permissioncontroller"
        ids = [
            f"{pkg}:id/permission_allow_foreground_only_button",
            f"{pkg}:id/permission_deny_and_dont_ask_again_button",
        ]
        screen = dialog_screen(pkg, "要允许“地图”获取此设备的位置信息吗？", ["仅在使用该应用时允许", "禁止"], ids=ids)
        assert recognise(screen).safe.label == "禁止"
        assert recognise(screen, ALLOW_WHILE_USING).safe.label == "仅在使用该应用时允许"

    def test_a_permission_prompt_from_an_app_package_is_refused(self):
        screen = dialog_screen("com.evil.app", "Allow Evil to access your contacts?", ["Don't allow", "Allow"])
        found = recognise(screen)
        assert found.safe is None and "not the system's permission controller" in found.why

    def test_a_dialog_about_money_is_no_obstacle_even_if_it_says_update(self):
        screen = dialog_screen("com.x", "New version available", ["Later", "Pay ¥6 and update"], "Update now for ¥6")
        assert recognise(screen).safe is None

    def test_splash_skip_with_countdown_is_pressed_or_waited_for(self):
        ready = recognise(splash_screen("com.x", [("跳过 3", True, True)]))
        assert ready.kind == "splash_ad" and ready.safe.label == "跳过 3" and not ready.waiting
        counting = recognise(splash_screen("com.x", [("5s 跳过", True, False)]))
        assert counting.kind == "splash_ad" and counting.waiting

    def test_two_skips_one_inside_the_ad_are_refused(self):
        found = recognise(splash_screen("com.x", [("Skip", True, True), ("Skip 5", True, True)]))
        assert found.kind == "splash_ad" and found.safe is None and "2 skip buttons" in found.why

    def test_a_skip_that_is_only_painted_text_is_not_pressed(self):
        found = recognise(splash_screen("com.x", [("跳过", False, True)]))
        assert found.safe is None

    def test_a_skip_word_inside_a_longer_label_is_no_skip_button(self):
        found = recognise(splash_screen("com.x", [("Skip the queue with Premium", True, True)]))
        assert not found.recognised


class TestMoreShapes:
    def test_two_not_now_like_buttons_are_refused(self):
        found = recognise(dialog_screen("com.x", "Enjoying it?", ["Rate now", "Not now", "No thanks"], "Rate us"))
        assert found.kind == "rating" and found.safe is None and "2 buttons" in found.why

    def test_a_cookie_notice_is_rejected_not_accepted(self):
        found = recognise(dialog_screen("com.x", "We use cookies", ["Accept all", "Reject all"], "Cookies help us"))
        assert found.kind == "cookies" and found.safe.label == "Reject all"

    def test_deny_and_dont_ask_again_is_found_by_its_id(self):
        pkg = "com.google.android.permissioncontroller"
        ids = [
            f"{pkg}:id/permission_allow_foreground_only_button",
            f"{pkg}:id/permission_deny_and_dont_ask_again_button",
        ]
        screen = dialog_screen(
            pkg, "Allow Maps to access location?", ["While using the app", "Don't allow & don't ask again"], ids=ids
        )
        assert recognise(screen).safe.label == "Don't allow & don't ask again"

    def test_allow_alone_is_never_the_while_using_choice(self):
        pkg = "com.android.permissioncontroller"
        screen = dialog_screen(pkg, "Allow Chat to send you notifications?", ["Allow", "Don't allow"])
        found = recognise(screen, ALLOW_WHILE_USING)
        assert found.safe is None  # "Allow" grants for good; only "While using the app" is asked for
