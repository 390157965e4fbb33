"""`am stack list|remove` and `am display move-stack` as real Android answers them, and the
product reading those answers (the keeper's leftovers, the takeover's TaskMover).

What real Android does (AOSP, checked in ActivityManagerShellCommand and ActivityTaskManager
of Android 12–16; there is no captured output in the fixtures):
- `am stack list` prints each root task's RootTaskInfo.toString: "RootTask id=N bounds=…
  displayId=D userId=U", then " configuration={…}", then "  taskId=T: pkg/cls …" per child
  (Android 10–11: StackInfo, "Stack id=N …", same shape);
- `am stack remove N` is removeTask(N): silent, exit 0, an unknown id included; a missing
  or non-numeric id throws;
- `am display move-stack ROOT D` is moveRootTaskToDisplay: silent; an unknown display,
  an unknown root task or the task's own display throw IllegalArgumentException.
A throw is printed by `cmd activity` as "Exception occurred while executing 'CMD':" and
the stack trace, with exit status 255.
"""

from __future__ import annotations

import json

import pytest

from mika.cap.phone.display.input import DisplayInputError, RootTask, TaskMover, parse_stack_list
from mika.cap.phone.display.leftovers import parse_tasks

SETTINGS = "com.android.settings"
SETTINGS_COMPONENT = "com.android.settings/com.android.settings.Settings"


def _shell_rc(sim_phone, command: str) -> tuple[str, int]:
    out = sim_phone.shell(f"{command} 2>&1; echo rc=$?")
    body, _, rc = out.rpartition("rc=")
    return body, int(rc.strip())


def _settings_on_a_virtual_display(sim_phone) -> tuple[int, int]:
    n = int(sim_phone.shell("simctl display add 1080x2400 440").strip())
    sim_phone.shell(f"am start --display {n} -n {SETTINGS}/.Settings")
    (task,) = [t.id for t in parse_tasks(sim_phone.shell("am stack list")) if t.package == SETTINGS]
    return n, task


def test_the_stack_list_has_the_configuration_line_and_both_parsers_step_over_it(sim_phone):
    n, task = _settings_on_a_virtual_display(sim_phone)
    listing = sim_phone.shell("am stack list")
    lines = listing.splitlines()
    root = next(i for i, ln in enumerate(lines) if ln.startswith(f"RootTask id={task} "))
    assert lines[root + 1].startswith(" configuration={")
    assert lines[root + 2].startswith(f"  taskId={task}: {SETTINGS_COMPONENT} ")
    # The takeover's mover reads the component from the child line, not the configuration.
    ours = next(t for t in parse_stack_list(listing) if t.id == task)
    assert ours == RootTask(task, n, SETTINGS_COMPONENT)
    assert next(t for t in parse_tasks(listing) if t.id == task).display == n


def test_an_android_11_stack_list_is_read_too():
    # StackInfo.toString of Android 10–11 (the same shape with "Stack id=").
    text = (
        "Stack id=7 bounds=[0,0][1080,2400] displayId=3 userId=0\n"
        " configuration={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port}\n"
        f"  taskId=7: {SETTINGS_COMPONENT} bounds=[0,0][1080,2400] userId=0 visible=true\n"
        "Stack id=1 bounds=[0,0][1080,2400] displayId=0 userId=0\n"
        " configuration={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port}\n"
        "  taskId=1: com.android.launcher3/com.android.launcher3.Launcher bounds=[0,0][1080,2400] userId=0 visible=true\n"
    )
    assert parse_stack_list(text) == [
        RootTask(7, 3, SETTINGS_COMPONENT),
        RootTask(1, 0, "com.android.launcher3/com.android.launcher3.Launcher"),
    ]


@pytest.mark.parametrize(
    ("command", "exception"),
    [
        ("am stack remove", 'IllegalArgumentException: Argument expected after "remove"'),
        ("am stack remove x1", 'NumberFormatException: For input string: "x1"'),
        (
            "am display move-stack 99999 0",
            "IllegalArgumentException: moveRootTaskToTaskDisplayArea: Unknown rootTaskId=99999",
        ),
        ("am display move-stack 1 77", "IllegalArgumentException: moveRootTaskToDisplay: Unknown displayId=77"),
    ],
)
def test_refusals_are_thrown_exceptions_with_exit_255(sim_phone, command, exception):
    out, rc = _shell_rc(sim_phone, command)
    verb = command.split()[1]
    assert rc == 255
    assert f"Exception occurred while executing '{verb}':" in out and f"java.lang.{exception}" in out


def test_remove_is_silent_for_an_unknown_id_and_moving_to_its_own_display_is_refused(sim_phone):
    n, task = _settings_on_a_virtual_display(sim_phone)
    assert _shell_rc(sim_phone, "am stack remove 424242") == ("", 0)
    out, rc = _shell_rc(sim_phone, f"am display move-stack {task} {n}")
    assert rc == 255 and "Trying to move rootTask=" in out and "to its current taskDisplayArea=" in out
    assert _shell_rc(sim_phone, f"am display move-stack {task} 0") == ("", 0)
    assert json.loads(sim_phone.shell("simctl state"))["displays"]["0"]["foreground"] == SETTINGS


def test_the_mover_says_the_phones_reason_in_one_sentence(sim_phone):
    n, task = _settings_on_a_virtual_display(sim_phone)
    mover = TaskMover(sim_phone.serial)
    moved = mover.to_main(n)
    assert moved.id == task and moved.component == SETTINGS_COMPONENT
    sim_phone.shell(f"simctl display remove {n}")  # the agent's display went meanwhile
    with pytest.raises(DisplayInputError) as caught:
        mover.back_to(moved, n)
    message = str(caught.value)
    assert f"refused `am display move-stack {task} {n}`" in message
    assert message.endswith(f"java.lang.IllegalArgumentException: moveRootTaskToDisplay: Unknown displayId={n}")
    assert "\tat " not in message and "Exception occurred" not in message  # no stack trace
