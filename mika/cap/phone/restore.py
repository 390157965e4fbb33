"""Giving back what a run borrowed on a phone after its process died (seed §2).

`register_restorers(ledger)` teaches a BorrowedLedger the phone kinds: "ime" (the
user's input method, put back with `ime set`), "clipboard" (the user's clipboard
text, put back through uiautomator2), "muted_app" (an app muted on the agent's display:
its PLAY_AUDIO mode written back, allow for one never set) and "display_task" (a task
the run started on its display; the dead helper's display let it fall onto the main
screen, so it is finished there — unless it is what the user is looking at now, or it
was the user's own task before the run). A phone that is not attached now is left for a
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

    def restore_muted(item: BorrowedItem) -> None:
        # Imported here: the display package (video decoding) loads only when a run's
        # display left something to give back.
        from mika.cap.phone.display import leftovers

        serial = str(item.restore.get("serial") or item.key.partition("/")[0])
        package = str(item.restore.get("package") or "")
        if not package:
            return
        mode = leftovers.mode_to_give_back(str(item.restore.get("mode") or "") or None)
        out = _device(client_factory, serial).shell2(leftovers.set_mode_command(package, mode), timeout=15)
        if out.returncode != 0:
            raise RuntimeError(f"`appops set {package} PLAY_AUDIO {mode}` failed: {out.output.strip()[:200]}")

    def restore_task(item: BorrowedItem) -> None:
        from mika.cap.phone.display import leftovers

        serial = str(item.restore.get("serial") or item.key.partition("/")[0])
        task_id = int(item.restore.get("task") or -1)
        package = str(item.restore.get("package") or "")
        if task_id < 0 or item.restore.get("users"):
            return  # the user's own task: where the dead display put it (the main screen) is theirs
        device = _device(client_factory, serial)
        listed = device.shell2("am stack list", timeout=15)
        if listed.returncode != 0:
            raise RuntimeError(f"`am stack list` failed: {listed.output.strip()[:200]}")
        tasks = leftovers.parse_tasks(listed.output)
        on_main = [t for t in tasks if t.display == 0]
        found = next((t for t in tasks if t.id == task_id), None)
        # Gone already, or the id now names another app's task (ids restart after a reboot).
        if found is None or (package and found.package and found.package != package):
            return
        if on_main and on_main[0].id == task_id:
            return  # the user is looking at it: closing it under their hands would be worse
        out = device.shell2(leftovers.remove_task_command(task_id), timeout=15)
        if out.returncode != 0:
            raise RuntimeError(f"`am stack remove {task_id}` failed: {out.output.strip()[:200]}")

    ledger.register_restorer("ime", restore_ime)
    ledger.register_restorer("muted_app", restore_muted)
    ledger.register_restorer("display_task", restore_task)
    ledger.register_restorer("clipboard", restore_clipboard)


def phone_ledger(state_dir) -> BorrowedLedger:
    """A BorrowedLedger for `state_dir` that knows how to give back what phones lent:
    pass it to `mika.run.recovery.settle(..., borrowed=…)` at start."""
    ledger = BorrowedLedger(state_dir)
    register_restorers(ledger)
    return ledger
