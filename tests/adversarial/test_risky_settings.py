"""Risky settings ask (issue 32): `phone_system_command` ran `settings put secure
lockscreen.disabled 1` without asking. Now every change to the lock screen, install
sources, app verification, accessibility or developer options meets the input gate in the
phone's port (mika/cap/phone/gated_port.py `_judge_shell`): unattended it is refused and
the run exits 5; attended the user is asked (the approval card, request_confirmation),
and only their yes lets that one change through.

Real parts: the simulated phone behind a real adb server, a real TaskRun, the scripted
model the only thing not real.
"""

from __future__ import annotations

import io

import pytest

from mika.assembly import RunEnvironment, capabilities_for
from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.config.language import set_language
from mika.exit_codes import ExitCode
from mika.headless import run_headless
from mika.model.testing import Reply, ScriptedModel
from mika.record.events import ConfirmationAsked
from mika.run.task_run import RunOptions, TaskRun
from mika.runtypes.spec import Attendance
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of
from tests.phone.test_tools import dump_cap


def secure(phone, key: str) -> str | None:
    return phone.device.world.settings_table("secure").get(key)


def glob(phone, key: str) -> str | None:
    return phone.device.world.settings_table("global").get(key)


# Every way a model could spell the change; each must be held, none may reach the phone.
ROUTES = [
    "settings put secure lockscreen.disabled 1",
    "settings put --user 0 secure lockscreen.disabled 1",
    "cmd settings put secure lockscreen.disabled 1",
    "/system/bin/settings put secure lockscreen.disabled 1",
    "sh -c 'settings put secure lockscreen.disabled 1'",
    "getprop ro.product.model; settings put secure lockscreen.disabled 1",
    "getprop ro.product.model && settings put secure lockscreen.disabled 1 2>&1",
    "echo $(settings put secure lockscreen.disabled 1)",
]


