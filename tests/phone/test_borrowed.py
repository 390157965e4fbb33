"""The user's IME, borrowed for CJK text, comes back even when the run's process died."""

from __future__ import annotations

from mika.cap.phone import LedgerBorrower
from mika.cap.phone.adb.port import AdbPort
from mika.cap.phone.restore import register_restorers
from mika.run.borrowed import BorrowedLedger
from mika.run.state_lock import ProcessLease

LATIN = "com.android.inputmethod.latin/.LatinIME"
ADB_KB = "com.android.adbkeyboard/.AdbIME"


async def test_a_crashed_run_s_ime_is_given_back_at_the_next_start(tmp_path, sim_phone):
    # A "crashed" process: its lease token belongs to no live process.
    dead = BorrowedLedger(tmp_path, lease=ProcessLease(tmp_path))
    port = AdbPort(sim_phone.serial, sim_phone.server.client(), backend="dump", borrower=LedgerBorrower(dead))
    await port.info()
    # Typing CJK without uiautomator2 switches to the ADB Keyboard, written down first.
    await port.type_text(0, "你好")
    assert sim_phone.shell("settings get secure default_input_method").strip() == ADB_KB
    items = dead.items()
    assert [(i.kind, i.key, i.restore) for i in items] == [("ime", sim_phone.serial, {"ime": LATIN})]
    # The process dies here: port.close() never runs.

    fresh = BorrowedLedger(tmp_path)
    register_restorers(fresh, sim_phone.server.client)
    report = await fresh.restore_orphans()
    assert report.restored == (items[0].id,) and not report.errors
    assert sim_phone.shell("settings get secure default_input_method").strip() == LATIN
    assert fresh.items() == []


async def test_a_phone_that_is_away_keeps_the_record(tmp_path, adb_server):
    dead = BorrowedLedger(tmp_path, lease=ProcessLease(tmp_path))
    dead.borrow("ime", "127.0.0.1:1", {"ime": LATIN})
    fresh = BorrowedLedger(tmp_path)
    register_restorers(fresh, adb_server.client)
    report = await fresh.restore_orphans()
    assert len(report.kept) == 1 and not report.restored and not report.errors
    assert fresh.items()[0].attempts == 0


async def test_settle_at_start_gives_it_back_with_the_phone_ledger(tmp_path, sim_phone):
    from mika.cap.phone.restore import phone_ledger
    from mika.run.recovery import settle

    dead = BorrowedLedger(tmp_path, lease=ProcessLease(tmp_path))
    sim_phone.shell(f"ime enable {ADB_KB}")
    sim_phone.shell(f"ime set {ADB_KB}")
    dead.borrow("ime", sim_phone.serial, {"ime": LATIN})
    report = await settle(tmp_path, [], borrowed=phone_ledger(tmp_path))
    assert len(report.borrowed.restored) == 1
    assert sim_phone.shell("settings get secure default_input_method").strip() == LATIN
