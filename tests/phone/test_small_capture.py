"""A picture only a model will see is taken small by the phone itself (issue 35): on the
main display with uiautomator2 up, phone_screenshot asks its server for a JPEG already at
the model's long side (`takeScreenshot(scale, quality)`) instead of the full PNG Mika
would decode and shrink. Whatever goes wrong there, the full capture still answers; a
secure window is refused on this path too.

The simulated phone through a real adb server and its uiautomator2 server (mika/sim/u2).
"""

from __future__ import annotations

import io

import pytest
from PIL import Image as PILImage

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.screenshot import CorruptedScreenshot, SecureScreen, jpeg_picture
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run


def _cap(sim_phone, backend: str = "u2") -> PhoneCapability:
    return PhoneCapability(AdbPort(sim_phone.serial, sim_phone.server.client(), backend=backend))


@pytest.fixture
def small_asks(monkeypatch) -> list[tuple[float, bytes | None]]:
    """Every ask for a small capture: the scale and what the phone gave (wraps, changes nothing)."""
    asked: list[tuple[float, bytes | None]] = []
    real = AdbPort._u2_small_capture

    def noting(self, scale):
        got = real(self, scale)
        asked.append((scale, got))
        return got

    monkeypatch.setattr(AdbPort, "_u2_small_capture", noting)
    return asked


async def test_the_phone_sends_the_small_picture_itself(tmp_path, sim_phone, small_asks):
    sim_phone.shell("am start -n com.android.settings/.Settings")
    driver = ListingDriver([step("phone_screenshot"), "done"])
    await make_run(tmp_path, _cap(sim_phone), driver).run()
    ((scale, got),) = small_asks
    # The phone truncates its sizes; the scale asked for lands exactly on the long side.
    assert (int(1080 * scale), int(2400 * scale)) == (461, 1024)
    assert got is not None and got[:2] == b"\xff\xd8"
    with PILImage.open(io.BytesIO(got)) as sent_by_phone:
        assert sent_by_phone.size == (461, 1024)
    assert "461x1024 pixels of the 1080x2400 screen" in driver.results[0], driver.results[0]


async def test_without_uiautomator2_the_full_capture_is_shrunk_here(tmp_path, sim_phone, small_asks):
    sim_phone.shell("am start -n com.android.settings/.Settings")
    driver = ListingDriver([step("phone_screenshot"), "done"])
    await make_run(tmp_path, _cap(sim_phone, backend="dump"), driver).run()
    # The dump backend never starts uiautomator2: the small path says "none", screencap answers.
    assert [got for _, got in small_asks] == [None]
    assert "461x1024 pixels of the 1080x2400 screen" in driver.results[0], driver.results[0]


async def test_a_cut_jpeg_from_the_phone_falls_back_to_the_full_capture(tmp_path, sim_phone):
    sim_phone.shell("am start -n com.android.settings/.Settings")
    cap = _cap(sim_phone)
    await cap.reader.read()  # uiautomator2 up before the fault is set
    sim_phone.shell("simctl fault bad_png=1")  # the next screenshot's JPEG ends a third of the way
    picture = await cap.session.port.screenshot(0, 1024)
    # The cut JPEG was refused; screencap's PNG (the fault used up) answered, full size.
    assert picture.size == (1080, 2400)
    small = await cap.session.port.screenshot(0, 1024)
    assert small.size == (461, 1024)


async def test_a_secure_window_is_refused_on_the_small_path_too(tmp_path, sim_phone):
    sim_phone.shell("am start -n com.mika.wallet/.BalanceActivity")
    driver = ListingDriver([step("phone_screenshot"), "done"])
    await make_run(tmp_path, _cap(sim_phone), driver).run()
    out = driver.results[0]
    assert "secure windows" in out and "pixels of the" not in out, out


def test_what_the_phone_sends_is_checked_before_it_is_a_picture():
    for junk in (b"", b"\x89PNG\r\n\x1a\n", b"not a picture at all"):
        with pytest.raises(CorruptedScreenshot, match="JPEG signature"):
            jpeg_picture(junk)
    good = io.BytesIO()
    PILImage.new("RGB", (46, 102), (250, 250, 250)).save(good, format="JPEG", quality=90)
    with pytest.raises(CorruptedScreenshot, match="cannot be decoded"):
        jpeg_picture(good.getvalue()[: len(good.getvalue()) // 3])
    assert jpeg_picture(good.getvalue()).size == (46, 102)
    black = io.BytesIO()
    PILImage.new("RGB", (46, 102), (0, 0, 0)).save(black, format="JPEG", quality=90)
    with pytest.raises(SecureScreen):
        jpeg_picture(black.getvalue())
