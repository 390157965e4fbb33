"""ResourceScheduler (apps, clipboard, takeover) and the borrowed-things ledger."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mika.run.borrowed import MAX_ATTEMPTS, BorrowedLedger, RestoreLater
from mika.run.resources import ResourceBusy, ResourceScheduler, parallel_limit
from tests.run_center.doubles import settled

ROOT = Path(__file__).resolve().parents[2]


def test_parallel_limit():
    assert parallel_limit(1) == 1
    assert parallel_limit(2, displays=1) == 1
    assert parallel_limit(3, displays=3) == 3
    assert parallel_limit(5, displays=9) == 3
    assert parallel_limit(0, displays=0) == 1


async def test_one_app_belongs_to_one_run_at_a_time():
    res = ResourceScheduler()
    res.claim_app("r1", "com.taobao")
    res.claim_app("r1", "com.taobao")  # the holder may take it again
    with pytest.raises(ResourceBusy, match="r1"):
        res.claim_app("r2", "com.taobao")
    res.claim_app("r2", "com.jd")
    got = asyncio.create_task(res.acquire_app("r2", "com.taobao"))
    await settled()
    assert not got.done()
    res.release_app("r1", "com.taobao")
    await asyncio.wait_for(got, 1)
    assert res.app_holder("com.taobao") == "r2"
    with pytest.raises(ResourceBusy):
        await res.acquire_app("r3", "com.taobao", timeout=0.01)


async def test_clipboard_is_locked_and_waiters_go_in_order():
    res = ResourceScheduler()
    order: list[str] = []
    release_first = asyncio.Event()

    async def use(run_id: str, hold: asyncio.Event | None = None):
        async with res.clipboard(run_id):
            order.append(f"{run_id} in")
            if hold is not None:
                await hold.wait()
            order.append(f"{run_id} out")

    first = asyncio.create_task(use("r1", release_first))
    await settled()
    others = [asyncio.create_task(use(r)) for r in ("r2", "r3")]
    await settled()
    assert order == ["r1 in"]
    release_first.set()
    await asyncio.gather(first, *others)
    assert order == ["r1 in", "r1 out", "r2 in", "r2 out", "r3 in", "r3 out"]


async def test_takeovers_queue_and_a_finished_run_gives_everything_back():
    res = ResourceScheduler()
    hold = asyncio.Event()

    async def take(run_id):
        async with res.takeover(run_id):
            await hold.wait()

    t1 = asyncio.create_task(take("r1"))
    await settled()
    t2 = asyncio.create_task(take("r2"))
    t3 = asyncio.create_task(take("r3"))
    await settled()
    assert res.state().takeover == "r1" and res.state().takeover_queue == ("r2", "r3")
    res.claim_app("r2", "com.app")
    res.release_run("r2")  # r2 ended while waiting: its wait is dropped, its app freed
    await settled()
    assert t2.cancelled() or t2.done()
    assert res.app_holder("com.app") is None
    hold.set()
    await asyncio.gather(t1, t3)
    assert res.state().takeover is None


async def test_a_cancelled_waiter_does_not_block_the_queue():
    res = ResourceScheduler()
    res.claim_app("r1", "pkg")
    waiter = asyncio.create_task(res.acquire_app("r2", "pkg"))
    third = asyncio.create_task(res.acquire_app("r3", "pkg"))
    await settled()
    waiter.cancel()
    await settled()
    res.release_app("r1", "pkg")
    await asyncio.wait_for(third, 1)
    assert res.app_holder("pkg") == "r3"


# -- borrowed --------------------------------------------------------------------------

BORROW_AND_DIE = textwrap.dedent("""
    import os, signal, sys
    from mika.run.borrowed import BorrowedLedger
    ledger = BorrowedLedger(sys.argv[1])
    ledger.borrow("ime", "emulator-5554", {"ime": "com.google.android.inputmethod.latin/.LatinIME"}, run_id="r1")
    ledger.borrow("ime", "emulator-5554", {"ime": "com.mika/.Ime"}, run_id="r1")  # Mika's own: ignored
    ledger.borrow("clipboard", "emulator-5554", {"text": "the user's copied text"}, run_id="r1")
    ledger.borrow("muted_app", "emulator-5554/com.music", {"volume": 7}, run_id="r1")
    os.kill(os.getpid(), signal.SIGKILL)
""")


def _die_holding_things(root: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", BORROW_AND_DIE, str(root)], env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == -9


async def test_what_a_dead_run_borrowed_is_given_back_at_next_start(tmp_path):
    _die_holding_things(tmp_path)
    assert stat.S_IMODE((tmp_path / "borrowed.json").stat().st_mode) == 0o600
    ledger = BorrowedLedger(tmp_path)
    given: list[tuple[str, dict]] = []
    ledger.register_restorer("ime", lambda item: given.append((item.kind, item.restore)))

    async def restore_clipboard(item):
        given.append((item.kind, item.restore))

    ledger.register_restorer("clipboard", restore_clipboard)
    report = await ledger.restore_orphans()
    assert sorted(k for k, _ in given) == ["clipboard", "ime"]
    assert ("ime", {"ime": "com.google.android.inputmethod.latin/.LatinIME"}) in given  # the user's own IME
    assert len(report.restored) == 2 and len(report.kept) == 1  # nobody restores muted apps yet
    assert [i.kind for i in ledger.items()] == ["muted_app"]
    again = await ledger.restore_orphans()
    assert again.restored == ()


async def test_restore_failures_are_retried_then_dropped_and_said(tmp_path):
    _die_holding_things(tmp_path)
    ledger = BorrowedLedger(tmp_path)
    calls = []

    def away(item):
        calls.append("later")
        raise RestoreLater()

    def broken(item):
        raise RuntimeError("adb: device offline")

    ledger.register_restorer("ime", away)
    ledger.register_restorer("clipboard", broken)
    for _ in range(MAX_ATTEMPTS):
        report = await ledger.restore_orphans()
    assert any("device offline" in e for e in report.errors)
    assert len(report.dropped) == 1
    kinds = sorted(i.kind for i in ledger.items())
    assert kinds == ["ime", "muted_app"]  # RestoreLater never counts against it


async def test_things_borrowed_by_this_live_process_are_not_taken_back(tmp_path):
    ledger = BorrowedLedger(tmp_path)
    ledger.borrow("ime", "serial", {"ime": "x"})
    given = []
    ledger.register_restorer("ime", given.append)
    report = await ledger.restore_orphans()
    assert given == [] and report.restored == ()
    item = ledger.items()[0]
    assert ledger.give_back(item.id) and ledger.items() == []
