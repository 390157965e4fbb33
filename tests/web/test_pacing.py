"""Page pacing (seed §6 一页一页看的节奏, line 169): every number, with a fake clock.

The clock is a plain counter the test moves; the randomness is a `random.Random` whose
draws we pin by choosing rngs that return known values (`Fixed`), so the bounds of each
dwell are checked exactly. Nothing sleeps.
"""

from __future__ import annotations

import random

import pytest

from mika.cap.web.pacing import (
    FREE,
    LIMITED,
    PAGE_CHANGING,
    PagePacing,
    registrable_domain,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Fixed(random.Random):
    """A Random whose `random()` is always `value`: 0.0 → the low bound, ~1 → the high one."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def pacing(value: float = 0.0, careful: tuple[str, ...] = ()) -> tuple[PagePacing, Clock]:
    clock = Clock()
    pace = PagePacing(
        clock=clock,
        rng=Fixed(value),
        site_pace=lambda host: "careful" if host in careful else "",
    )
    return pace, clock


def visit(pace: PagePacing, clock: Clock, n: int, site: str = "shop.example.com", gap: float = 60.0) -> None:
    """n new pages of one site, `gap` seconds apart (the dwell long since served)."""
    for i in range(n):
        clock.now += gap
        assert pace.page_seen(f"https://{site}/p{clock.now}-{i}")


# ---------------------------------------------------------------- registrable domain


@pytest.mark.parametrize(
    ("given", "site"),
    [
        ("https://www.example.com/a?b#c", "example.com"),
        ("https://a.b.shop.example.com", "example.com"),
        ("https://item.taobao.com/x", "taobao.com"),
        ("https://www.jd.com.cn/", "jd.com.cn"),
        ("https://news.sina.com.cn/", "sina.com.cn"),
        ("https://www.bbc.co.uk/news", "bbc.co.uk"),
        ("https://shop.example.co.jp", "example.co.jp"),
        ("https://www.example.com.au", "example.com.au"),
        ("https://a.example.gov.uk", "example.gov.uk"),
        ("https://www.example.de", "example.de"),
        ("https://EXAMPLE.COM.", "example.com"),
        ("http://localhost:8080/x", "localhost"),
        ("http://127.0.0.1:5123/page", "127.0.0.1"),
        ("http://[::1]:80/", "::1"),
        ("http://192.168.1.20/", "192.168.1.20"),
        ("shop.example.com", "example.com"),
        ("example.com", "example.com"),
        ("", ""),
        ("about:blank", ""),
    ],
)
def test_registrable_domain(given: str, site: str) -> None:
    assert registrable_domain(given) == site


def test_subdomains_of_one_site_share_the_count() -> None:
    pace, clock = pacing()
    pace.page_seen("https://www.example.com/1")
    clock.now += 1
    pace.page_seen("https://m.example.com/2")
    assert pace.pages("example.com") == 2
    assert pace.pages("https://img.example.com/") == 2


# ---------------------------------------------------------------- what counts as a page


def test_a_new_page_is_a_changed_address_ignoring_the_fragment() -> None:
    pace, _clock = pacing()
    assert pace.page_seen("https://example.com/a")
    assert not pace.page_seen("https://example.com/a")  # a read of the same page
    assert not pace.page_seen("https://example.com/a#reviews")  # only the fragment moved
    assert pace.page_seen("https://example.com/a?page=2")  # the query is part of the page
    assert pace.pages("example.com") == 2
    pace.note_loaded_more("https://example.com/a?page=2")  # a scroll down loaded more
    assert pace.pages("example.com") == 3


def test_loaded_more_is_a_page_and_owes_the_next_dwell() -> None:
    pace, _clock = pacing(0.0)
    pace.page_seen("https://example.com/list")
    assert pace.dwell_before("scroll_down", "https://example.com/list") == 0.0  # first page
    pace.note_loaded_more("https://example.com/list")
    assert pace.dwell_before("scroll_down", "https://example.com/list") == pytest.approx(4.0)


# ---------------------------------------------------------------- dwell numbers


def test_first_page_of_a_site_no_dwell_then_4_to_7_then_plus_06_and_1() -> None:
    for value, bounds in ((0.0, "low"), (1.0, "high")):
        pace, clock = pacing(value)
        owed = []
        for i in range(12):
            clock.now += 0.001  # pages come quickly; every dwell is still fully owed
            pace.page_seen(f"https://example.com/{i}")
            owed.append(round(pace.dwell_before("tap", f"https://example.com/{i}"), 3))
        if bounds == "low":
            # 0, 4, 4.6, 5.2, 5.8, 6.4, 7.0, 7.6, … capped at 12
            assert owed[:7] == [0.0, 4.0, 4.6, 5.2, 5.8, 6.4, 7.0]
            assert owed[-1] == pytest.approx(min(12.0, 4.0 + 0.6 * 10))
        else:
            # 0, 7, 8, 9, 10, 11, 12, 12, … (at most 12 s)
            assert owed[:7] == [0.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
            assert owed[7:] == [12.0] * 5


def test_careful_site_10_to_16_then_steps_at_most_30() -> None:
    low, clock = pacing(0.0, careful=("www.slow.cn",))
    high, clock2 = pacing(1.0, careful=("www.slow.cn",))
    lows: list[float] = []
    highs: list[float] = []
    for i in range(22):
        for pace, c, out in ((low, clock, lows), (high, clock2, highs)):
            c.now += 0.001
            pace.page_seen(f"https://www.slow.cn/{i}")
            out.append(round(pace.dwell_before("back", f"https://www.slow.cn/{i}"), 3))
    assert lows[:4] == [0.0, 10.0, 10.6, 11.2]
    assert highs[:4] == [0.0, 16.0, 17.0, 18.0]
    assert max(highs) == 30.0 and highs[15] == 30.0 and highs[14] == 29.0
    assert lows[-1] == pytest.approx(10.0 + 0.6 * 20)  # 22.0 — below the cap


def test_values_in_between_are_drawn_from_the_range() -> None:
    pace = PagePacing(clock=lambda: 5.0, rng=random.Random(7))
    pace.page_seen("https://example.com/1")
    pace.page_seen("https://example.com/2")
    owed = pace.dwell_before("tap", "https://example.com/2")
    assert 4.0 <= owed <= 7.0
    # asked again, the same page owes the same (drawn once, when the page came)
    assert pace.dwell_before("tap", "https://example.com/2") == owed


def test_time_already_spent_counts_and_a_served_dwell_owes_nothing() -> None:
    pace, clock = pacing(0.0)
    pace.page_seen("https://example.com/1")
    clock.now += 1
    pace.page_seen("https://example.com/2")  # owes 4 s
    clock.now += 2.5  # the model thought and read for 2.5 s
    assert pace.dwell_before("tap", "https://example.com/2") == pytest.approx(1.5)
    pace.dwell_before("type", "https://example.com/2")
    clock.now += 5
    assert pace.dwell_before("tap", "https://example.com/2") == 0.0


def test_only_page_changing_kinds_owe_the_dwell() -> None:
    pace, _clock = pacing(0.0)
    pace.page_seen("https://example.com/1")
    pace.page_seen("https://example.com/2")
    url = "https://example.com/2"
    for kind in ("navigate", "tap", "back", "key", "scroll_down", "swipe"):
        assert pace.dwell_before(kind, url) == pytest.approx(4.0), kind
    for kind in ("type", "clear", "scroll_up", "read", "observe", "screenshot", "evaluate", "no-such-kind"):
        assert pace.dwell_before(kind, url) == 0.0, kind
    assert PAGE_CHANGING.isdisjoint(FREE)
    assert LIMITED <= PAGE_CHANGING


def test_going_to_another_site_owes_nothing() -> None:
    pace, _clock = pacing(0.0)
    pace.page_seen("https://example.com/1")
    pace.page_seen("https://example.com/2")
    assert pace.dwell_before("navigate", "https://www.other.org/") == 0.0
    assert pace.dwell_before("navigate", "https://news.example.com/x") == pytest.approx(4.0)  # same site


def test_the_ten_minute_window_restarts_the_dwell_steps() -> None:
    pace, clock = pacing(0.0)
    for i in range(3):
        clock.now += 1
        pace.page_seen(f"https://example.com/{i}")
    assert pace.dwell_before("tap", "https://example.com/2") == pytest.approx(4.6)  # the third page
    clock.now += 601  # more than 10 minutes since every page
    pace.page_seen("https://example.com/fresh")
    assert pace.dwell_before("tap", "https://example.com/fresh") == 0.0  # first in the window again
    clock.now += 1
    pace.page_seen("https://example.com/fresh2")
    assert pace.dwell_before("tap", "https://example.com/fresh2") == pytest.approx(4.0)


def test_the_window_is_per_site() -> None:
    pace, _clock = pacing(0.0)
    pace.page_seen("https://example.com/1")
    pace.page_seen("https://example.com/2")
    pace.page_seen("https://other.org/1")
    assert pace.dwell_before("tap", "https://other.org/1") == 0.0  # other.org's first page
    pace.page_seen("https://example.com/3")
    assert pace.dwell_before("tap", "https://example.com/3") == pytest.approx(4.6)


# ---------------------------------------------------------------- page limits


def test_twenty_pages_per_site_then_page_changing_actions_are_refused() -> None:
    pace, clock = pacing()
    visit(pace, clock, 19)
    assert pace.refusal("tap", "https://shop.example.com/p") is None
    visit(pace, clock, 1)
    assert pace.pages("example.com") == 20
    for kind in ("navigate", "tap", "back", "key"):
        refused = pace.refusal(kind, "https://shop.example.com/p")
        assert refused is not None and refused.code == "page_limit", kind
        assert refused.limit == 20 and refused.pages == 20 and refused.site == "example.com"
        assert "ask_user" in refused.message and "example.com" in refused.message
        assert "what you have read" in refused.message
    # scrolling down, reading, typing go on; so does another site
    for kind in ("scroll_down", "swipe", "read", "type", "scroll_up"):
        assert pace.refusal(kind, "https://shop.example.com/p") is None, kind
    assert pace.refusal("navigate", "https://other.org/") is None
    # navigating *to* the spent site from elsewhere is refused too
    assert pace.refusal("navigate", "https://www.example.com/") is not None


def test_careful_sites_stop_at_twelve() -> None:
    pace, clock = pacing(careful=("shop.example.com",))
    visit(pace, clock, 11)
    assert pace.refusal("tap", "https://shop.example.com/p") is None
    visit(pace, clock, 1)
    refused = pace.refusal("tap", "https://shop.example.com/p")
    assert refused is not None and refused.limit == 12


def test_the_limit_counts_across_the_ten_minute_window() -> None:
    pace, clock = pacing()
    visit(pace, clock, 20, gap=700.0)  # every page more than 10 minutes after the last
    assert pace.refusal("tap", "https://shop.example.com/p") is not None


def test_user_answered_resets_the_counts() -> None:
    pace, clock = pacing()
    visit(pace, clock, 20)
    assert pace.refusal("tap", "https://shop.example.com/p") is not None
    pace.user_answered()
    assert pace.pages("example.com") == 0
    assert pace.refusal("tap", "https://shop.example.com/p") is None
    visit(pace, clock, 20)
    assert pace.refusal("tap", "https://shop.example.com/p") is not None


def test_outward_done_lifts_the_limit_for_the_rest_of_the_run() -> None:
    pace, clock = pacing()
    visit(pace, clock, 20)
    pace.outward_done("shop.example.com")
    assert pace.refusal("tap", "https://www.example.com/p") is None
    visit(pace, clock, 30)
    pace.user_answered()  # answering does not bring the limit back
    visit(pace, clock, 25)
    assert pace.refusal("tap", "https://shop.example.com/p") is None
    # … only for that site
    visit(pace, clock, 20, site="other.org")
    assert pace.refusal("tap", "https://other.org/x") is not None


def test_lifting_does_not_remove_the_dwell() -> None:
    pace, _clock = pacing(0.0)
    pace.outward_done("example.com")
    pace.page_seen("https://example.com/1")
    pace.page_seen("https://example.com/2")
    assert pace.dwell_before("tap", "https://example.com/2") == pytest.approx(4.0)


def test_off_does_nothing() -> None:
    pace = PagePacing.off()
    assert not pace.enabled
    for i in range(50):
        assert not pace.page_seen(f"https://example.com/{i}")
        pace.note_loaded_more(f"https://example.com/{i}")
    for kind in PAGE_CHANGING:
        assert pace.dwell_before(kind, "https://example.com/49") == 0.0
        assert pace.refusal(kind, "https://example.com/49") is None
    assert pace.pages("example.com") == 0


def test_no_page_yet_owes_nothing() -> None:
    pace, _ = pacing()
    assert pace.dwell_before("navigate", "https://example.com/") == 0.0
    assert pace.refusal("navigate", "https://example.com/") is None
    assert not pace.page_seen("about:blank") or pace.dwell_before("tap", "about:blank") == 0.0
