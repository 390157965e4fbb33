"""Installing and removing packages on the simulated phone, as mobilecli does it: `cmd
package uninstall PKG`, `adb install` (a streamed `cmd package install -r -S SIZE`) and
`appops set com.android.shell android:mock_location allow|default`."""

from __future__ import annotations

from pathlib import Path

from mika.sim.phone import make_device
from tests.adb_env import SimPhone
from tests.sim_world.driver import Local


def test_uninstall_takes_a_downloaded_app_off_the_phone_until_a_reset() -> None:
    d = Local(make_device("u"))
    d.shell("am start -n com.mika.notes/.NotesListActivity")
    assert d.shell("cmd package 'uninstall' 'com.mika.notes'") == "Success\n" and d.last_code == 0
    world = d.phone.world
    assert "com.mika.notes" not in world.apps and world.top_activity(0).package == "com.android.launcher3"
    assert "package:com.mika.notes" not in d.shell("pm list packages")
    assert d.shell("pm uninstall com.mika.notes") == "Failure [DELETE_FAILED_INTERNAL_ERROR]\n" and d.last_code == 1
    # A system app stays, and so does the home app.
    assert d.shell("pm uninstall com.android.settings").startswith("Failure") and d.last_code == 1
    assert d.shell("pm uninstall com.android.launcher3").startswith("Failure")
    # Another phone in the same process still has it: the app files' table is shared.
    assert "com.mika.notes" in make_device("other").world.apps
    d.shell("simctl reset default")
    assert "package:com.mika.notes" in d.shell("pm list packages")


def test_a_streamed_install_of_what_is_not_an_apk_fails_as_on_a_phone(sim_phone: SimPhone, tmp_path: Path) -> None:
    bogus = tmp_path / "notes.apk"
    bogus.write_bytes(b"not a zip at all")
    out = sim_phone.run_adb("install", "-r", str(bogus), check=False)
    text = (out.stdout + out.stderr).decode()
    assert out.returncode == 1
    assert "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl" in text, text


def test_appops_takes_an_op_by_its_public_name() -> None:
    d = Local(make_device("a"))
    assert d.shell("appops set com.android.shell android:mock_location allow") == "" and d.last_code == 0
    assert d.shell("appops get com.android.shell MOCK_LOCATION") == "MOCK_LOCATION: allow\n"
    d.shell("appops set com.android.shell android:mock_location default")
    assert d.shell("appops get com.android.shell android:mock_location") == "No operations.\n"
    assert "Unknown operation string: android:nope" in d.shell("appops set com.android.shell android:nope allow")
