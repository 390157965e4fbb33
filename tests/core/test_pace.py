"""Operating pace, pure logic (seed §6 手势的节奏 / 操作节奏): every number the seed gives."""

from __future__ import annotations

import math
import random
from itertools import pairwise

import pytest

from mika.action.pace import (
    AppDwell,
    GesturePacing,
    ScreenCap,
    TypingPacing,
    graphemes,
)

SEEDS = range(300)


# ------------------------------------------------------------ gestures


def test_instant_is_todays_behaviour_exactly() -> None:
    g = GesturePacing.instant()
    assert g.pre_touch_ms() == 0 and g.tap_hold_ms() == 0
    assert g.point_in(100, 200, 300, 260) == (200, 230)
    assert g.point_at(17, 33) == (17, 33)
    assert g.swipe(10, 20, 500, 900, 300) == [(0, 10, 20), (300, 500, 900)]
    assert g.hold_ms(1000) == 1000 and g.pinch_ms(400) == 400


def test_pre_touch_and_tap_hold_ranges() -> None:
    for s in SEEDS:
        g = GesturePacing(random.Random(s))
        assert 30 <= g.pre_touch_ms() <= 120
        assert 50 <= g.tap_hold_ms() <= 120


@pytest.mark.parametrize(
    "box",
    [(0, 0, 1080, 200), (100, 100, 140, 130), (5, 5, 28, 900), (0, 0, 23, 23), (10, 10, 11, 11), (0, 0, 60, 25)],
)
def test_element_offset_bounded_and_always_inside(box: tuple[int, int, int, int]) -> None:
    left, top, right, bottom = box
    cx, cy = (left + right) // 2, (top + bottom) // 2
    w, h = right - left, bottom - top
    for s in SEEDS:
        x, y = GesturePacing(random.Random(s)).point_in(*box)
        assert left <= x <= right and top <= y <= bottom
        for off, side in ((x - cx, w), (y - cy, h)):
            if side < 24:
                assert off == 0, f"no offset on a side narrower than 24 px ({box})"
            else:
                assert abs(off) <= min(side / 5, 12) + 0.5


def test_coordinate_tap_off_by_at_most_3px_and_kept_on_screen() -> None:
    for s in SEEDS:
        x, y = GesturePacing(random.Random(s)).point_at(500, 800)
        assert abs(x - 500) <= 3 and abs(y - 800) <= 3
        x, y = GesturePacing(random.Random(s)).point_at(0, 2399, 1080, 2400)
        assert 0 <= x <= 3 and 2396 <= y <= 2399


def _deviation(points: list[tuple[int, int, int]]) -> float:
    (_, x1, y1), (_, x2, y2) = points[0], points[-1]
    d = math.hypot(x2 - x1, y2 - y1)
    return max(abs((x2 - x1) * (y1 - py) - (x1 - px) * (y2 - y1)) / d for _, px, py in points)


@pytest.mark.parametrize("ms", [150, 300, 799, 800, 1500])
def test_swipe_keeps_ends_small_arc_duration_within_8_percent(ms: int) -> None:
    for s in SEEDS:
        pts = GesturePacing(random.Random(s)).swipe(540, 1800, 560, 400, ms)
        assert pts[0][1:] == (540, 1800) and pts[-1][1:] == (560, 400)
        dist = math.hypot(20, 1400)
        assert _deviation(pts) <= min(0.06 * dist, 30) + 1.5
        assert ms * 0.92 - 1 <= pts[-1][0] <= ms * 1.08 + 1
        times = [t for t, _, _ in pts]
        assert times == sorted(times)


def test_flick_starts_slow_and_lifts_at_about_the_old_uniform_speed() -> None:
    pts = GesturePacing(random.Random(4)).swipe(500, 2000, 500, 400, 300)
    ys = [(t, y) for t, _, y in pts]
    uniform = 1600 / pts[-1][0]
    first = abs(ys[1][1] - ys[0][1]) / (ys[1][0] - ys[0][0])
    last = abs(ys[-1][1] - ys[-2][1]) / (ys[-1][0] - ys[-2][0])
    assert first < 0.6 * uniform
    assert 0.8 * uniform <= last <= 1.25 * uniform