@pytest.mark.parametrize("command", ROUTES)
async def test_unattended_the_lock_screen_is_never_switched_off(command, tmp_path, sim_phone, ledger):
    driver = ListingDriver([step("phone_system_command", command=command), "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    events = record(run)
    result = results_of(events, "phone_system_command")[0]
    approvals = [e for e in events if e["type"] == "approval"]
    ledger(
        f"risky setting: {command}",
        1,
        int(not result["ok"]),
        int(secure(sim_phone, "lockscreen.disabled") == "1"),
        [result["code"]],
    )
    assert secure(sim_phone, "lockscreen.disabled") != "1", result
    assert result["code"] == "approval_unavailable", result
    assert "lock screen" in result["text"] and "nothing was done" in result["text"], result["text"]
    assert approvals and approvals[0]["decision"] == "approval_unavailable" and approvals[0]["reason"] == "setting"


@pytest.mark.parametrize(
    ("command", "namespace", "key"),
    [
        ("settings put secure install_non_market_apps 1", "secure", "install_non_market_apps"),
        ("settings put global package_verifier_enable 0", "global", "package_verifier_enable"),
        ("settings put global verifier_verify_adb_installs 0", "global", "verifier_verify_adb_installs"),
        (
            "settings put secure enabled_accessibility_services com.evil/.Tapper",
            "secure",
            "enabled_accessibility_services",
        ),
        ("settings put global development_settings_enabled 1", "global", "development_settings_enabled"),
        ("settings delete secure lockscreen.disabled", "secure", "lockscreen.disabled"),
    ],
)
async def test_unattended_every_risky_setting_is_refused_unchanged(command, namespace, key, tmp_path, sim_phone):
    before = sim_phone.device.world.settings_table(namespace).get(key)
    driver = ListingDriver([step("phone_system_command", command=command), "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    result = results_of(record(run), "phone_system_command")[0]
    assert result["code"] == "approval_unavailable", result
    assert sim_phone.device.world.settings_table(namespace).get(key) == before


async def test_an_ordinary_setting_still_runs_without_asking(tmp_path, sim_phone):
    driver = ListingDriver([step("phone_system_command", command="settings put system font_scale 1.15"), "done"])
    run = make_run(tmp_path, dump_cap(sim_phone), driver)
    await run.run()
    events = record(run)
    assert results_of(events, "phone_system_command")[0]["ok"]
    assert not [e for e in events if e["type"] == "approval"]
    assert sim_phone.device.world.settings_table("system").get("font_scale") == "1.15"


async def _attended(tmp_path, sim_phone, allow: bool, then: list) -> tuple[TaskRun, list[ConfirmationAsked]]:
    command = "settings put secure lockscreen.disabled 1"
    driver = ListingDriver(
        [
            step("phone_system_command", command=command),
            step("request_confirmation", what="turn the lock screen off"),
            *then,
            "done",
        ]
    )
    run = make_run(tmp_path, dump_cap(sim_phone), driver, attendance=Attendance.PRESENT)
    asked: list[ConfirmationAsked] = []

    def on(e) -> None:
        if isinstance(e, ConfirmationAsked):
            asked.append(e)
            run.confirm(e.question_id, allow)

    run.subscribe(on)
    await run.run()
    return run, asked


async def test_attended_the_user_is_asked_and_their_yes_lets_exactly_that_change_through(tmp_path, sim_phone):
    command = "settings put secure lockscreen.disabled 1"
    then = [
        step("phone_system_command", command=command),
        # the consent is spent: another risky change is asked again, not waved through
        step("phone_system_command", command="settings put secure install_non_market_apps 1"),
    ]
    run, asked = await _attended(tmp_path, sim_phone, True, then)
    results = results_of(record(run), "phone_system_command")
    assert results[0]["code"] == "confirmation_required", results[0]
    assert secure(sim_phone, "lockscreen.disabled") == "1"  # after the yes, the retry ran
    assert results[1]["ok"], results[1]
    assert results[2]["code"] == "confirmation_required", results[2]
    assert secure(sim_phone, "install_non_market_apps") != "1"
    # The person saw the setting the port read from the command, not the model's words.
    assert len(asked) == 1 and asked[0].kind == "setting"
    assert asked[0].screen_button == "lockscreen.disabled" and "lock screen" in asked[0].screen_item


async def test_attended_a_no_leaves_the_setting_alone(tmp_path, sim_phone):
    then = [step("phone_system_command", command="settings put secure lockscreen.disabled 1")]
    run, asked = await _attended(tmp_path, sim_phone, False, then)
    results = results_of(record(run), "phone_system_command")
    assert [r["code"] for r in results] == ["confirmation_required", "confirmation_required"]
    assert secure(sim_phone, "lockscreen.disabled") != "1"
    assert len(asked) == 1


async def test_a_payment_consent_never_changes_a_setting(tmp_path, sim_phone):
    """A yes given for a purchase (kind "", an amount) is no yes to a risky setting."""
    from mika.action.confirmation import ConfirmationGate, Consent

    gate = ConfirmationGate()
    gate.grant(Consent(app="", kind="", amount="", what="tea", step=1, amount_on_screen=False, button=""))
    assert not gate.release(
        app="com.android.settings", kind="setting", screen_text="", on_screen=True, step=1, label="lockscreen.disabled"
    )


async def test_headless_a_refused_risky_setting_exits_5_and_says_what_was_not_changed(tmp_path, sim_phone):
    set_language("en")
    model = ScriptedModel(
        [
            Reply.call("phone_system_command", command="settings put secure lockscreen.disabled 1"),
            "Done, lock screen is off.",
        ]
    )

    def factory(spec):
        port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump")
        caps = capabilities_for(spec, RunEnvironment(extra=[PhoneCapability(port)]))
        return TaskRun(spec, model, caps, RunOptions(state_dir=tmp_path, pacing=False))

    out, err = io.StringIO(), io.StringIO()
    try:
        outcome = await run_headless("turn the lock screen off", factory, tmp_path, out=out, err=err)
    finally:
        set_language(None)
    assert outcome.exit_code is ExitCode.APPROVAL, err.getvalue()
    shown = "setting change approval_unavailable: 'settings secure lockscreen.disabled = 1 (the lock screen)'"
    assert shown in err.getvalue(), err.getvalue()
    assert "Not paid" not in out.getvalue()  # nothing was for sale
    assert secure(sim_phone, "lockscreen.disabled") != "1"
