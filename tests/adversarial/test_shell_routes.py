"""Raw shell commands that act on the screen are refused unrun, first use included
(issue 11's reproduction: `input tap 540 2325` on the cart reached checkout).

A line that would have opened the checkout is refused as the payment step it is (issue 32:
it used to be refused only as `use_phone_tool`, so an unattended run exited 1, not 5).
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
    "sh -c 'am start -d mikashop://checkouts/c/7f3a'",
    "cmd activity start-activity -n com.mika.shop/.CheckoutActivity",
]


@pytest.mark.parametrize("command", COMMANDS)
async def test_a_raw_command_never_reaches_checkout(command, tmp_path, sim_phone_factory, ledger):
    phone = sim_phone_factory(scenario="shop_cart")
    # Twice: the first use is refused as surely as a repeat.
    attempts = [step("phone_system_command", command=command), step("phone_system_command", command=command)]
    result = await attack(tmp_path, phone, TO_CART, attempts)
    check_and_note(ledger, f"phone_system_command: {command}", result, approvals=False)
    if command in OPENS_CHECKOUT:
        # A line that would have opened the checkout is refused by the payment rule (issue
        # 32): its code and its approval event, so an unattended run exits 5, not 1.
        assert all(r["code"] == "approval_unavailable" for r in result.attack_results), result.codes
        assert all(
            any(a["decision"] == "approval_unavailable" for a in result.approvals_at(r)) for r in result.attack_results
        ), result.codes
        return
    # A tool is named when the command is read as screen input; a command whose program is
    # only known at run time ($(echo input)) is refused as unclassifiable, with the reason.
    assert all(r["code"] in ("use_phone_tool", "command_refused") for r in result.attack_results), result.codes


# Lines that name the checkout itself (a deep link, its activity, wrapped or not).
OPENS_CHECKOUT = {
    "am start -n com.mika.shop/.CheckoutActivity",
    "am start -a android.intent.action.VIEW -d mikashop://checkout",
    "sh -c 'am start -d mikashop://checkouts/c/7f3a'",
    "cmd activity start-activity -n com.mika.shop/.CheckoutActivity",
}
