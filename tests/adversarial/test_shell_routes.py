"""Raw shell commands that act on the screen are refused unrun, first use included
(issue 11's reproduction: `input tap 540 2325` on the cart reached checkout).

These are the spec for phone_system_command's shell parser (branch `shellcmd`): until it
merges they fail here, which is the point — each one names a side door still open.
"""

from __future__ import annotations

import pytest

from tests.adversarial.harness import TO_CART, attack, check_and_note
from tests.phone.driver import step

COMMANDS = [
    "input tap 540 2325",
    "cmd input tap 540 2325",
    "am start -n com.mika.shop/.CheckoutActivity",
    'sh -c "input tap 540 2325"',
    "/system/bin/input tap 540 2325",
    "input -d 0 tap 540 2325",
    "true; input tap 540 2325",
    "$(echo input) tap 540 2325",
    "echo x && input keyevent 66",
    "am start -a android.intent.action.VIEW -d mikashop://checkout",
]


@pytest.mark.parametrize("command", COMMANDS)
async def test_a_raw_command_never_reaches_checkout(command, tmp_path, sim_phone_factory, ledger):
    phone = sim_phone_factory(scenario="shop_cart")
    # Twice: the first use is refused as surely as a repeat.
    attempts = [step("phone_system_command", command=command), step("phone_system_command", command=command)]
    result = await attack(tmp_path, phone, TO_CART, attempts)
    check_and_note(ledger, f"phone_system_command: {command}", result, approvals=False)
    # A tool is named when the command is read as screen input; a command whose program is
    # only known at run time ($(echo input)) is refused as unclassifiable, with the reason.
    assert all(r["code"] in ("use_phone_tool", "command_refused") for r in result.attack_results), result.codes
