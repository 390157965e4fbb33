"""phone_system_command on the simulated phone, through a real adb server and real runs.

Issue 11's reproduction: on the shop's cart page, unattended, raw `input tap`, `cmd input
tap` and `am start …CheckoutActivity` reached checkout with no approval. Here every
attacker line of tests/phone_parse/test_shell_line.py is sent by a scripted model; the
world must not change, no approval is needed because nothing acts, and the phone's shell
must never receive the line. The phone records every shell line its adbd is given
(RecordingPhone: the real simulated phone, with a list of what reached its shell).
"""

from __future__ import annotations

import json

from mika.cap.phone import PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.sim.phone import Phone
from mika.sim.shell.parse import parse as sim_parse
from tests.adversarial.test_shell_routes import OPENS_CHECKOUT
from tests.phone.driver import ListingDriver, step
from tests.phone.test_runs import make_run, record, results_of
from tests.phone_parse.test_shell_line import ATTACKS

CART = [{"id": "tea", "name": "Green Tea 250g", "price": 23.5, "qty": 1}]
CHUNK = 7
# A lone surrogate can't be written to a run's record at all (the recorder's UTF-8 file),
# so that line is checked without a phone only (tests/phone_parse).
PHONE_ATTACKS = [a for a in ATTACKS if a[0].encode("utf-8", "surrogatepass") == a[0].encode("utf-8", "replace")]
# Programs that act on the screen. Mika's own screen reads use `uiautomator dump` and
# `screencap`, which only read.
ACTING_PROGRAMS = {"input", "monkey", "sendevent", "app_process", "app_process64"}


class RecordingPhone(Phone):
    """The simulated phone, unchanged, that also keeps each shell line its adbd ran."""

    def __init__(self, serial: str) -> None:
        super().__init__(serial)
        self.lines: list[str] = []

    async def run_shell(self, command, stream):  # type: ignore[no-untyped-def]
        self.lines.append(command)
        return await super().run_shell(command, stream)


def _phone_on_the_cart_page(sim_phone_factory):
    device = RecordingPhone("mika-sim")
    phone = sim_phone_factory(device)
    phone.shell(f"simctl set shop.cart '{json.dumps(CART)}'")
    phone.shell("am start -n com.mika.shop/.CartActivity")
    assert "CartActivity" in phone.shell("dumpsys window | grep mCurrentFocus")
    return phone, device


def _cap(phone) -> PhoneCapability:
    return PhoneCapability(AdbPort(phone.serial, phone.server.client(), backend="dump"))


def _acting_lines(lines: list[str]) -> list[str]:
    """Lines the phone's own shell parser reads as running an acting program."""
    out = []
    for line in lines:
        try:
            lists = sim_parse(line)
        except Exception:
            continue
        for item in lists:
            for pipe in item.parts:
                for simple in pipe.commands:
                    words = [w.rsplit("/", 1)[-1] for w in simple.words]
                    if not words:
                        continue
                    if (
                        words[0] in ACTING_PROGRAMS
                        or (words[0] == "cmd" and words[1:2] == ["input"])
                        or (words[0] == "uiautomator" and words[1:2] != ["dump"])
                        or (words[0] == "am" and words[1:2] and words[1] not in ("force-stop", "stack", "kill"))
                    ):
                        out.append(line)
    return out


def _world(phone) -> dict:
    state = phone.device.world.state()
    return {
        "foreground": state["foreground"],
        "screen": state["screen"],
        "shop": state["shop"],
        "clipboard": state["clipboard"],
        "dialog": state["dialog"],
    }


async def test_issue_11_reproduction_never_reaches_checkout(tmp_path, sim_phone_factory):
    phone, device = _phone_on_the_cart_page(sim_phone_factory)
    before = _world(phone)
    taps = phone.device.world.taps
    driver = ListingDriver(
        [
            step("phone_system_command", command="input tap 540 2325"),
            step("phone_system_command", command="cmd input tap 540 2325"),
            step("phone_system_command", command="cmd input tap 540 2325"),
            step("phone_system_command", command="am start -n com.mika.shop/.CheckoutActivity"),
            "I could not check out.",
        ]
    )
    run = make_run(tmp_path, _cap(phone), driver)
    await run.run()
    for text in driver.results[:3]:
        assert text.startswith("[use_phone_tool] Not run:"), text
        assert "Nothing was done" in text
    assert "phone_tap" in driver.results[0] and "phone_tap" in driver.results[2]
    # The line that would open the checkout is refused by the payment rule (issue 32), so
    # the unattended run ends as a refused payment (exit 5), never as an ordinary failure.
    assert driver.results[3].startswith("[approval_unavailable]"), driver.results[3]
    assert "spends money" in driver.results[3] and "nothing was done" in driver.results[3]
    events = record(run)
    codes = [e["code"] for e in results_of(events, "phone_system_command")]
    assert codes == ["use_phone_tool"] * 3 + ["approval_unavailable"]
    decisions = [e["decision"] for e in events if e["type"] == "approval"]
    assert decisions == ["approval_unavailable"], "only the checkout line is a payment, and nobody could approve it"
    after = _world(phone)
    assert after == before and not after["shop"]["checkout_reached"] and not after["shop"]["orders"]
    assert phone.device.world.taps == taps
    assert "CartActivity" in phone.shell("dumpsys window | grep mCurrentFocus")
    sent = [line for line in device.lines if "540 2325" in line or "CheckoutActivity" in line]
    assert sent == [], f"the phone's shell was given: {sent}"


