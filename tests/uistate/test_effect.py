"""ActionEffect, LimitNotice and TreeAdequacy on real dumps and real-dump edits."""

from __future__ import annotations

from uistate_real import dump

from mika.uistate import ActionEffect, EffectKind, LimitNotice, SeenText, TreeAdequacy, build_screen, parse_hierarchy
from mika.uistate.tree import Bounds


def _from(raw: str):
    return build_screen(parse_hierarchy(raw))


def _raw(name: str) -> str:
    return dump(name).decode("utf-8")


def _with_toast(raw: str, text: str) -> str:
    """The real dump plus one toast window, as uiautomator2 dumps a toast."""
    toast = (
        f'<node index="0" text="" class="android.widget.FrameLayout" package="com.android.systemui" '
        f'bounds="[100,1300][620,1400]"><node index="0" text="{text}" class="android.widget.TextView" '
        f'package="com.android.systemui" bounds="[120,1320][600,1380]"/></node>'
    )
    return raw.replace("</hierarchy>", toast + "</hierarchy>")


class TestEffect:
    def test_same_screen_is_no_effect(self) -> None:
        raw = _raw("wechat__chat_list__u2_multiwindow")
        effect = ActionEffect.judge(_from(raw), _from(raw))
        assert effect.kind is EffectKind.NO_EFFECT and not effect.tree_blind

    def test_clock_tick_alone_is_no_effect(self) -> None:
        raw = _raw("wechat__chat_list__u2_multiwindow")
        assert (
            ActionEffect.judge(_from(raw), _from(raw.replace('text="11:49"', 'text="11:50"'))).kind
            is EffectKind.NO_EFFECT
        )

    def test_change_in_place_is_done(self) -> None:
        raw = _raw("wechat__chat_list__u2_multiwindow")
        after = raw.replace('text="生活号"', 'text="生活号 (1)"')
        effect = ActionEffect.judge(_from(raw), _from(after))
        assert effect.kind is EffectKind.DONE and effect.changed

    def test_another_page_of_the_same_app_is_place_changed(self) -> None:
        before = _from(_raw("wechat__chat_list__u2_multiwindow"))
        after = _from(_raw("wechat__group_chat__u2_multiwindow"))
        assert ActionEffect.judge(before, after).kind is EffectKind.PLACE_CHANGED

    def test_another_app_is_place_changed(self) -> None:
        effect = ActionEffect.judge(
            _from(_raw("gmail__inbox_compose")), _from(_raw("youtube__upload_short_add_details"))
        )
        assert effect.kind is EffectKind.PLACE_CHANGED
        assert "com.google.android.gm" in effect.reason

    def test_no_effect_on_a_game_is_tree_blind(self) -> None:
        raw = _raw("unity_game__near_empty_tree")
        effect = ActionEffect.judge(_from(raw), _from(raw), target=(540, 1200))
        assert effect.kind is EffectKind.NO_EFFECT and effect.tree_blind
        assert effect.as_dict() == {"effect": "no_effect", "treeBlind": True}

    def test_no_effect_at_a_point_outside_every_element_is_tree_blind(self) -> None:
        raw = _raw("gmail__inbox_compose")
        screen = _from(raw)
        compose = next(e for e in screen.elements if e.label == "Compose")
        assert not ActionEffect.judge(screen, _from(raw), target=compose.centre).tree_blind
        # A point inside the full-screen list but on none of its rows or buttons.
        gap = next(
            (x, y)
            for y in range(0, 2400, 20)
            for x in range(0, 1080, 20)
            if all(not e.bounds.contains(x, y) or e.node.scrollable for e in screen.elements)
        )
        assert screen.element_at(*gap).node.scrollable
        assert ActionEffect.judge(screen, _from(raw), target=gap).tree_blind


class TestLimitNotice:
    def test_new_limit_toast_is_reported(self) -> None:
        raw = _raw("wechat__chat_list__u2_multiwindow")
        effect = ActionEffect.judge(_from(raw), _from(_with_toast(raw, "操作过于频繁，请稍后再试")))
        assert effect.limit == LimitNotice("操作过于频繁，请稍后再试")
        assert effect.as_dict()["limitReached"] == "操作过于频繁，请稍后再试"

    def test_notice_already_showing_does_not_count(self) -> None:
        raw = _with_toast(_raw("wechat__chat_list__u2_multiwindow"), "今日次数已用完，明天再来")
        assert LimitNotice.detect(_from(raw), _from(raw)) is None

    def test_each_phrase_family_matches_and_long_text_does_not(self) -> None:
        for text in (
            "Daily limit reached",
            "已达上限",
            "次数已用完",
            "明天再来吧",
            "操作过于频繁",
            "Too many requests, try again later",
        ):
            assert LimitNotice.matches(text), text
        assert not LimitNotice.matches("这篇文章讲的是" + "很长的内容" * 20 + "已达上限")
        assert not LimitNotice.matches("Inbox")

    def test_no_limit_text_on_real_dumps(self) -> None:
        for name in (
            "wechat__chat_list__u2_multiwindow",
            "gmail__inbox_compose",
            "futu_trader__position_history_scrollable_list",
        ):
            assert LimitNotice.detect(None, _from(_raw(name))) is None


class TestAdequacy:
    def test_game_is_unusable(self) -> None:
        a = TreeAdequacy.assess(_from(_raw("unity_game__near_empty_tree")))
        assert a.level == "unusable" and a.blind and a.needs_ocr

    def test_webview_app_is_uncertain_and_needs_ocr(self) -> None:
        a = TreeAdequacy.assess(_from(_raw("haoce__webview_reading_report")))
        assert a.level == "uncertain" and a.needs_ocr and not a.blind
        assert any("WebView" in r for r in a.reasons)

    def test_native_list_is_good(self) -> None:
        for name in ("wechat__chat_list__u2_multiwindow", "futu_trader__position_history_scrollable_list"):
            assert TreeAdequacy.assess(_from(_raw(name))).level == "good", name

    def test_screen_with_ocr_lines_is_partial(self) -> None:
        screen = _from(_raw("haoce__webview_reading_report"))
        blind = screen.with_seen_text((SeenText("读书报告", Bounds(0, 0, 10, 10), 0.9),))
        assert TreeAdequacy.assess(blind).blind
        assert "treeBlind" in blind.listing() and '"读书报告" @5,5' in blind.listing()
