"""`adb install` / `install-multiple` / `uninstall`, adbutils' and uiautomator2's installs,
through the real adb 36 binary against the simulated phone.

The APK is a real one: the uiautomator helper app that ships inside the uiautomator2
package (MIT), read where pip put it. The sim can't run its code; it must record what
the manifest says (package, label, version, launcher activity) as PackageManager would,
keep the APK where `pm path` points, and refuse broken APKs with the real failure codes.
"""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import uiautomator2

APK = Path(uiautomator2.__file__).parent / "assets" / "app-uiautomator.apk"
PACKAGE = "com.github.uiautomator"


def _packages(sim_phone) -> list[str]:
    return re.findall(r"^package:(\S+)$", sim_phone.shell("pm list packages"), re.M)


def test_adb_install_records_the_manifest(sim_phone, tmp_path: Path) -> None:
    done = sim_phone.run_adb("install", str(APK))
    assert done.stdout.decode().splitlines() == ["Performing Streamed Install", "Success"]
    assert PACKAGE in _packages(sim_phone)
    assert f"package:{PACKAGE}" in sim_phone.shell("pm list packages -3").split()
    app = sim_phone.device.world.apps[PACKAGE]
    assert (app.label, app.version_code, app.version_name) == ("ATX", 2004001, "2.4.0")
    # The APK is where `pm path` says, byte for byte (adb pull $(pm path …) works).
    path = sim_phone.shell(f"pm path {PACKAGE}").strip().removeprefix("package:")
    sim_phone.run_adb("pull", path, str(tmp_path / "back.apk"))
    assert (tmp_path / "back.apk").read_bytes() == APK.read_bytes()
    info = sim_phone.adb.app_info(PACKAGE)
    assert info is not None and info.version_name == "2.4.0" and info.version_code == 2004001
    dump = sim_phone.shell(f"dumpsys package {PACKAGE}")
    assert "minSdk=19 targetSdk=32" in dump


def test_installed_app_launches_into_its_launcher_activity(sim_phone) -> None:
    sim_phone.run_adb("install", str(APK))
    assert "ATX" in sim_phone.shell("uiautomator dump /dev/tty")  # its icon on the home screen
    out = sim_phone.shell(f"monkey -p {PACKAGE} -c android.intent.category.LAUNCHER 1")
    assert "Events injected: 1" in out
    top = sim_phone.device.world.top_activity(0)
    assert top is not None and top.package == PACKAGE
    current = sim_phone.adb.app_current()
    assert (current.package, current.activity) == (PACKAGE, ".MainActivity")
    resolved = sim_phone.shell(f"cmd package resolve-activity --brief {PACKAGE}").split()
    assert resolved[-1] == f"{PACKAGE}/.MainActivity"


def test_install_again_updates_and_uninstall_removes(sim_phone) -> None:
    sim_phone.run_adb("install", str(APK))
    sim_phone.shell(f"monkey -p {PACKAGE} 1")
    assert sim_phone.run_adb("install", "-r", str(APK)).stdout.decode().endswith("Success\n")
    top = sim_phone.device.world.top_activity(0)
    assert top is not None and top.package != PACKAGE  # an update stops the running app
    gone = sim_phone.run_adb("uninstall", PACKAGE)
    assert gone.stdout.decode() == "Success\n"
    assert PACKAGE not in _packages(sim_phone)
    assert PACKAGE not in sim_phone.device.world.apps
    assert sim_phone.run_adb("shell", f"pm path {PACKAGE}", check=False).returncode == 1
    again = sim_phone.run_adb("uninstall", PACKAGE, check=False)
    assert again.returncode != 0 and b"Failure [DELETE_FAILED_INTERNAL_ERROR]" in again.stdout + again.stderr
    system = sim_phone.run_adb("uninstall", "com.android.settings", check=False)
    assert system.returncode != 0 and "com.android.settings" in sim_phone.device.world.apps