def test_drag_settles_before_lifting() -> None:
    pts = GesturePacing(random.Random(4)).swipe(500, 2000, 500, 400, 1200)
    assert pts[-1][1:] == pts[-2][1:] and pts[-1][0] - pts[-2][0] >= 100
    # the last moving step is slower than the middle one
    mid = len(pts) // 2
    speed = lambda a, b: abs(b[2] - a[2]) / max(1, b[0] - a[0])  # noqa: E731
    assert speed(pts[-3], pts[-2]) < speed(pts[mid - 1], pts[mid])


def test_press_in_place_only_gets_longer() -> None:
    for s in SEEDS:
        pts = GesturePacing(random.Random(s)).swipe(300, 300, 302, 301, 1000)
        assert 1000 <= pts[-1][0] <= 1080 and pts[0][1:] == (300, 300)
        assert 500 <= GesturePacing(random.Random(s)).hold_ms(500) <= 540


# ------------------------------------------------------------ typing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("e\u0301a", ["e\u0301", "a"]),  # combining acute
        ("\u2764\ufe0fx", ["\u2764\ufe0f", "x"]),  # variation selector
        ("👨\u200d👩\u200d👧a", ["👨\u200d👩\u200d👧", "a"]),  # ZWJ family
        ("👍🏽!", ["👍🏽", "!"]),  # skin tone
        ("🇨🇳🇺🇸", ["🇨🇳", "🇺🇸"]),  # two flags, not three halves
        ("1\ufe0f\u20e3z", ["1\ufe0f\u20e3", "z"]),  # keycap
        ("a\r\nb", ["a", "\r\n", "b"]),
        ("\ud83d\ude00q", ["\ud83d\ude00", "q"]),  # a surrogate pair that came in as two code units
        ("\u200d\u200d", ["\u200d\u200d"]),
        (
            "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
            ["🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"],
        ),
    ],
)
def test_graphemes_never_split(text: str, expected: list[str]) -> None:
    assert graphemes(text) == expected
    assert "".join(graphemes(text)) == text


ODD = [
    "naïve cafe\u0301 👩\u200d💻 ok",
    "你好，世界！今天天气很好。",
    "🇯🇵🇰🇷🇨🇳" * 5,
    "\u0000\u202e\ufeffabc\u0301\u0301\u0301",
    "x" * 500,
    "混合 mixed 文本 with 表情😀👍🏿 and ❤️",
]


@pytest.mark.parametrize("text", ODD)
@pytest.mark.parametrize("pace", ["standard", "human"])
def test_prefixes_grow_to_the_whole_text_on_grapheme_boundaries(text: str, pace: str) -> None:
    for s in range(40):
        plan = TypingPacing.for_pace(pace, random.Random(s)).plan(text)
        assert plan[-1].prefix == text
        bounds = set()
        acc = ""
        for g in graphemes(text):
            acc += g
            bounds.add(len(acc))
        last = 0
        for c in plan:
            assert text.startswith(c.prefix) and len(c.prefix) > last
            assert len(c.prefix) in bounds, f"split inside a grapheme: {c.prefix!r}"
            last = len(c.prefix)
        limit, cap = (40, 6000) if pace == "standard" else (60, 12000)
        assert len(plan) <= limit
        assert sum(c.delay_ms for c in plan) <= cap


def test_latin_and_cjk_rates_and_ime_runs() -> None:
    for s in range(50):
        plan = TypingPacing.for_pace("standard", random.Random(s)).plan("abcdefgh")
        assert len(plan) == 8
        assert all(60 <= c.delay_ms <= 170 for c in plan[1:])
        cjk = TypingPacing.for_pace("standard", random.Random(s)).plan("我们明天早上去公园散步")
        steps = [len(b.prefix) - len(a.prefix) for a, b in pairwise(cjk)]
        assert all(1 <= n <= 3 for n in steps)
        for a, b in pairwise(cjk):
            n = len(b.prefix) - len(a.prefix)
            assert 160 * n <= b.delay_ms <= 380 * n


