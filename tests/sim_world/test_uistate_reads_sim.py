"""The project's own screen model reads the simulated phone's dumps the way it reads a
real phone's: this keeps the simulator's formats honest against the real parser."""

from __future__ import annotations

from mika.sim.apps.frame import build_frame
from mika.sim.phone import make_device
from mika.sim.world.hierarchy import dump_u2
from mika.uistate import LimitNotice, TreeAdequacy, build_screen, looks_locked, parse_hierarchy
from tests.sim_world.driver import Local, tap


def _plain(d: Local) -> str:
    return d.shell("uiautomator dump /dev/tty").split("UI hierchary dumped to")[0]


def test_listing_of_a_plain_dump_names_the_labels() -> None:
    d = Local(make_device("u"))
    d.shell("am start -a android.settings.DISPLAY_SETTINGS")
    screen = build_screen(parse_hierarchy(_plain(d)), size=(1080, 2400), display_id=0)
    listing = screen.listing()
    for label in ("Dark theme", "Font size", "Navigate up"):
        assert label in listing
    assert screen.foreground_package == "com.android.settings"


def test_u2_dump_windows_and_the_dialog_are_seen() -> None:
    phone = make_device("u")
    d = Local(phone)
    d.shell("simctl fault dialog=update")
    screen = build_screen(parse_hierarchy(dump_u2([(0, build_frame(phone.world, 0))])), size=(1080, 2400), display_id=0)
    assert screen.has_dialog
    assert "System update available" in screen.listing()


def test_pixels_only_page_asks_for_ocr_and_keyguard_looks_locked() -> None:
    d = Local(make_device("u"))
    d.shell("am start -n com.mika.reader/.WebActivity")
    reader = build_screen(parse_hierarchy(_plain(d)), size=(1080, 2400), display_id=0)
    assert TreeAdequacy.assess(reader).needs_ocr
    locked = Local(make_device("u", scenario="locked"))
    assert looks_locked(build_screen(parse_hierarchy(_plain(locked)), size=(1080, 2400), display_id=0))


def test_rate_limit_dialog_is_a_limit_notice() -> None:
    d = Local(make_device("u"))
    d.shell("am start -n com.mika.feed/.FeedActivity")
    before = build_screen(parse_hierarchy(_plain(d)), size=(1080, 2400), display_id=0)
    for _ in range(6):
        tap(d, desc="Like 小明")
    after = build_screen(parse_hierarchy(_plain(d)), size=(1080, 2400), display_id=0)
    assert LimitNotice.detect(before, after) is not None
