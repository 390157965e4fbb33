"""parse_hierarchy on every real dump, and on broken input."""

from __future__ import annotations

import re

import pytest
from uistate_real import ALL_DUMPS, dump

from mika.uistate import Bounds, HierarchyError, parse_hierarchy

_BOUNDS = re.compile(rb'bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"')


@pytest.mark.parametrize("path", ALL_DUMPS, ids=lambda p: p.stem)
def test_every_real_dump_parses_with_the_bounds_it_says(path) -> None:
    raw = path.read_bytes()
    tree = parse_hierarchy(raw)
    nodes = list(tree.nodes())
    assert len(nodes) == raw.count(b"<node")
    # Bounds in pre-order equal the file's own bounds attributes in document order.
    expected = [Bounds(*(int(g) for g in m.groups())) for m in _BOUNDS.finditer(raw)]
    assert [n.bounds for n in nodes] == expected
    assert [n.order for n in nodes] == list(range(len(nodes)))
    assert tree.warnings == ()


def test_u2_dump_keeps_each_top_level_window_with_display_id() -> None:
    tree = parse_hierarchy(dump("indriver__ride_requests__u2_gesture_windows"))
    assert tree.format == "u2"
    assert [w.package for w in tree.windows] == [
        "sinet.startup.inDriver",
        "gesture",
        "com.android.systemui",
        "gesture",
        "com.android.systemui",
        "gesture",
    ]
    assert tree.display_ids == (0,)
    assert all(n.display_id == 0 for n in tree.nodes())
    assert {n.window for n in tree.windows[4].root.walk()} == {4}


def test_uiautomator_dump_is_one_window_without_display_ids() -> None:
    tree = parse_hierarchy(dump("futu_trader__position_history_scrollable_list"))
    assert tree.format == "uiautomator"
    assert len(tree.windows) == 1
    assert tree.display_ids == ()


def test_rotation_and_landscape_bounds() -> None:
    tree = parse_hierarchy(dump("mumu_launcher__landscape_rotation1"))
    assert tree.rotation == 1
    assert tree.bounds == Bounds(0, 0, 1920, 1080)


def test_dialog_root_not_at_origin_is_kept() -> None:
    tree = parse_hierarchy(dump("kakaotalk__delete_message_dialog_partial_bounds"))
    assert tree.windows[0].bounds == Bounds(0, 583, 1080, 1718)


def test_no_xml_declaration_and_private_use_glyphs() -> None:
    raw = dump("haoce__webview_reading_report")
    assert raw.startswith(b"<hierarchy")
    tree = parse_hierarchy(raw)
    assert any("\ue601" in n.text for n in tree.nodes())
    assert sum(1 for n in tree.nodes() if n.class_name == "android.webkit.WebView") == 6


def test_entities_are_decoded_and_naf_read() -> None:
    tree = parse_hierarchy(dump("futu_trader__position_history_scrollable_list"))
    texts = [n.text for n in tree.nodes()]
    assert any(">" in t for t in texts) and not any("&gt;" in t for t in texts)
    assert any(n.naf for n in tree.nodes())


def test_mojibake_is_kept_as_is() -> None:
    tree = parse_hierarchy(dump("android_language_picker__api17_chinese_mojibake"))
    texts = [n.text for n in tree.nodes()]
    assert "语言" in texts
    assert any(t.startswith("æ­£å") for t in texts)  # double-decoded UTF-8, untouched


def test_u2_attributes_are_read() -> None:
    tree = parse_hierarchy(dump("wechat__chat_list__u2_multiwindow"))
    nodes = list(tree.nodes())
    assert any(n.drawing_order for n in nodes)
    assert any(not n.visible_to_user for n in nodes) or all(n.visible_to_user for n in nodes)
    edit = [n for n in parse_hierarchy(dump("gmail__inbox_compose")).nodes() if n.editable]
    assert edit and all(n.class_name.endswith("EditText") for n in edit)


def test_utf16_and_trailing_shell_text_are_tolerated() -> None:
    raw = dump("thunderbird__inbox_empty_list").decode("utf-8")
    noisy = raw + "\nUI hierchary dumped to: /dev/tty\n"
    assert parse_hierarchy(noisy.encode("utf-16")).node_count() == raw.count("<node")


def test_invalid_control_character_reference_is_repaired() -> None:
    xml = '<hierarchy rotation="0"><node text="a&#1;b" class="x" bounds="[0,0][10,10]"/></hierarchy>'
    node = next(parse_hierarchy(xml).nodes())
    assert node.text == "a\ufffdb"


@pytest.mark.parametrize(
    ("data", "needle", "kind", "retryable"),
    [
        (b"", "empty", "empty", True),
        (b"ERROR: null root node returned by UiTestAutomationBridge.", "null root node", "null_root", True),
        (b"ERROR: could not get idle state.", "idle", "idle_timeout", True),
        (b"\x89PNG\r\n\x1a\n garbage", "no <hierarchy>", "no_hierarchy", False),
        (b"<hierarchy rotation='0'><node text='a' bounds='[0,0][1,1]'>", "truncated", "truncated", False),
        (b"<hierarchy><node text='a' <<< /></hierarchy>", "not well-formed", "malformed", False),
        (b"<!DOCTYPE x [<!ENTITY a 'b'>]><hierarchy>&a;</hierarchy>", "DOCTYPE", "doctype", False),
    ],
)
def test_garbage_raises_hierarchy_error_with_reason(data: bytes, needle: str, kind: str, retryable: bool) -> None:
    with pytest.raises(HierarchyError) as info:
        parse_hierarchy(data)
    assert needle in str(info.value)
    assert "Read the screen again" in str(info.value)
    assert info.value.kind == kind and info.value.retryable is retryable


def test_truncated_real_dump_is_an_error() -> None:
    raw = dump("gmail__inbox_compose")
    with pytest.raises(HierarchyError, match="truncated"):
        parse_hierarchy(raw[: len(raw) // 2])


def test_empty_hierarchy_is_a_valid_empty_tree() -> None:
    tree = parse_hierarchy('<?xml version="1.0"?><hierarchy rotation="0"/>')
    assert tree.windows == ()
