"""OCR on the real screenshot/dump pairs (rapidocr with the models in its wheel)."""

from __future__ import annotations

import pytest

from mika.cap.phone.ocr import clean_lines, merge_ocr, read_text
from mika.uistate import Bounds, SeenText, TreeAdequacy, build_screen, parse_hierarchy
from tests.real_fixtures import real_bytes


@pytest.fixture(scope="module")
def haoce_lines():
    return read_text(real_bytes("screenshots/haoce__webview_reading_report.png"))


def test_lines_are_read_top_to_bottom_with_centres(haoce_lines) -> None:
    texts = [s.text for s in haoce_lines]
    assert "专利笔记" in texts and "继续阅读" in texts
    tops = [s.box.top for s in haoce_lines]
    assert tops == sorted(tops)
    line = next(s for s in haoce_lines if s.text == "继续阅读")
    x, y = line.centre
    assert line.box.contains(x, y) and 0.5 <= line.score <= 1


def test_ocr_agrees_with_the_tree_where_both_see(haoce_lines) -> None:
    screen = build_screen(parse_hierarchy(real_bytes("ui_dumps/haoce__webview_reading_report.xml")))
    button = next(e for e in screen.elements if e.label == "继续阅读")
    line = next(s for s in haoce_lines if s.text == "继续阅读")
    # Same place in tree coordinates and in pixels (the dump and capture are a real pair).
    assert button.bounds.contains(*line.centre)


def test_merge_adds_only_what_the_tree_lacks(haoce_lines) -> None:
    screen = build_screen(parse_hierarchy(real_bytes("ui_dumps/haoce__webview_reading_report.xml")))
    assert TreeAdequacy.assess(screen).needs_ocr
    merged = merge_ocr(screen, haoce_lines)
    added = {s.text for s in merged.seen_text}
    assert "专利笔记" not in added and "继续阅读" not in added  # the tree has these
    assert added and added < {s.text for s in haoce_lines}
    tree_texts = "".join(screen.texts()).replace(" ", "")
    assert all(t.replace(" ", "") not in tree_texts for t in added)
    assert merged.tree_blind == (len(added) >= 3)
    if merged.tree_blind:
        assert "treeBlind" in merged.listing()


def test_game_screen_is_blind_even_with_few_lines() -> None:
    screen = build_screen(parse_hierarchy(real_bytes("ui_dumps/unity_game__near_empty_tree.xml")))
    merged = merge_ocr(screen, (SeenText("PLAY", Bounds(400, 2000, 680, 2100), 0.95),))
    assert merged.tree_blind and merged.seen_text[0].text == "PLAY"
    assert '"PLAY" @540,2050' in merged.listing()


def test_misreads_are_dropped() -> None:
    lines = [
        SeenText("设置", Bounds(0, 10, 10, 20), 0.9),
        SeenText("通知", Bounds(0, 30, 10, 40), 0.9),
        SeenText("ab", Bounds(0, 50, 10, 60), 0.9),  # stray Latin fragment on a Chinese screen
        SeenText("···", Bounds(0, 70, 10, 80), 0.9),  # symbols only
        SeenText("蓝牙", Bounds(0, 90, 10, 100), 0.2),  # low confidence
        SeenText("WLAN 网络", Bounds(0, 0, 10, 5), 0.9),
    ]
    assert [s.text for s in clean_lines(lines)] == ["WLAN 网络", "设置", "通知"]


def test_boxes_are_scaled_when_a_size_override_is_in_force(haoce_lines) -> None:
    tree = parse_hierarchy(real_bytes("ui_dumps/unity_game__near_empty_tree.xml"))
    screen = build_screen(tree, size=(540, 1200))
    merged = merge_ocr(screen, haoce_lines, image_size=(1080, 2400))
    assert len(merged.seen_text) == len(haoce_lines)  # the game's tree knows none of them
    halved = sorted((round(s.box.top / 2), round(s.box.left / 2), s.text) for s in haoce_lines)
    got = sorted((s.box.top, s.box.left, s.text) for s in merged.seen_text)
    for (top, left, text), (gt, gl, gtext) in zip(halved, got, strict=False):
        assert text == gtext and abs(top - gt) <= 1 and abs(left - gl) <= 1
