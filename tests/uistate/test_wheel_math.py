"""The wheel arithmetic (mika/cap/phone/wheel_math.py) and the listing's wheel rule
(mika/uistate/wheel_shape.py): value reading, between, wrap, steps, columns, row height,
and that real screens' ordinary lists are never marked as wheels."""

from __future__ import annotations

import pytest

from mika.cap.phone.wheel_math import (
    Column,
    between,
    column_of,
    number_of,
    plan_steps,
    read_column,
    row_height,
    same_value,
    value_part,
    wraps,
)
from mika.uistate.elements import states_of
from mika.uistate.tree import Bounds, UiNode, parse_hierarchy
from mika.uistate.wheel_shape import looks_like_wheel
from tests.uistate.uistate_real import ALL_DUMPS


def text(label: str, x0: int, y0: int, x1: int, y1: int, **kw) -> UiNode:
    return UiNode("android.widget.TextView", text=label, bounds=Bounds(x0, y0, x1, y1), **kw)


def strip(values: list[str], x0=0, x1=300, top=0, row=100, cls="android.view.View", scrollable=False, **kw) -> UiNode:
    kids = tuple(text(v, x0, top + i * row, x1, top + (i + 1) * row) for i, v in enumerate(values))
    return UiNode(cls, bounds=Bounds(x0, top, x1, top + row * len(values)), scrollable=scrollable, children=kids, **kw)


@pytest.mark.parametrize(
    ("shown", "wanted"),
    [
        ("09", "9"),
        ("40分", "40"),
        ("Selected, 21", "21"),
        ("已选中，21", "21"),
        ("2026年", "2026"),
        ("3月, March", "March"),
    ],
)
def test_values_that_read_the_same(shown, wanted):
    assert same_value(shown, wanted)


@pytest.mark.parametrize(("shown", "wanted"), [("09", "19"), ("March", "May"), ("", "1"), ("12:30", "12:45")])
def test_values_that_differ(shown, wanted):
    assert not same_value(shown, wanted)


def test_state_words_are_dropped_and_one_number_is_taken():
    assert value_part("Selected, 21") == "21"
    assert number_of("40分") == 40 and number_of("2026-03-01") is None and number_of("Mar") is None


@pytest.mark.parametrize(
    ("above", "below", "mid"),
    [(39, 41, 40), (59, 1, 0), (23, 1, 0), (11, 1, 12), (41, 39, 40), (31, 2, 1), (3, 9, None)],
)
def test_between(above, below, mid):
    assert between(above, below) == mid


def test_wrap_is_seen_and_steps_take_the_near_side():
    assert wraps([58, 59, 0, 1]) == 60 and wraps([22, 23, 0]) == 24 and wraps([30, 31, 1, 2]) == 31
    assert wraps([5, 6, 7]) is None
    assert plan_steps(0, 45, 60) == -15 and plan_steps(58, 2, 60) == 4 and plan_steps(8, 7, 24) == -1
    assert plan_steps(0, 45, None) == 45  # no wrap seen: the plain difference


def test_the_middle_item_is_read_and_a_two_row_wheel_is_inferred():
    col = strip(["18", "19", "20", "21", "22"])
    read = read_column(Column(col, 0, 300))
    assert read.value == "20" and read.row == 100 and read.modulus is None
    # a wheel that reports only the rows above and below the middle
    two = UiNode(
        "android.view.View",
        bounds=Bounds(0, 0, 300, 300),
        children=(text("59", 0, 0, 300, 100), text("01", 0, 200, 300, 300)),
    )
    assert read_column(Column(two, 0, 300)).value == "00"
    # a single item marked selected wins over position
    sel = strip(["1", "2", "3"])
    marked = UiNode(
        sel.class_name,
        bounds=sel.bounds,
        children=(sel.children[0], sel.children[1], text("3", 0, 200, 300, 300, selected=True)),
    )
    assert read_column(Column(marked, 0, 300)).value == "3"


