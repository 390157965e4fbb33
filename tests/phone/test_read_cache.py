"""A dump seen again is not parsed and built again (issue 35), and never stands in for a
screen it is not: the screen kept is found by the dump's exact text *and* what was read
with it (the foreground activity, the size, the display), so the same tree under another
activity — a trampoline, a payment page drawn like the page before it — is built anew
with its own activity, the one the payment rules look at.

The simulated phone through a real adb server; the parse count wraps the reader's own
parse function (it counts, it changes nothing).
"""

from __future__ import annotations

import pytest

import mika.cap.phone.reader as reader_module
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.port import Foreground
from mika.cap.phone.reader import BUILT_KEPT, ScreenReader


@pytest.fixture
def parses(monkeypatch) -> list[int]:
    seen: list[int] = []
    real = reader_module.parse_hierarchy

    def counting(xml: str):
        seen.append(len(xml))
        return real(xml)

    monkeypatch.setattr(reader_module, "parse_hierarchy", counting)
    return seen


def _reader(sim_phone, port: AdbPort | None = None) -> ScreenReader:
    return ScreenReader(port or AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump"))


async def test_the_same_screen_read_again_is_parsed_once(sim_phone, parses):
    sim_phone.shell("am start -n com.android.settings/.Settings")
    reader = _reader(sim_phone)
    first = await reader.read()
    again = await reader.read()
    assert len(parses) == 1
    assert again.listing() == first.listing() and again.version == first.version
    # Another screen is parsed; coming back to the first is not.
    sim_phone.shell("am start -a android.settings.DISPLAY_SETTINGS")
    display = await reader.read()
    assert len(parses) == 2 and "Dark theme" in display.listing()
    sim_phone.shell("input keyevent KEYCODE_BACK")
    back = await reader.read()
    assert len(parses) == 2 and back.content_key() == first.content_key()


async def test_a_change_on_the_screen_is_never_taken_from_the_kept_one(sim_phone, parses):
    sim_phone.shell("am start -a android.settings.DISPLAY_SETTINGS")
    reader = _reader(sim_phone)
    before = await reader.read()
    sim_phone.shell("simctl set settings.brightness 20")  # one number on the page changes
    after = await reader.read()
    assert len(parses) == 2
    assert "20%" in after.listing() and "20%" not in before.listing()
    assert after.version != before.version


class _ForegroundSaid(AdbPort):
    """The real port, with the activity its foreground read reports set by the test: the
    simulated phone has no two activities that draw one tree, which is the case to test."""

    said: str | None = None

    async def foreground(self, display: int) -> Foreground:
        real = await super().foreground(display)
        return real if self.said is None else Foreground(real.package, self.said)


async def test_the_same_tree_under_another_activity_is_that_activity(sim_phone, parses):
    sim_phone.shell("am start -n com.android.settings/.Settings")
    port = _ForegroundSaid(sim_phone.serial, sim_phone.server.client(), backend="dump")
    reader = _reader(sim_phone, port)
    shown = await reader.read()
    port.said = "com.android.settings/.PayActivity"
    other = await reader.read()
    assert other.activity == "com.android.settings/.PayActivity" != shown.activity
    assert other.version != shown.version  # a new screen to the tracker: old numbers are checked
    assert len(parses) == 1  # the tree itself was the same text: parsed once, built twice
    port.said = None
    assert (await reader.read()).activity == shown.activity


async def test_only_the_last_few_screens_are_kept(sim_phone, parses):
    reader = _reader(sim_phone)
    sim_phone.shell("am start -a android.settings.DISPLAY_SETTINGS")
    await reader.read()  # brightness 60%
    for level in range(1, BUILT_KEPT + 2):  # as many other screens as are kept, and one more
        sim_phone.shell(f"simctl set settings.brightness {level}")
        await reader.read()
    assert len(parses) == BUILT_KEPT + 2 and len(reader._built) == BUILT_KEPT
    sim_phone.shell(f"simctl set settings.brightness {BUILT_KEPT + 1}")
    await reader.read()  # the last one: kept
    assert len(parses) == BUILT_KEPT + 2
    sim_phone.shell("simctl set settings.brightness 1")
    await reader.read()  # the first of the loop fell out: parsed again
    assert len(parses) == BUILT_KEPT + 3


async def test_whether_a_kept_screen_needs_ocr_is_judged_once(sim_phone, monkeypatch):
    """The tree's adequacy (does it need OCR?) is the kept screen's too: judged on its first
    read, not again when the same dump comes back; a changed screen is judged anew."""
    judged: list[str] = []
    real = reader_module.TreeAdequacy.assess

    class Counting(reader_module.TreeAdequacy):
        @staticmethod
        def assess(screen):
            judged.append(screen.activity)
            return real(screen)

    monkeypatch.setattr(reader_module, "TreeAdequacy", Counting)
    ocr_calls: list[int] = []
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump")
    reader = ScreenReader(port, ocr=lambda picture: ocr_calls.append(1) or ())
    sim_phone.shell("am start -a android.settings.DISPLAY_SETTINGS")
    await reader.read()
    await reader.read()
    assert len(judged) == 1
    sim_phone.shell("simctl set settings.brightness 20")
    changed = await reader.read()
    assert len(judged) == 2 and "20%" in changed.listing()
    assert ocr_calls == []  # a Settings page is read from its tree
