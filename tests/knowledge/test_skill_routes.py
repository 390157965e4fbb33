"""Two shipped skills, followed step by step on the simulated phone, finish their sim task.

A skill is only worth its tokens if the procedure it gives works with Mika's real tools.
A scripted model (tests/phone/driver.py, which reads element numbers from the real
listings) takes exactly the steps the skill's body names, through a real adb server to the
simulated phone, and the sim's own task check says whether the job got done. The test
also holds each step to the check the skill asks for (the read-back, the alarm list).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from mika.runtypes.result import OutcomeStatus
from mika.sim.tasks import get_task
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, world_state
from tests.phone.test_tools import dump_cap

SKILLS = Path(__file__).resolve().parents[2] / "skills"
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]


def body_names(skill: str, *tools: str) -> None:
    """The skill's body still prescribes these tools: the route below is the skill's route."""
    text = (SKILLS / skill / "SKILL.md").read_text(encoding="utf-8")
    missing = [t for t in tools if f"`{t}`" not in text]
    assert not missing, f"{skill} no longer names {missing}; update this route with the skill"


async def test_weekday_alarms_sets_the_alarm_and_sees_it_in_the_list(tmp_path, sim_phone):
    body_names("weekday-alarms", "phone_set_alarm", "phone_show_alarms")
    task = get_task("clock_alarm_weekdays_0730")  # "Set an alarm for 7:30 AM on weekdays."
    driver = ListingDriver(
        [
            # the sentence read as the skill says: 7:30 with no pm → hour 7; weekdays → mon…fri
            step("phone_set_alarm", hour=7, minute=30, days=WEEKDAYS),
            step("phone_show_alarms"),
            "Alarm set for 07:30 on weekdays; it is on in the alarm list.",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver, goal=task.goal).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    set_result, shown = driver.results
    assert "Alarm set for 07:30" in set_result and "check:" in set_result
    # the skill's verify step: in the list, the 07:30 switch shows the weekdays and is on
    listing = shown.split("Screen v")[-1]
    switch = next((line for line in listing.splitlines() if "switch" in line and "07:30" in line), "")
    assert "Weekdays" in switch and switch.endswith("checked") and "unchecked" not in switch, listing
    assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("alarms")


async def test_reply_to_chat_sends_into_the_named_thread_and_reads_it_back(tmp_path, sim_phone):
    body_names("reply-to-chat", "phone_launch_app", "phone_find", "phone_tap", "phone_type_text")
    task = get_task("chat_reply_xiaoming")  # 在微聊里回复小明：好的，七点见
    reply = "好的，七点见"
    driver = ListingDriver(
        [
            step("phone_launch_app", app="微聊"),
            step("phone_find", target="小明", by="text", match="exact"),
            step("phone_tap", pick="小明"),
            step("phone_type_text", text=reply, pick="输入消息"),
            step("phone_tap", pick="发送"),
            "已回复小明：好的，七点见",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver, goal=task.goal).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    _, found, opened, typed, sent = driver.results
    assert "小明" in found
    # steps 3 and 4 of the skill: the thread's title is the name the user gave, and the
    # listing shows the newest message from the other side
    assert "ChattingUI" in opened and '2 text "小明"' in opened, opened
    assert "今晚一起吃饭吗" in opened.split("Screen v")[-1]
    # the tool read the field back and it matched
    assert reply in typed and "mismatch" not in typed.casefold()
    # the skill's verify step: the newest message is ours and the box is empty again
    after = sent.split("Screen v")[-1]
    assert f"· {reply}" in after and 'input "输入消息"' in after, after
    messages = next(c for c in world_state(sim_phone)["chats"] if c["id"] == "c1")["messages"]
    assert messages[-1]["from"] == "我" and messages[-1]["text"] == reply
    assert task.succeeded(world_state(sim_phone))


async def test_turn_setting_on_off_reads_the_switch_before_and_after(tmp_path, sim_phone):
    body_names("turn-setting-on-off", "phone_launch_app", "phone_find", "phone_extract", "phone_tap")
    task = get_task("settings_dark_mode_on")  # "Turn on dark mode."
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Settings"),
            # the sim's Settings search box finds nothing, so the skill's step 3: the section
            step("phone_find", target="Display", by="text", match="exact"),
            step("phone_tap", pick="Display"),
            step("phone_extract", kind="form"),
            step("phone_tap", pick="Dark theme", role="switch"),
            step("phone_extract", kind="form"),
            "Dark theme was off; it is on now (read back from the Display page).",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver, goal=task.goal).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    before, after = driver.results[3], driver.results[5]
    dark_before = next(line for line in before.splitlines() if "Dark theme" in line)
    dark_after = next(line for line in after.splitlines() if "Dark theme" in line)
    # the skill's read-before (it was off, so there is something to do) and read-back
    assert dark_before.endswith(": off") and dark_after.endswith(": on"), (before, after)
    assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("settings")


async def test_fill_form_from_note_maps_by_label_and_reads_the_form_back(tmp_path, sim_phone):
    body_names("fill-form-from-note", "phone_extract", "phone_type_text")
    task = get_task("contacts_add_john")  # the "note" is the task text: John Smith, 555-0199
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Contacts"),
            step("phone_tap", pick="Create contact"),
            step("phone_extract", kind="form"),
            # matched by label, not position: the note has no e-mail, so that field stays empty
            step("phone_type_text", text="John", pick="First name"),
            step("phone_type_text", text="Smith", pick="Last name"),
            step("phone_type_text", text="555-0199", pick="Phone"),
            step("phone_extract", kind="form"),
            step("phone_tap", pick="Save"),
            "Saved John Smith, 555-0199.",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver, goal=task.goal).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    mapped, checked = driver.results[2], driver.results[6]
    # an empty field shows its hint as its value: the skill warns that this is empty
    for line in ("first name (field): First name", "phone number (field): Phone", "email address (field): Email"):
        assert line in mapped, mapped
    for typed in driver.results[3:6]:
        assert "read back: matches" in typed, typed
    # the skill's check before submitting: every field holds the note's value, e-mail untouched
    for line in ("first name (field): John", "last name (field): Smith", "phone number (field): 555-0199"):
        assert line in checked, checked
    assert "email address (field): Email" in checked, checked
    assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("contacts")


async def test_add_event_from_message_checks_the_filled_page_before_saving(tmp_path, sim_phone):
    body_names("add-event-from-message", "phone_add_calendar_event", "phone_extract")
    task = get_task("calendar_team_sync_tomorrow")  # "… called Team sync tomorrow at 15:00."
    tomorrow = (sim_phone.device.world.clock.local() + timedelta(days=1)).date().isoformat()
    driver = ListingDriver(
        [
            # "tomorrow" turned into a real date from the phone's own today, as the skill says
            step("phone_add_calendar_event", title="Team sync", start=f"{tomorrow}T15:00"),
            step("phone_extract", kind="form"),
            step("phone_tap", pick="Save"),
            "Added Team sync tomorrow at 15:00.",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver, goal=task.goal).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    opened, form = driver.results[0], driver.results[1]
    assert "not saved yet" in opened
    # the skill's step 2: each field on the page compared with the details before Save
    for line in ("title (field): Team sync", f"start date (field): {tomorrow}", "start time (field): 15:00"):
        assert line in form, form
    assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("events")


async def test_save_to_note_adds_a_line_and_keeps_what_the_note_held(tmp_path, sim_phone):
    body_names("save-to-note", "phone_find", "phone_extract", "phone_press_key", "phone_type_text")
    task = get_task("notes_add_butter")  # "Add butter to my Groceries note." (it holds milk)
    before = next(n for n in world_state(sim_phone)["notes"] if n["title"] == "Groceries")["body"]
    driver = ListingDriver(
        [
            step("phone_launch_app", app="Notes"),
            step("phone_find", target="Groceries", by="text", match="exact"),
            step("phone_tap", pick="Groceries"),
            step("phone_extract", kind="form"),
            step("phone_tap", pick=before.splitlines()[0]),
            step("phone_press_key", key="MOVE_END"),
            # in the note's own style: it is a comma list, so ", butter"
            step("phone_type_text", text=", butter"),
            step("phone_extract", kind="form"),
            step("phone_tap", pick="Save"),
            "Added butter to Groceries; the rest is kept.",
        ]
    )
    result = await make_run(tmp_path, dump_cap(sim_phone), driver, goal=task.goal).run()
    assert result.status is OutcomeStatus.ANSWERED, driver.results
    read_first, typed, read_back = driver.results[3], driver.results[6], driver.results[7]
    assert f"note body (field): {before}" in read_first, read_first
    assert "read back: matches" in typed, typed
    assert f"note body (field): {before}, butter" in read_back, read_back
    after = next(n for n in world_state(sim_phone)["notes"] if n["title"] == "Groceries")["body"]
    assert after == f"{before}, butter"  # the old text kept, the new item once, at the end
    assert task.succeeded(world_state(sim_phone)), world_state(sim_phone).get("notes")
