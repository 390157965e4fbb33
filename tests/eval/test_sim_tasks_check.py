"""`mika sim tasks check ID [--device SERIAL]`: a simulated phone's current state scored
by a task's check, over the real adb server — exit 0 pass, 1 fail, 2 unknown task, 3 no
such phone."""

from __future__ import annotations

import json

from tests.eval.evalrun import mika


def test_the_check_follows_the_phone_state(sim_phone):
    code, out, _ = mika("sim", "tasks", "check", "settings_wifi_off", "--device", sim_phone.serial)
    assert code == 1 and out.startswith("settings_wifi_off: FAIL")
    sim_phone.shell("svc wifi disable")
    code, out, _ = mika("sim", "tasks", "check", "settings_wifi_off", "--device", sim_phone.serial, "--json")
    assert code == 0
    assert json.loads(out) == {
        "task": "settings_wifi_off",
        "passed": True,
        "parts": [{"check": {"path": "settings.wifi", "eq": False}, "passed": True}],
    }


def test_each_part_of_an_all_check_is_shown(sim_phone):
    code, out, _ = mika("sim", "tasks", "check", "shop_buy_green_tea", "--device", sim_phone.serial)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "shop_buy_green_tea: FAIL" and len(lines) == 4
    assert any(line.startswith("  ✓") and '"shop.orders"' in line for line in lines)  # nothing bought yet
    assert any(line.startswith("  ✗") and '"shop.cart"' in line for line in lines)


def test_a_question_is_scored_on_the_answer_given(sim_phone):
    code, _, err = mika("sim", "tasks", "check", "market_price_aurora_lamp", "--device", sim_phone.serial)
    assert code == 2 and "--answer" in err
    args = ("sim", "tasks", "check", "market_price_aurora_lamp", "--device", sim_phone.serial, "--answer")
    assert mika(*args, "It is ¥137.50")[0] == 0
    assert mika(*args, "about a hundred")[0] == 1


def test_unknown_task_and_missing_phone_are_clear_errors(sim_phone):
    code, _, err = mika("sim", "tasks", "check", "no_such_task", "--device", sim_phone.serial)
    assert code == 2 and "no simulated-phone task 'no_such_task'" in err
    code, _, err = mika("sim", "tasks", "check", "settings_wifi_off", "--device", "127.0.0.1:1")
    assert code == 3 and "127.0.0.1:1" in err and "Traceback" not in err