def test_an_item_finds_its_own_column_and_not_the_wheel_beside_it():
    hours = strip(["07", "08", "09"], 0, 300)
    minutes = strip(["59", "00", "01"], 300, 600)
    row = UiNode("android.widget.LinearLayout", bounds=Bounds(0, 0, 600, 300), children=(hours, minutes))
    root = UiNode("android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400), children=(row,))
    item = minutes.children[1]
    col = column_of([root, row, minutes, item])
    assert col is not None and col.node is minutes
    assert read_column(col).value == "00" and read_column(col).modulus == 60
    lone = text("Hello", 0, 0, 1080, 100)
    assert (
        column_of([UiNode("android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400), children=(lone,)), lone])
        is None
    )


def test_a_page_list_of_short_rows_is_no_wheel_column():
    # five short settings rows in a page-tall list: its rows must never be stepped as values
    rows = strip(["Wi-Fi", "Sound", "Apps", "Battery", "Display"], 0, 1080, top=300, row=180)
    page = UiNode(
        "androidx.recyclerview.widget.RecyclerView",
        bounds=Bounds(0, 300, 1080, 2300),
        scrollable=True,
        children=rows.children,
    )
    root = UiNode("android.widget.FrameLayout", bounds=Bounds(0, 0, 1080, 2400), children=(page,))
    assert column_of([root, page, page.children[2]]) is None
    assert column_of([root, page]) is None
    # the same rows in a strip their own size are a (word) wheel
    assert column_of([root, rows, rows.children[2]]) is not None


def test_row_height_is_the_median_gap():
    assert row_height([text("a", 0, 0, 1, 100), text("b", 0, 110, 1, 210), text("c", 0, 220, 1, 320)]) == 110
    assert row_height([text("a", 0, 0, 1, 100)]) is None


def test_looks_like_wheel():
    assert looks_like_wheel(UiNode("android.widget.NumberPicker", bounds=Bounds(0, 0, 10, 10)))
    assert looks_like_wheel(strip(["58", "59", "00", "01", "02"], scrollable=True))
    assert "wheel" in states_of(strip(["Mon", "Tue", "Wed"], 0, 200, scrollable=True, row=120))
    # not scrollable (a drawn wheel): rather miss than mis-mark
    assert not looks_like_wheel(strip(["58", "59", "00"]))
    # an ordinary short menu of words across the page
    assert not looks_like_wheel(strip(["Wi-Fi", "Bluetooth", "Display"], 0, 1080, scrollable=True, row=180))
    # long texts, too few or too many items, uneven spacing
    assert not looks_like_wheel(strip(["a long sentence of chat", "b", "c"], scrollable=True))
    assert not looks_like_wheel(strip(["1", "2"], scrollable=True))
    assert not looks_like_wheel(strip([str(i) for i in range(10)], scrollable=True))
    uneven = UiNode(
        "x",
        bounds=Bounds(0, 0, 300, 600),
        scrollable=True,
        children=(text("1", 0, 0, 300, 100), text("2", 0, 100, 300, 200), text("3", 0, 450, 300, 550)),
    )
    assert not looks_like_wheel(uneven)
    # a list with a few rows and empty space below them
    sparse = strip(["1", "2", "3"], scrollable=True)
    assert not looks_like_wheel(
        UiNode(sparse.class_name, bounds=Bounds(0, 0, 300, 2000), scrollable=True, children=sparse.children)
    )


@pytest.mark.parametrize("d", ALL_DUMPS, ids=[d.stem for d in ALL_DUMPS])
def test_no_real_screen_of_lists_and_chats_is_marked_a_wheel(d):
    # none of the real dumps holds a picker: every node marked would be a false mark
    tree = parse_hierarchy(d.read_bytes())
    marked = [n.class_name + " " + n.resource_id for n in tree.nodes() if looks_like_wheel(n)]
    assert marked == []
