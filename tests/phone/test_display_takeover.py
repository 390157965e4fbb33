"""The keeper's side of a takeover (issue 13 "Takeover", seed §6 muting): once the user
takes the agent's display over, its apps get their sound back at once, are not muted
again, and the run's end keeps them on the main screen. On the simulated phone through a
real adb server, the mute ledger written to the run's state directory.
"""

from __future__ import annotations

import json

from mika.cap.phone import LedgerBorrower, PhoneCapability
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.adb.reconnect import ReconnectPolicy
from mika.cap.phone.display.leftovers import MUTED_KIND, parse_mode, parse_tasks
from mika.run.borrowed import BorrowedLedger

SETTINGS = "com.android.settings"
CLOCK = "com.google.android.deskclock"


def _cap(sim_phone, state_dir) -> PhoneCapability:
    port = AdbPort(
        sim_phone.serial,
        sim_phone.server.client(),
        backend="u2",
        reconnect=ReconnectPolicy(first_delay=0.05, max_delay=0.3, total=3.0),
        borrower=LedgerBorrower(BorrowedLedger(state_dir)),
    )
    cap = PhoneCapability(port, display_mode="virtual")
    cap.bind_run(lambda e: None, "run-1", "conv-1")
    return cap


def _mode(sim_phone, package: str) -> str | None:
    return parse_mode(sim_phone.shell(f"appops get {package} PLAY_AUDIO"))


def _muted_in_ledger(state_dir) -> list[str]:
    return [i.key for i in BorrowedLedger(state_dir).items() if i.kind == MUTED_KIND]


async def test_a_takeover_gives_the_sound_back_and_nothing_is_muted_after_it(sim_phone, tmp_path):
    cap = _cap(sim_phone, tmp_path)
    keeper = cap.keeper
    assert keeper is not None
    n = await cap.session.ensure_display()
    assert (await cap.port.launch_app(n, SETTINGS)).exit_code == 0
    assert _mode(sim_phone, SETTINGS) == "ignore"
    assert _muted_in_ledger(tmp_path) == [f"{sim_phone.serial}/{SETTINGS}"]

    await keeper.user_takes_over()
    assert keeper.user_has_it
    assert _mode(sim_phone, SETTINGS) == "allow"  # never set before: given back as allow
    assert _muted_in_ledger(tmp_path) == []  # nothing owed any more

    # An app the run opens after the takeover keeps its sound.
    assert (await cap.port.launch_app(n, CLOCK)).exit_code == 0
    await cap.session.ensure_display()
    assert _mode(sim_phone, CLOCK) != "ignore"
    assert _muted_in_ledger(tmp_path) == []

    await cap.close()
    on_main = [t.package for t in parse_tasks(sim_phone.shell("am stack list")) if t.display == 0]
    assert SETTINGS in on_main and CLOCK in on_main  # kept, on the user's screen
    assert str(n) not in json.loads(sim_phone.shell("simctl state"))["displays"]