def test_push_install_and_flags(sim_phone) -> None:
    # --no-streaming: sync push to /data/local/tmp, `pm install PATH`, `rm PATH </dev/null`.
    done = sim_phone.run_adb("install", "--no-streaming", str(APK))
    assert done.stdout.decode().splitlines() == ["Performing Push Install", "Success"]
    assert b"can't open" not in done.stderr
    assert sim_phone.device.files.stat("/data/local/tmp/app-uiautomator.apk") is None
    flags = sim_phone.run_adb("install", "-r", "-g", "-t", "-d", str(APK))
    assert flags.stdout.decode().endswith("Success\n")
    incremental = sim_phone.run_adb("install", "--incremental", str(APK), check=False)
    assert b"doesn't support incremental" in incremental.stderr  # needs abb_exec, not listed


def test_install_multiple_goes_through_a_session(sim_phone) -> None:
    done = sim_phone.run_adb("install-multiple", str(APK))
    assert b"Success" in done.stdout
    assert PACKAGE in _packages(sim_phone)
    assert sim_phone.device.install_sessions == {}


def test_broken_and_unsigned_apks_fail_like_a_phone(sim_phone, tmp_path: Path) -> None:
    junk = tmp_path / "junk.apk"
    junk.write_bytes(b"this is not a zip file at all")
    bad = sim_phone.run_adb("install", str(junk), check=False)
    assert bad.returncode != 0
    assert re.search(
        rb"Failure \[INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl\d+\.tmp/base\.apk", bad.stderr
    )
    unsigned = tmp_path / "unsigned.apk"
    with zipfile.ZipFile(APK) as src, zipfile.ZipFile(unsigned, "w") as dst:
        for item in src.infolist():
            if not re.match(r"META-INF/CERT\.", item.filename):
                dst.writestr(item, src.read(item))
    refused = sim_phone.run_adb("install", str(unsigned), check=False)
    assert b"INSTALL_PARSE_FAILED_NO_CERTIFICATES" in refused.stderr
    assert PACKAGE not in _packages(sim_phone)


def test_pm_install_of_a_pushed_file_as_adbutils_and_u2_do(sim_phone) -> None:
    missing = sim_phone.adb.shell2(["pm", "install", "-r", "-t", "/data/local/tmp/none.apk"])
    assert missing.returncode == 255 and "Can't open file: /data/local/tmp/none.apk" in missing.output
    # adbutils.install: sync push to /data/local/tmp, `pm install -r -t PATH`, rm.
    sim_phone.adb.install(str(APK), nolaunch=True, silent=True)
    assert PACKAGE in _packages(sim_phone)
    assert not [n for n, _ in sim_phone.device.files.list("/data/local/tmp") if n.endswith(".apk")]
    sim_phone.adb.uninstall(PACKAGE)
    d = uiautomator2.connect(sim_phone.serial)
    try:
        d.app_install(str(APK))
        assert PACKAGE in d.app_list("-3")
        assert d.app_info(PACKAGE) == {"versionName": "2.4.0", "versionCode": 2004001}
        assert d.app_uninstall(PACKAGE)
        assert PACKAGE not in d.app_list()
    finally:
        d.stop_uiautomator(wait=False)


def test_install_from_stdin_over_a_v2_shell(sim_phone) -> None:
    # `adb shell cmd package install -S N < app.apk`: the bytes arrive as shell v2 stdin.
    size = APK.stat().st_size
    argv = [sim_phone.server.binary, "-P", str(sim_phone.server.port), "-s", sim_phone.serial, "shell"]
    with APK.open("rb") as apk:
        done = subprocess.run([*argv, f"cmd package install -S {size}"], stdin=apk, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"Success\n")
    assert PACKAGE in _packages(sim_phone)
    short = subprocess.run(
        [*argv, f"cmd package install -S {size}"], stdin=subprocess.DEVNULL, capture_output=True, timeout=60
    )
    assert short.returncode == 1 and b"INSTALL_FAILED_INVALID_APK" in short.stdout
