"""The run's own display before any app was started on it: the model is told that nothing
is open there yet and to launch the app, not that a secure window blanked the picture
(which is what a black capture otherwise means)."""

from __future__ import annotations

from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.reader import ScreenReader


async def test_an_empty_display_of_the_runs_own_says_to_open_an_app(sim_phone):
    vd = int(sim_phone.shell("simctl display add 1080x2400 420 mika").strip())
    shots: list[int] = []
    reader = ScreenReader(
        AdbPort(sim_phone.serial, sim_phone.server.client(), backend="u2"),
        vd,
        ocr=lambda picture: shots.append(picture.width) or (),
    )
    reader.display_size = (1080, 2400)
    listing = (await reader.read()).listing()
    assert "Nothing is open on this display yet" in listing and "phone_launch_app" in listing, listing
    assert "secure windows" not in listing and shots == []
    # Once an app is there, the display is read as any other.
    sim_phone.shell(f"am start --display {vd} -n com.android.settings/.Settings")
    listing = (await reader.read()).listing()
    assert "Nothing is open" not in listing and "Network & internet" in listing, listing