def test_careful_is_slower_and_pauses_after_punctuation() -> None:
    std = sum(sum(c.delay_ms for c in TypingPacing.for_pace("standard", random.Random(s)).plan("hello")) for s in SEEDS)
    hum = sum(sum(c.delay_ms for c in TypingPacing.for_pace("human", random.Random(s)).plan("hello")) for s in SEEDS)
    assert hum > std * 1.2
    paused = [
        TypingPacing.for_pace("standard", random.Random(s)).plan("hi, yo")[3].delay_ms for s in SEEDS
    ]  # the chunk after ", "
    assert max(paused) >= 300 + 60 and min(paused) >= 60


def test_fast_password_paste_only_and_single_char_are_typed_at_once() -> None:
    rng = random.Random(1)
    assert [c.prefix for c in TypingPacing.for_pace("fast", rng).plan("hello")] == ["hello"]
    t = TypingPacing.for_pace("human", rng)
    assert [c.prefix for c in t.plan("hunter2", password=True)] == ["hunter2"]
    assert [c.prefix for c in t.plan("hunter2", paste_only=True)] == ["hunter2"]
    assert [c.prefix for c in t.plan("👨\u200d👩\u200d👧")] == ["👨\u200d👩\u200d👧"]
    assert [c.prefix for c in t.plan("")] == [""]


# ------------------------------------------------------------ dwell


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_fast_never_dwells() -> None:
    clock = Clock()
    d = AppDwell("fast", random.Random(0), clock)
    d.after("done")
    assert d.before("com.x") == 0.0


def test_first_action_goes_at_once_then_standard_ranges() -> None:
    clock = Clock()
    d = AppDwell("standard", random.Random(0), clock)
    assert d.before("com.x") == 0.0
    same, new = [], []
    for _ in range(2000):
        d.after("unchanged")
        same.append(d.before("com.x"))
        d.after("done")
        new.append(d.before("com.x"))
    assert min(same) >= 0.5 and max(same) <= 3.5
    assert min(new) >= 0.9 and max(new) <= 3.5
    assert sum(1 for v in same if v > 1.2) / len(same) == pytest.approx(0.05, abs=0.025)


def test_careful_app_and_human_add_reading_time_capped() -> None:
    clock = Clock()
    d = AppDwell("standard", random.Random(3), clock, app_pace=lambda p: "careful" if p == "com.slow" else "")
    d.screen_read(10_000)  # 150 s of reading, capped at 8 s, total capped at 15 s
    vals = []
    for _ in range(500):
        d.after("place_changed")
        vals.append(d.before("com.slow"))
    assert min(vals) >= 2.5 + 8 and max(vals) <= 15.0
    d.screen_read(0)
    d.after("unchanged")
    assert 0.5 <= d.before("com.fast") <= 3.5


def test_thinking_time_counts_toward_the_dwell() -> None:
    clock = Clock()
    d = AppDwell("human", random.Random(5), clock)
    d.after("done")
    clock.now += 20.0  # the model thought for 20 s
    assert d.before("com.x") == 0.0
    d.after("done")
    clock.now += 1.0
    assert d.before("com.x") <= 14.0


# ------------------------------------------------------------ screen cap


def test_screen_cap_24_then_page_limit_for_screen_changing_kinds_only() -> None:
    cap = ScreenCap("standard", app_pace=lambda p: "careful" if p == "com.slow" else "")
    for _ in range(23):
        cap.note("com.slow", "done")
        cap.note("com.slow", "unchanged")  # scrolling the same page does not count
        cap.note("com.other", "done")
    assert not cap.blocks("com.slow", True)
    cap.note("com.slow", "place_changed")
    assert cap.blocks("com.slow", True)
    assert not cap.blocks("com.slow", False)  # typing, scrolling, wheels, another app
    assert not cap.blocks("com.other", True)
    cap.user_answered()
    assert not cap.blocks("com.slow", True) and cap.count("com.slow") == 0


def test_screen_cap_off_under_fast_and_after_an_outward_action() -> None:
    fast = ScreenCap("fast", app_pace=lambda p: "careful")
    slow = ScreenCap("human", app_pace=lambda p: "careful")
    for _ in range(30):
        fast.note("a", "done")
        slow.note("a", "done")
    assert not fast.blocks("a", True) and slow.blocks("a", True)
    slow.outward_done("a")
    assert not slow.blocks("a", True)
