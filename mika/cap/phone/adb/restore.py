"""Giving back what a run borrowed on a phone after its process died (seed §2).

`register_restorers(ledger)` teaches a BorrowedLedger the two phone kinds: "ime" (the
user's input method, put back with `ime set`) and "clipboard" (the user's clipboard
text, put back through uiautomator2). A phone that is not attached now is left for a
later start (RestoreLater), without counting a failed attempt.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

import adbutils

from mika.cap.phone.adb.server import adb_client
from mika.run.borrowed import BorrowedItem, BorrowedLedger, RestoreLater


def _device(client_factory: Callable[[], adbutils.AdbClient], serial: str) -> adbutils.AdbDevice:
    try:
        client = client_factory()
        ready = {i.serial for i in client.list() if i.state == "device"}
    except Exception:
        raise RestoreLater() from None
    if serial not in ready:
        raise RestoreLater()
    return client.device(serial)


def register_restorers(ledger: BorrowedLedger, client_factory: Callable[[], adbutils.AdbClient] = adb_client) -> None:
    def restore_ime(item: BorrowedItem) -> None:
        previous = str(item.restore.get("ime") or "")
        if not previous or previous == "null":
            return
        out = _device(client_factory, item.key).shell2(f"ime set {shlex.quote(previous)}", timeout=15)
        if out.returncode != 0:
            raise RuntimeError(f"`ime set {previous}` failed: {out.output.strip()[:200]}")

    def restore_clipboard(item: BorrowedItem) -> None:
        _device(client_factory, item.key)
        import uiautomator2

        d: Any = uiautomator2.connect(item.key)
        d.clipboard = str(item.restore.get("text") or "")

    ledger.register_restorer("ime", restore_ime)
    ledger.register_restorer("clipboard", restore_clipboard)


def phone_ledger(state_dir) -> BorrowedLedger:
    """A BorrowedLedger for `state_dir` that knows how to give back what phones lent:
    pass it to `mika.run.recovery.settle(..., borrowed=…)` at start."""
    ledger = BorrowedLedger(state_dir)
    register_restorers(ledger)
    return ledger