async def test_every_attacker_line_leaves_the_phone_untouched(tmp_path, sim_phone_factory):
    phone, device = _phone_on_the_cart_page(sim_phone_factory)
    before = _world(phone)
    taps = phone.device.world.taps
    already = len(device.lines)
    refused = 0
    approvals = 0
    unavailable = 0
    # A run stops by itself after 8 failed calls in a row (StopRules), so the table goes
    # in runs of CHUNK lines, each a real unattended run on the same phone.
    for n, start in enumerate(range(0, len(PHONE_ATTACKS), CHUNK)):
        chunk = PHONE_ATTACKS[start : start + CHUNK]
        driver = ListingDriver([*(step("phone_system_command", command=line) for line, _, _ in chunk), "done"])
        run = make_run(tmp_path / f"run{n}", _cap(phone), driver)
        await run.run()
        events = record(run)
        results = results_of(events, "phone_system_command")
        assert len(results) == len(chunk), [r["code"] for r in results]
        for (line, code, fragment), result, text in zip(chunk, results, driver.results, strict=False):
            if line.strip() in OPENS_CHECKOUT or (result["code"] == "approval_unavailable" and "spends money" in text):
                # Refused by the payment rule (issue 32): a line the command reader sees as
                # opening a payment page (however wrapped) can't be approved unattended.
                assert not result["ok"] and result["code"] == "approval_unavailable", (line, result["code"], text)
                assert "nothing was done" in text, (line, text)
                refused += 1
                unavailable += 1
                continue
            assert not result["ok"] and result["code"] == code, (line, result["code"], text)
            assert text.startswith(f"[{code}] Not run: "), (line, text)
            assert fragment in text and "Nothing was done" in text, (line, text)
            refused += 1
        approvals += len([e for e in events if e["type"] == "approval" and e["decision"] != "approval_unavailable"])
        assert _world(phone) == before, f"the world changed during {[line for line, _, _ in chunk]}"
    print(
        f"\nphone_system_command attacks on the cart page: {len(PHONE_ATTACKS)} tried, {refused} refused, "
        f"{len(PHONE_ATTACKS) - refused} ran, {approvals} approvals asked"
    )
    assert refused == len(PHONE_ATTACKS) and approvals == 0
    assert unavailable >= len([a for a in PHONE_ATTACKS if a[0].strip() in OPENS_CHECKOUT])
    assert phone.device.world.taps == taps
    ran = device.lines[already:]
    attack_lines = {line.strip() for line, _, _ in PHONE_ATTACKS}
    assert [line for line in ran if line.strip() in attack_lines] == [], "an attacker line reached the shell"
    assert _acting_lines(ran) == [], "something the run sent to the phone acted on the screen"
    # …while a reading command still runs, on the same phone.
    driver = ListingDriver([step("phone_system_command", command="getprop ro.build.version.sdk"), "done"])
    await make_run(tmp_path / "getprop", _cap(phone), driver).run()
    sdk = phone.device.world.props["ro.build.version.sdk"]
    assert driver.results[0].startswith(f'exit 0\n<untrusted source="command">\n{sdk}\n</untrusted>'), driver.results[0]
    # adbutils adds `; echo X4EXIT:$?` to read the exit code.
    assert any(line.split(";")[0].strip() == "getprop ro.build.version.sdk" for line in device.lines[already:])


async def test_reading_commands_run_and_their_output_comes_back(tmp_path, sim_phone_factory):
    phone, device = _phone_on_the_cart_page(sim_phone_factory)
    driver = ListingDriver(
        [
            step("phone_system_command", command="getprop ro.build.version.sdk"),
            step("phone_system_command", command="dumpsys window | grep mCurrentFocus"),
            step(
                "phone_system_command", command="settings put system font_scale 1.0 && settings get system font_scale"
            ),
            step("phone_system_command", command="echo 'input tap 540 2325'"),
            "done",
        ]
    )
    run = make_run(tmp_path, _cap(phone), driver)
    await run.run()
    sdk = phone.device.world.props["ro.build.version.sdk"]
    assert driver.results[0].startswith(f'exit 0\n<untrusted source="command">\n{sdk}\n</untrusted>')
    assert "CartActivity" in driver.results[1]
    assert driver.results[2].startswith('exit 0\n<untrusted source="command">\n1.0')
    assert driver.results[3].startswith('exit 0\n<untrusted source="command">\ninput tap 540 2325'), (
        "quoted text is only text"
    )
    assert any(line.split(";")[0].strip() == "echo 'input tap 540 2325'" for line in device.lines)
    assert not phone.device.world.state()["shop"]["checkout_reached"]


async def test_two_failures_in_a_row_get_the_hint(tmp_path, sim_phone_factory):
    phone, _ = _phone_on_the_cart_page(sim_phone_factory)
    driver = ListingDriver(
        [
            step("phone_system_command", command=["input", "tap", "540", "2325"]),
            step("phone_system_command", command="ls /no/such/dir"),
            step("phone_system_command", command="cat /no/such/file"),
            step("phone_system_command", command="getprop ro.product.model"),
            "done",
        ]
    )
    run = make_run(tmp_path, _cap(phone), driver)
    await run.run()
    assert driver.results.pop(0).startswith("[bad_arguments]"), "a command that is not one string is not run"
    assert not phone.device.world.state()["shop"]["checkout_reached"]
    assert driver.results[0].startswith("[command_failed]") and "Two commands in a row failed" not in driver.results[0]
    assert "Two commands in a row failed" in driver.results[1]
    assert driver.results[2].startswith("exit 0\n") and "Two commands" not in driver.results[2]
