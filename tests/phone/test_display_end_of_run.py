"""The end of a run on its own display (issue 13 "The display's life", "Muting"), on the
simulated phone through a real adb server: the run's app tasks are finished with the
display unless the user wants them kept; the app is muted there and its sound given
back — at the end, or at the next start when the run's process was killed.

DEPENDS ON the sim's scrcpy server (mika/sim/scrcpy), like test_virtual_display_live.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mika.cap.phone import LedgerBorrower, PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.display.leftovers import parse_mode, parse_tasks
from mika.config.errors import ConfigError
from mika.config.settings import load_settings
from mika.run.borrowed import BorrowedLedger

SETTINGS = "com.android.settings"


def _cap(sim_phone, state_dir: Path | None = None) -> PhoneCapability:
    borrower = LedgerBorrower(BorrowedLedger(state_dir)) if state_dir is not None else None
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="u2",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
        borrower=borrower,
    )
    cap = PhoneCapability(port, display_mode="virtual")
    cap.bind_run(lambda e: None, "run-1", "conv-1")
    return cap


def _foreground(sim_phone) -> dict:
    return json.loads(sim_phone.shell("simctl state"))["foreground"]


def _tasks_of(sim_phone, package: str, display: int) -> list[int]:
    return [
        t.id for t in parse_tasks(sim_phone.shell("am stack list")) if t.package == package and t.display == display
    ]


def _mode(sim_phone, package: str = SETTINGS) -> str | None:
    return parse_mode(sim_phone.shell(f"appops get {package} PLAY_AUDIO"))


async def _open_settings(cap: PhoneCapability) -> int:
    n = await cap.session.ensure_display()
    assert n != 0 and cap.session.display_state.mode == "virtual"
    assert (await cap.port.launch_app(n, SETTINGS)).exit_code == 0
    screen = await cap.session.reader.read()  # the app is up on display N
    assert screen.display_id == n and screen.foreground_package == SETTINGS
    await cap.session.ensure_display()  # the next phone call writes the run's task down
    return n


# -- the sim's commands, in the real formats -----------------------------------------------


def test_appops_get_and_set_speak_as_android_does(sim_phone):
    assert sim_phone.shell(f"appops get {SETTINGS} PLAY_AUDIO").strip() == "No operations."
    assert sim_phone.shell(f"appops set {SETTINGS} PLAY_AUDIO deny") == ""
    assert sim_phone.shell(f"appops get {SETTINGS} PLAY_AUDIO").strip() == "PLAY_AUDIO: deny"
    sim_phone.shell(f"appops set {SETTINGS} PLAY_AUDIO default")
    assert sim_phone.shell(f"appops get {SETTINGS} PLAY_AUDIO").strip() == "No operations."
    bad = sim_phone.run_adb("shell", "appops get com.nope.app PLAY_AUDIO", check=False)
    assert bad.returncode == 255 and b"No UID for com.nope.app" in bad.stderr + bad.stdout
    bad = sim_phone.run_adb("shell", f"appops set {SETTINGS} LOUDNESS ignore", check=False)
    assert bad.returncode == 255 and b"Unknown operation string: LOUDNESS" in bad.stderr + bad.stdout


def test_the_product_reads_the_real_appops_lines():
    assert parse_mode("PLAY_AUDIO: allow; time=+1m2s ago\n") == "allow"
    assert parse_mode("Uid mode: PLAY_AUDIO: ignore\nPLAY_AUDIO: ignore; rejectTime=+3s ago") == "ignore"
    assert parse_mode("No operations.\n") is None


def test_am_stack_remove_finishes_one_task_and_is_silent(sim_phone):
    sim_phone.shell(f"am start -n {SETTINGS}/.Settings")
    (task,) = _tasks_of(sim_phone, SETTINGS, 0)
    assert sim_phone.shell(f"am stack remove {task}") == ""
    assert _tasks_of(sim_phone, SETTINGS, 0) == []
    assert sim_phone.shell("am stack remove 999") == ""  # an unknown id: nothing, as on Android


def test_the_product_reads_android_10_and_14_stack_lists():
    old = "Stack id=7 bounds=[0,0][1080,2400] displayId=3 userId=0\n  taskId=7: com.android.settings/com.android.settings.Settings bounds=[0,0][1080,2400] userId=0 visible=true\n"
    new = "RootTask id=9 bounds=[0,0][1080,2400] displayId=0 userId=0\n  taskId=9: com.example/com.example.Main bounds=[0,0][1080,2400] userId=0 visible=true topActivity=ComponentInfo{com.example/com.example.Main}\n"
    assert [(t.id, t.display, t.package) for t in parse_tasks(old + new)] == [
        (7, 3, SETTINGS),
        (9, 0, "com.example"),
    ]


# -- the end of a run ---------------------------------------------------------------------


async def test_by_default_the_runs_app_is_closed_with_its_display(sim_phone, tmp_path):
    before = _foreground(sim_phone)
    assert _tasks_of(sim_phone, SETTINGS, 0) == []
    cap = _cap(sim_phone, tmp_path)
    n = await _open_settings(cap)
    assert _tasks_of(sim_phone, SETTINGS, n)
    await cap.close()
    after = _foreground(sim_phone)
    assert str(n) not in after
    assert after["0"] == before["0"], "an app popped up on the user's screen when the run ended"
    assert _tasks_of(sim_phone, SETTINGS, 0) == []
    assert BorrowedLedger(tmp_path).items() == []  # nothing owed after a clean end


async def test_keep_apps_after_run_moves_the_app_to_the_main_screen(sim_phone, tmp_path):
    cap = _cap(sim_phone, tmp_path)
    assert cap.keeper is not None
    cap.keeper.keep_apps = True  # what `[phone] keep_apps_after_run = true` sets
    n = await _open_settings(cap)
    (task,) = _tasks_of(sim_phone, SETTINGS, n)
    await cap.close()
    assert _tasks_of(sim_phone, SETTINGS, 0) == [task]
    assert _foreground(sim_phone)["0"].startswith(SETTINGS + "/")


async def test_a_takeover_the_user_has_not_finished_keeps_the_app(sim_phone):
    cap = _cap(sim_phone)
    assert cap.keeper is not None
    n = await _open_settings(cap)
    cap.keeper.user_has_it = True
    (task,) = _tasks_of(sim_phone, SETTINGS, n)
    await cap.close()
    assert _tasks_of(sim_phone, SETTINGS, 0) == [task]


async def test_the_users_own_task_the_run_borrowed_goes_back_not_away(sim_phone):
    sim_phone.shell(f"am start -n {SETTINGS}/.Settings")
    (users,) = _tasks_of(sim_phone, SETTINGS, 0)
    sim_phone.shell("input keyevent HOME")
    cap = _cap(sim_phone)
    n = await _open_settings(cap)  # Android brings the app's existing task to display N
    assert _tasks_of(sim_phone, SETTINGS, n) == [users]
    await cap.close()
    assert _tasks_of(sim_phone, SETTINGS, 0) == [users]


def test_the_setting_is_read_from_the_config_file(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("[phone]\nkeep_apps_after_run = true\n")
    settings = load_settings(str(cfg))
    assert settings.keep_apps_after_run is True and not settings.warnings
    plain = tmp_path / "plain.toml"
    plain.write_text('[phone]\ndisplay = "virtual"\n')
    assert load_settings(str(plain)).keep_apps_after_run is False
    cfg.write_text('[phone]\nkeep_apps_after_run = "yes"\n')
    with pytest.raises(ConfigError, match="keep_apps_after_run"):
        load_settings(str(cfg))


# -- muting ---------------------------------------------------------------------------------


async def test_the_app_is_muted_during_the_run_and_its_mode_given_back(sim_phone, tmp_path):
    sim_phone.shell(f"appops set {SETTINGS} PLAY_AUDIO deny")  # the user's own choice
    cap = _cap(sim_phone, tmp_path)
    await _open_settings(cap)
    assert _mode(sim_phone) == "ignore"
    (item,) = [i for i in BorrowedLedger(tmp_path).items() if i.kind == "muted_app"]
    assert item.restore["mode"] == "deny"  # written down before it was changed
    await cap.close()
    assert _mode(sim_phone) == "deny"
    assert BorrowedLedger(tmp_path).items() == []


async def test_a_mode_never_set_comes_back_as_allow(sim_phone):
    assert _mode(sim_phone) is None
    cap = _cap(sim_phone)
    await _open_settings(cap)
    assert _mode(sim_phone) == "ignore"
    await cap.close()
    assert _mode(sim_phone) == "allow"  # not "default": Android plays sound only for allow


# -- a run killed mid-way ------------------------------------------------------------------


def _headless(sim_phone, tmp_path: Path, script: list, **env_extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / f"script-{len(list(tmp_path.glob('script-*')))}.json"
    path.write_text(json.dumps(script))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIKA_")}
    env.update({"MIKA_STATE_DIR": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), **env_extra})
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mika.cli",
            "--no-ui",
            "--device",
            sim_phone.serial,
            "--output-format",
            "stream-json",
            "--model",
            f"script:{path}",
            "Open Settings",
        ],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def test_a_killed_run_has_its_app_unmuted_and_closed_at_the_next_start(sim_phone, tmp_path):
    sim_phone.shell(f"appops set {SETTINGS} PLAY_AUDIO deny")
    before = _foreground(sim_phone)["0"]
    killed = _headless(
        sim_phone,
        tmp_path,
        [
            {"tool_calls": [{"name": "phone_launch_app", "arguments": {"app": SETTINGS}}]},
            {"tool_calls": [{"name": "phone_observe", "arguments": {}}]},
            {"tool_calls": [{"name": "phone_observe", "arguments": {}}]},
            "never reached",
        ],
        MIKA_TEST_KILL_AT="tool_result:2",
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    owed = BorrowedLedger(tmp_path / "state").items()
    assert {i.kind for i in owed} >= {"muted_app", "display_task"}, owed
    # The killed helper's display is gone; with vd_destroy_content=false its task fell on
    # display 0, still muted.
    sim_phone.shell("input keyevent HOME")  # the user goes on with their phone
    assert _tasks_of(sim_phone, SETTINGS, 0)
    assert _mode(sim_phone) == "ignore"
    nxt = _headless(sim_phone, tmp_path, ["Nothing to do on the phone."])
    assert nxt.returncode == 0, nxt.stderr[-2000:]
    assert _mode(sim_phone) == "deny"
    assert _tasks_of(sim_phone, SETTINGS, 0) == []
    assert _foreground(sim_phone)["0"] == before
    assert BorrowedLedger(tmp_path / "state").items() == []


async def test_an_app_opened_by_an_intent_is_muted_and_closed_too(sim_phone, tmp_path):
    before = _foreground(sim_phone)["0"]
    cap = _cap(sim_phone, tmp_path)
    n = await cap.session.ensure_display()
    # No package named: whichever app answers the intent is found on the display.
    assert (await cap.port.start_activity(n, action="android.settings.SETTINGS")).exit_code == 0
    await cap.session.ensure_display()
    assert _tasks_of(sim_phone, SETTINGS, n) and _mode(sim_phone) == "ignore"
    assert {i.kind for i in BorrowedLedger(tmp_path).items()} == {"muted_app", "display_task"}
    await cap.close()
    assert _mode(sim_phone) == "allow" and _tasks_of(sim_phone, SETTINGS, 0) == []
    assert _foreground(sim_phone)["0"] == before


async def test_the_next_start_never_closes_what_the_user_is_looking_at_or_someone_elses_task(sim_phone, tmp_path):
    """The routes around the crash clean-up: the leftover task is in the user's hands now;
    its id names another app's task (ids restart after a reboot); it was the user's own."""
    from mika.cap.phone.restore import register_restorers
    from mika.run.state_lock import ProcessLease

    sim_phone.shell(f"am start -n {SETTINGS}/.Settings")  # the user is looking at it
    (task,) = _tasks_of(sim_phone, SETTINGS, 0)
    dead = BorrowedLedger(tmp_path, lease=ProcessLease(tmp_path))  # a process that died
    serial = sim_phone.serial
    dead.borrow("display_task", f"{serial}/task-{task}", {"serial": serial, "task": task, "package": SETTINGS})
    fresh = BorrowedLedger(tmp_path)
    register_restorers(fresh, sim_phone.server.client)
    report = await fresh.restore_orphans()
    assert len(report.restored) == 1 and not report.errors
    assert _tasks_of(sim_phone, SETTINGS, 0) == [task]  # left where the user has it

    sim_phone.shell("input keyevent HOME")  # not in front any more, but: another app's id
    dead.borrow("display_task", f"{serial}/task-{task}", {"serial": serial, "task": task, "package": "com.other"})
    await fresh.restore_orphans()
    assert _tasks_of(sim_phone, SETTINGS, 0) == [task]

    dead.borrow(
        "display_task", f"{serial}/task-{task}", {"serial": serial, "task": task, "package": SETTINGS, "users": True}
    )
    await fresh.restore_orphans()
    assert _tasks_of(sim_phone, SETTINGS, 0) == [task]  # the user's own task stays

    dead.borrow("display_task", f"{serial}/task-{task}", {"serial": serial, "task": task, "package": SETTINGS})
    await fresh.restore_orphans()
    assert _tasks_of(sim_phone, SETTINGS, 0) == []  # the run's, behind the user's screen: closed
    assert fresh.items() == []


async def test_tasks_a_dead_display_dropped_on_the_main_screen_are_closed_at_the_end(sim_phone, tmp_path):
    cap = _cap(sim_phone, tmp_path)
    first = await _open_settings(cap)
    (task,) = _tasks_of(sim_phone, SETTINGS, first)
    for line in sim_phone.shell("ps -A").splitlines():
        if line.endswith(" app_process"):
            sim_phone.shell(f"kill {line.split()[1]}")
    assert cap.keeper is not None and cap.keeper.server is not None and cap.keeper.server.wait_ended(10)
    assert _tasks_of(sim_phone, SETTINGS, 0) == [task]  # vd_destroy_content=false: it fell there
    sim_phone.shell("input keyevent HOME")  # the user put it behind
    second = await cap.session.ensure_display()
    assert second != first
    await cap.close()
    assert _tasks_of(sim_phone, SETTINGS, 0) == []
    assert _mode(sim_phone) == "allow" and BorrowedLedger(tmp_path).items() == []
